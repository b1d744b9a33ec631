// Chapter 8's attention maps, painted pixel by pixel (a 1,024 × 1,024 map is a million cells, more than SVG or a
// labelled canvas can hold): the layers × heads grid of thumbnails, and one head's full map with a cursor the mouse
// and the arrow keys move, a readout of the cell under it, and Enter or a click to trace that cell.
import * as d3 from 'd3';

import { exportMenu } from '../../components/figure-export.js';
import { formatNumber } from '../../components/heatmap.js';

// viridis as 256 RGB triples, the site's colour scale for weights in [0, 1]
const VIRIDIS = Array.from({ length: 256 }, (_, i) => {
  const { r, g, b } = d3.rgb(d3.interpolateViridis(i / 255));
  return [r, g, b];
});

/** Paints a (rows, cols) block of weights in [0, 1] into an ImageData, one pixel a cell. */
function paint(ctx, data, rows, cols, offset = 0) {
  const image = ctx.createImageData(cols, rows);
  for (let k = 0; k < rows * cols; k++) {
    const [r, g, b] = VIRIDIS[Math.max(0, Math.min(255, Math.round(data[offset + k] * 255)))];
    image.data.set([r, g, b, 255], k * 4);
  }
  ctx.putImageData(image, 0, 0);
}

/**
 * Every head as a button holding its thumbnail, layers down and heads across, into `grid`. thumbnails:
 * (nLayer, nHead, S, S); selected: [layer, head]; headsOff: a Set of "layer.head"; onChoose(layer, head).
 */
export function thumbnailGrid(grid, thumbnails, { nLayer, nHead, selected, headsOff, onChoose }) {
  const { data, shape } = thumbnails;
  const S = shape[2];
  grid.style.setProperty('--heads', nHead);
  const axis = (text) => Object.assign(document.createElement('span'), { className: 'axis', textContent: text });
  const cells = [document.createElement('span')];
  for (let h = 0; h < nHead; h++) cells.push(axis(`h${h + 1}`));
  for (let l = 0; l < nLayer; l++) {
    cells.push(axis(`L${l + 1}`));
    for (let h = 0; h < nHead; h++) {
      const button = document.createElement('button');
      button.type = 'button';
      button.className = 'thumb';
      const off = headsOff.has(`${l}.${h}`);
      button.setAttribute('aria-label', `Layer ${l + 1}, head ${h + 1}${off ? ' (switched off)' : ''}: open its map`);
      button.setAttribute('aria-pressed', String(selected[0] === l && selected[1] === h));
      if (off) button.classList.add('off');
      const canvas = Object.assign(document.createElement('canvas'), { width: S, height: S });
      paint(canvas.getContext('2d'), data, S, S, (l * nHead + h) * S * S);
      button.append(canvas);
      button.addEventListener('click', () => onChoose(l, h));
      cells.push(button);
    }
  }
  grid.replaceChildren(...cells);
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
  paint(canvas.getContext('2d'), shown.map.data, T, T);
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
