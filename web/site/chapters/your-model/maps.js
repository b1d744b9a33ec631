// Chapter 8's full map of one head, painted pixel by pixel (a 1,024 × 1,024 map is a million cells, more than SVG
// or a labelled canvas can hold), with a cursor the mouse and the arrow keys move, a readout of the cell under it,
// and Enter or a click to trace that cell. (The layers × heads grid is components/head-grid.js.)
import { exportMenu } from '../../components/figure-export.js';
import { paintWeights } from '../../components/head-grid.js';
import { formatNumber } from '../../components/heatmap.js';

/**
 * One head's map {layer, head, pieces, map: (T, T)} into `figure`, `zoom` pixels a cell for up to 64 tokens (fewer
 * for longer texts), with its download menu. readout(text) is told what the cell under the cursor holds;
 * onTrace(i, j) runs on a click or Enter.
 */
export function fullMap(figure, shown, { zoom, readout, onTrace }) {
  const T = shown.map.shape[0];
  const scale = Math.max(1, Math.round((zoom * 512) / Math.max(T, 64)));
  const caption = document.createElement('figcaption');
  caption.textContent = `Layer ${shown.layer + 1}, head ${shown.head + 1}: ${T} × ${T} weights (rows: query, columns: key; each row sums to 1)`;
  const canvas = Object.assign(document.createElement('canvas'), { width: T, height: T, className: 'full-map', tabIndex: 0 });
  canvas.style.width = `${T * scale}px`;
  canvas.style.height = `${T * scale}px`;
  canvas.setAttribute('role', 'img');
  canvas.setAttribute('aria-label', `${caption.textContent}. Arrow keys move through its cells.`);
  paintWeights(canvas.getContext('2d'), shown.map.data, T, T);
  let cursor = [T - 1, T - 1];
  const tell = () => {
    const [i, j] = cursor;
    const piece = (k) => JSON.stringify(shown.pieces[k]);
    readout(j > i
      ? `Query ${i + 1} ${piece(i)} cannot see key ${j + 1} ${piece(j)}: it comes later (masked).`
      : `Query ${i + 1} ${piece(i)} gives key ${j + 1} ${piece(j)} a weight of ${formatNumber(shown.map.data[i * T + j], 4)}.`);
  };
  const cellUnder = (e) => {
    const box = canvas.getBoundingClientRect();
    return [Math.min(T - 1, Math.floor(((e.clientY - box.top) / box.height) * T)), Math.min(T - 1, Math.floor(((e.clientX - box.left) / box.width) * T))];
  };
  canvas.addEventListener('mousemove', (e) => {
    cursor = cellUnder(e);
    tell();
  });
  canvas.addEventListener('click', (e) => {
    cursor = cellUnder(e);
    tell();
    onTrace(...cursor);
  });
  canvas.addEventListener('keydown', (e) => {
    if (e.key === 'Enter') {
      e.preventDefault();
      onTrace(...cursor);
      return;
    }
    const moves = { ArrowUp: [-1, 0], ArrowDown: [1, 0], ArrowLeft: [0, -1], ArrowRight: [0, 1] };
    if (!moves[e.key]) return;
    e.preventDefault();
    cursor = cursor.map((v, k) => Math.max(0, Math.min(T - 1, v + moves[e.key][k])));
    tell();
  });
  figure.replaceChildren(caption, canvas);
  exportMenu(figure, canvas, { title: caption.textContent, rowLabels: shown.pieces, colLabels: shown.pieces,
    values: Array.from(shown.map.data), rows: T, cols: T }, `layer ${shown.layer + 1} head ${shown.head + 1}`);
  tell();
}
