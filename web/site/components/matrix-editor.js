// An editable table of numbers: one labelled <input type="number"> per element
// of a (rows, cols) matrix. Calls onChange(tensor) on every valid edit; an
// input that is not a number is marked invalid and does not propagate.
export function matrixEditor(container, tensor, { rowLabels, colLabels, caption, step = 0.01, onChange }) {
  const [rows, cols] = tensor.shape;
  const data = Float32Array.from(tensor.data);
  container.replaceChildren();
  const table = document.createElement('table');
  table.className = 'matrix-editor';
  const cap = table.createCaption();
  cap.textContent = caption;
  const head = table.createTHead().insertRow();
  head.appendChild(document.createElement('th'));
  for (let j = 0; j < cols; j++) {
    const th = document.createElement('th');
    th.scope = 'col';
    th.textContent = colLabels?.[j] ?? `x${j + 1}`;
    head.appendChild(th);
  }
  const body = table.createTBody();
  for (let i = 0; i < rows; i++) {
    const tr = body.insertRow();
    const th = document.createElement('th');
    th.scope = 'row';
    th.textContent = rowLabels?.[i] ?? String(i);
    tr.appendChild(th);
    for (let j = 0; j < cols; j++) {
      const input = document.createElement('input');
      input.type = 'number';
      input.step = String(step);
      input.value = String(Math.round(data[i * cols + j] * 1e4) / 1e4);
      input.dataset.row = String(i);
      input.dataset.col = String(j);
      input.setAttribute('aria-label', `${th.textContent}, dimension ${j + 1}`);
      input.addEventListener('input', () => {
        const v = input.valueAsNumber;
        const ok = Number.isFinite(v);
        input.setAttribute('aria-invalid', String(!ok));
        if (!ok) return;
        data[i * cols + j] = v;
        onChange({ data: Float32Array.from(data), shape: [rows, cols] });
      });
      tr.insertCell().appendChild(input);
    }
  }
  container.appendChild(table);
}
