// An editable table of numbers: one labelled <input type="number"> per element
// of a (rows, cols) matrix. Calls onChange(tensor) after every edit, with
// null while any cell does not hold a number; that cell is marked invalid and
// the problem is shown beside the table (role="alert"), never replaced by a default.
// Returns {set(values)}, which fills every cell (a link being opened) without calling onChange.
import { showProblem, typedText } from './inputs.js';
import { float32Text } from './link-state.js';

export function matrixEditor(container, tensor, { rowLabels, colLabels, caption, step = 0.01, onChange }) {
  const [rows, cols] = tensor.shape;
  const data = Float32Array.from(tensor.data);
  const bad = new Set(); // inputs that do not hold a number
  container.replaceChildren();
  container.classList.add('field');
  const table = document.createElement('table');
  table.className = 'matrix-editor';
  const cap = table.createCaption();
  cap.textContent = caption;
  const head = table.createTHead().insertRow();
  head.appendChild(document.createElement('td'));
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
      input.id = `${container.dataset.editor ?? 'matrix'}-${i}-${j}`;
      const name = `${th.textContent}, ${colLabels?.[j] ?? `dimension ${j + 1}`}`;
      input.setAttribute('aria-label', name);
      input.addEventListener('input', () => {
        const v = input.valueAsNumber;
        if (Number.isFinite(v)) {
          bad.delete(input);
          data[i * cols + j] = v;
        } else {
          bad.add(input);
        }
        for (const el of table.querySelectorAll('input')) el.setAttribute('aria-invalid', String(bad.has(el)));
        const first = [...bad][0];
        showProblem(first ?? input, first ? `${first.getAttribute('aria-label')} must be a number; ${typedText(first)}.` : '');
        onChange(bad.size ? null : { data: Float32Array.from(data), shape: [rows, cols] });
      });
      tr.insertCell().appendChild(input);
    }
  }
  container.appendChild(table);
  return {
    set(values) {
      data.set(values);
      bad.clear();
      for (const input of table.querySelectorAll('input')) {
        input.value = float32Text(data[Number(input.dataset.row) * cols + Number(input.dataset.col)]);
        input.setAttribute('aria-invalid', 'false');
      }
      showProblem(table.querySelector('input'), '');
    },
  };
}
