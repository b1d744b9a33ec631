// Chapter 9's full map of one head, painted pixel by pixel (a 1,024 × 1,024 map is a million cells, more than SVG
// or a labelled canvas can hold), its tokens along both edges (every one when they fit, else every n-th), the
// masked triangle in the masked colour (not the colour of a zero weight), a cursor the mouse and the arrow keys
// move (drawn over the map and scrolled into view), a readout of the cell under it, and Enter or a click to trace
// that cell. (The layers × heads grid is components/head-grid.js.)
import { exportMenu } from '../../components/figure-export.js';
import { paintWeights } from '../../components/head-grid.js';
import { formatNumber } from '../../components/heatmap.js';
import { shown as visible } from '../language-model/state.js';

const LABEL_PX = 12; // a token label's line: labels closer than this are thinned to every n-th

/** Every n-th token's label along one edge of the map, `scale` pixels a token. */
function edgeLabels(pieces, scale, className) {
  const edge = document.createElement('div');
  edge.className = `map-labels ${className}`;
  edge.setAttribute('aria-hidden', 'true'); // the readout names the cell under the cursor
  const every = Math.max(1, Math.ceil(LABEL_PX / scale));
  for (let k = 0; k < pieces.length; k += every) {
    const label = document.createElement('span');
    label.textContent = visible(pieces[k]).trim() || '␣';
    label.style.setProperty('--at', `${(k + 0.5) * scale}px`);
    edge.append(label);
  }
  edge.style.setProperty('--length', `${pieces.length * scale}px`);
  return edge;
}

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
  paintWeights(canvas.getContext('2d'), shown.map.data, T, T); // the keys after each query painted as masked
  const mark = document.createElement('div');
  mark.className = 'map-cursor';
  mark.style.width = mark.style.height = `${Math.max(4, scale)}px`;
  const area = document.createElement('div');
  area.className = 'map-area';
  area.append(canvas, mark);
  const frame = document.createElement('div');
  frame.className = 'map-frame';
  frame.append(document.createElement('span'), edgeLabels(shown.pieces, scale, 'columns'), edgeLabels(shown.pieces, scale, 'rows'), area);
  let cursor = [T - 1, T - 1];
  const tell = () => {
    const [i, j] = cursor;
    mark.style.transform = `translate(${j * scale + (scale - Math.max(4, scale)) / 2}px, ${i * scale + (scale - Math.max(4, scale)) / 2}px)`;
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
    mark.scrollIntoView({ block: 'nearest', inline: 'nearest' });
  });
  // The cursor starts on the last query's own key; a keyboard arriving at the map finds it in view.
  canvas.addEventListener('focus', () => mark.scrollIntoView({ block: 'nearest', inline: 'nearest' }));
  figure.replaceChildren(caption, frame);
  exportMenu(figure, canvas, { title: caption.textContent, rowLabels: shown.pieces, colLabels: shown.pieces,
    values: Array.from(shown.map.data), rows: T, cols: T }, `layer ${shown.layer + 1} head ${shown.head + 1}`);
  tell();
}
