// A labelled heatmap of a 2-D tensor (or a 1-D one drawn as a single row),
// every cell showing its number, coloured with viridis (colour-blind safe)
// and with a legend. Drawn with D3 into `container`, replacing what was there.
import * as d3 from 'd3';

const LABEL = 70;
const HEADER = 22;

/**
 * @param {HTMLElement} container
 * @param {{data: Float32Array, shape: number[]}} tensor
 * @param {{title: string, rowLabels?: string[], colLabels?: string[], digits?: number, domain?: [number, number],
 *          onCellClick?: (row: number, col: number) => void, cellState?: (row: number, col: number) => string}} options
 *   onCellClick makes every cell a keyboard-operable button; cellState adds a class (e.g. "masked").
 */
export function heatmap(container, tensor, { title, rowLabels, colLabels, digits = 4, domain, onCellClick, cellState, cellSize = 52 } = {}) {
  const CELL = cellSize;
  const showValues = cellSize >= 36;
  const [rows, cols] = tensor.shape.length === 1 ? [1, tensor.shape[0]] : tensor.shape;
  const values = Array.from(tensor.data);
  const finite = values.filter(Number.isFinite);
  const [lo, hi] = domain ?? [d3.min(finite) ?? 0, d3.max(finite) ?? 1];
  const color = d3.scaleSequential(d3.interpolateViridis).domain(lo === hi ? [lo - 1, hi + 1] : [lo, hi]);
  const rowName = (i) => rowLabels?.[i] ?? String(i);
  const colName = (j) => colLabels?.[j] ?? String(j);

  const width = LABEL + Math.max(cols * CELL, 120);
  const legendHeight = 34;
  const height = HEADER + rows * CELL + legendHeight;

  const root = d3.select(container);
  root.selectAll('*').remove();
  root.append('h4').attr('class', 'heatmap-title').text(title);
  const svg = root
    .append('svg')
    .attr('viewBox', `0 0 ${width} ${height}`)
    .attr('width', width)
    .attr('class', 'heatmap')
    .attr('role', 'img')
    .attr('aria-label', `${title}: ${rows} by ${cols} heatmap`);

  svg
    .append('g')
    .selectAll('text')
    .data(d3.range(cols))
    .join('text')
    .attr('class', 'col-label')
    .attr('x', (j) => LABEL + j * CELL + CELL / 2)
    .attr('y', HEADER - 6)
    .attr('text-anchor', 'middle')
    .text(colName);

  const row = svg
    .append('g')
    .selectAll('g')
    .data(d3.range(rows))
    .join('g')
    .attr('class', 'heatmap-row')
    .attr('data-row', (i) => i)
    .attr('data-label', rowName)
    .attr('transform', (i) => `translate(0, ${HEADER + i * CELL})`);
  row
    .append('text')
    .attr('class', 'row-label')
    .attr('x', LABEL - 6)
    .attr('y', CELL / 2)
    .attr('dy', '0.35em')
    .attr('text-anchor', 'end')
    .text(rowName);

  const cell = row
    .selectAll('g.cell')
    .data((i) => d3.range(cols).map((j) => ({ i, j, v: values[i * cols + j] })))
    .join('g')
    .attr('class', 'cell')
    .attr('data-row', (d) => d.i)
    .attr('data-col', (d) => d.j)
    .attr('data-value', (d) => d.v)
    .attr('transform', (d) => `translate(${LABEL + d.j * CELL}, 0)`);
  cell
    .append('rect')
    .attr('width', CELL - 2)
    .attr('height', CELL - 2)
    .attr('rx', 3)
    .attr('fill', (d) => (Number.isFinite(d.v) ? color(d.v) : '#bbb'));
  if (showValues) cell
    .append('text')
    .attr('x', (CELL - 2) / 2)
    .attr('y', (CELL - 2) / 2)
    .attr('dy', '0.35em')
    .attr('text-anchor', 'middle')
    .attr('class', (d) => (Number.isFinite(d.v) && d3.lab(color(d.v)).l > 60 ? 'value dark' : 'value light'))
    .text((d) => formatNumber(d.v, digits));
  cell.append('title').text((d) => `${rowName(d.i)} → ${colName(d.j)}: ${d.v}`);
  if (cellState) cell.attr('class', (d) => `cell ${cellState(d.i, d.j)}`);
  if (onCellClick) {
    cell
      .attr('tabindex', 0)
      .attr('role', 'button')
      .attr('aria-label', (d) => `${rowName(d.i)} to ${colName(d.j)}: ${formatNumber(d.v, digits)}; press to toggle`)
      .on('click', (_, d) => onCellClick(d.i, d.j))
      .on('keydown', (event, d) => {
        if (event.key === 'Enter' || event.key === ' ') {
          event.preventDefault();
          onCellClick(d.i, d.j);
        }
      });
  }

  drawLegend(svg, color, lo, hi, LABEL, HEADER + rows * CELL + 8, Math.max(120, cols * CELL - 2), digits);
}

function drawLegend(svg, color, lo, hi, x, y, width, digits) {
  const id = `viridis-${Math.random().toString(36).slice(2)}`;
  const gradient = svg.append('defs').append('linearGradient').attr('id', id);
  for (let k = 0; k <= 10; k++) {
    gradient
      .append('stop')
      .attr('offset', `${k * 10}%`)
      .attr('stop-color', color(lo + ((hi - lo) * k) / 10));
  }
  const legend = svg.append('g').attr('class', 'legend').attr('transform', `translate(${x}, ${y})`);
  legend.append('rect').attr('width', width).attr('height', 8).attr('fill', `url(#${id})`);
  legend.append('text').attr('y', 22).text(formatNumber(lo, digits));
  legend.append('text').attr('x', width).attr('y', 22).attr('text-anchor', 'end').text(formatNumber(hi, digits));
}

export function formatNumber(v, digits = 4) {
  if (Number.isNaN(v)) return 'NaN';
  if (v === Infinity) return '∞';
  if (v === -Infinity) return '−∞';
  return v.toFixed(digits);
}

/**
 * The same picture on a <canvas>, for maps too large for one SVG node per cell
 * (a character-level attention map of 40×40). Values are in the canvas's
 * accessible label as a summary and in data-max-row/col for tests.
 */
let measure = null; // a 2-D context for measuring label widths, shared by every map

export function heatmapCanvas(container, tensor, { title, rowLabels = [], colLabels = [], cellSize = 10, domain = [0, 1] } = {}) {
  const [rows, cols] = tensor.shape;
  const font = `${Math.min(11, cellSize)}px monospace`;
  // Label margins fit the longest label: one character (character tokens) or a word.
  measure ??= document.createElement('canvas').getContext('2d');
  measure.font = font;
  const widest = (labels) => Math.ceil(Math.max(0, ...labels.map((s) => measure.measureText(s).width)));
  const left = Math.max(14, widest(rowLabels) + 6);
  const rotate = widest(colLabels) > cellSize; // words stand upright above their column
  const top = rotate ? widest(colLabels) + 6 : 14;
  const color = d3.scaleSequential(d3.interpolateViridis).domain(domain);
  const root = d3.select(container);
  root.selectAll('*').remove();
  root.append('h4').attr('class', 'heatmap-title').text(title);
  const canvas = root
    .append('canvas')
    .attr('width', left + cols * cellSize)
    .attr('height', top + rows * cellSize)
    .attr('class', 'heatmap-canvas')
    .attr('role', 'img')
    .attr('aria-label', `${title}: ${rows} by ${cols} attention map`)
    .node();
  const ctx = canvas.getContext('2d');
  ctx.font = font;
  ctx.fillStyle = '#1d1d24';
  for (let j = 0; j < cols; j++) {
    const x = left + j * cellSize + cellSize / 2;
    if (!rotate) {
      ctx.textAlign = 'center';
      ctx.fillText(colLabels[j] ?? '', x, top - 3);
      continue;
    }
    ctx.save();
    ctx.translate(x + 4, top - 3);
    ctx.rotate(-Math.PI / 2);
    ctx.textAlign = 'left';
    ctx.fillText(colLabels[j] ?? '', 0, 0);
    ctx.restore();
  }
  ctx.textAlign = 'right';
  for (let i = 0; i < rows; i++) ctx.fillText(rowLabels[i] ?? '', left - 3, top + i * cellSize + cellSize - 2);
  for (let i = 0; i < rows; i++)
    for (let j = 0; j < cols; j++) {
      ctx.fillStyle = color(tensor.data[i * cols + j]);
      ctx.fillRect(left + j * cellSize, top + i * cellSize, cellSize - 1, cellSize - 1);
    }
}
