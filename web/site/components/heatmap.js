// A labelled heatmap of a 2-D tensor (or a 1-D one drawn as a single row),
// every cell with its number (shown on demand: numbers-switch.js), coloured as
// colour-scales.js says (weights on viridis 0 to 1, signed values diverging
// around 0) and with a legend. Drawn with D3 into `container`, replacing what
// was there, at the size it is shown (cells shrink to fit the page, text never does).
//
// Attention maps read one way on every page of the site: rows are queries
// (the token attending), columns are keys (the token attended to), and a map
// of weights says that each row sums to 1 (ATTENTION_AXES, WEIGHTS_NOTE).
import * as d3 from 'd3';

import { colourScale, WEIGHTS_DOMAIN } from './colour-scales.js';
import { exportMenu } from './figure-export.js';

export { WEIGHTS_DOMAIN };
export const ATTENTION_AXES = { rowAxis: 'query (the token attending)', colAxis: 'key (the token attended to)' };
export const WEIGHTS_NOTE = 'each row sums to 1';

const AXIS = 18; // room for a rotated row-axis title
const HEADER = 22;
const MIN_CELL_WITH_VALUES = 40;

/** WCAG relative luminance of a CSS colour. */
function luminance(color) {
  const { r, g, b } = d3.rgb(color);
  const lin = (c) => ((c /= 255) <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4);
  return 0.2126 * lin(r) + 0.7152 * lin(g) + 0.0722 * lin(b);
}

/** Black or white, whichever contrasts more with `background` (≥ 4.5:1 for every colour). */
export function textColorOn(background) {
  const l = luminance(background);
  return (l + 0.05) / 0.05 >= 1.05 / (l + 0.05) ? '#000000' : '#ffffff';
}

/** A figure's title: its <figcaption> when drawn into a <figure>, else a paragraph (never a heading out of order). */
export const titleTag = (container) => (container.tagName === 'FIGURE' ? 'figcaption' : 'p');

let measured = null; // {main, width}: read once per task, so that a redraw of many figures lays the page out once

/**
 * The width a figure may take: its page's content width. Reading it makes the browser lay the page out; a
 * redraw draws many figures in one task, so the width is read once and reused until the task ends (figures
 * never change the width of <main>).
 */
export function availableWidth(container) {
  const main = container.closest('main') ?? document.body;
  if (measured?.main !== main) {
    measured = { main, width: main.clientWidth || 640 };
    queueMicrotask(() => (measured = null));
  }
  return measured.width;
}

/**
 * @param {HTMLElement} container
 * @param {{data: Float32Array, shape: number[]}} tensor
 * @param {{title: string, rowLabels?: string[], colLabels?: string[], rowAxis?: string, colAxis?: string,
 *          note?: string, digits?: number, domain?: [number, number], cellSize?: number,
 *          masked?: (row: number, col: number) => boolean, maskLabel?: string,
 *          onCellClick?: (row: number, col: number) => void, cellPressed?: (row: number, col: number) => boolean,
 *          cellLabel?: (row: number, col: number, text: string) => string, cellAction?: string,
 *          groupEvery?: number, attendLabel?: string}} options
 *   masked: cells drawn hatched with maskLabel, left out of the colour scale.
 *   attendLabel: a map of two values (a mask): the legend is two swatches, this label's and the masked one's.
 *   onCellClick: the cells become toggle buttons, one tab stop for the whole map (arrow keys move);
 *   cellAction says what Enter does to one ("toggles one", the default, or e.g. "traces one below").
 *   groupEvery: a rule after every that many columns (a head's columns in a multi-head matrix).
 */
export function heatmap(container, tensor, options = {}) {
  const { title, rowLabels, colLabels, rowAxis, colAxis, note, digits = 4, domain, masked, maskLabel = '−∞',
    onCellClick, cellPressed, cellLabel, cellAction = 'toggles one', groupEvery, attendLabel } = options;
  const [rows, cols] = tensor.shape.length === 1 ? [1, tensor.shape[0]] : tensor.shape;
  const values = Array.from(tensor.data);
  const isMasked = (i, j) => Boolean(masked?.(i, j));
  const rowName = (i) => rowLabels?.[i] ?? String(i);
  const colName = (j) => colLabels?.[j] ?? String(j);

  // Labels fit their longest text; cells take what is left, up to cellSize.
  const labelWidth = Math.max(24, 7 * Math.max(1, ...d3.range(rows).map((i) => rowName(i).length)) + 10);
  const left = labelWidth + (rowAxis ? AXIS : 0);
  const top = HEADER + (colAxis ? 18 : 0);
  const cell = Math.max(14, Math.min(options.cellSize ?? 52, Math.floor((availableWidth(container) - left - 4) / cols)));
  const showValues = cell >= MIN_CELL_WITH_VALUES;

  const scaled = values.filter((v, k) => Number.isFinite(v) && !isMasked(Math.floor(k / cols), k % cols));
  const { color, domain: [lo, hi] } = colourScale(domain, scaled);
  const fill = (d) => (d.masked ? `url(#${hatchId})` : Number.isFinite(d.v) ? color(d.v) : '#bbbbbb');
  const label = (d) => (d.masked ? maskLabel : formatNumber(d.v, digits));

  const maskKey = masked ? 120 : 0; // room for the hatched swatch and its label
  const legendWidth = Math.max(100, Math.min(cols * cell - 2 - maskKey, 260));
  const width = left + Math.max(cols * cell, legendWidth + maskKey);
  const height = top + rows * cell + 34 + (note ? 16 : 0);

  // A focused cell keeps its focus across the redraw its own toggle causes.
  const focused = container.contains(document.activeElement) ? document.activeElement.closest?.('g.cell') : null;
  const refocus = focused ? [Number(focused.dataset.row), Number(focused.dataset.col)] : null;
  const root = d3.select(container);
  root.selectAll('*').remove();
  root.append(titleTag(container)).attr('class', 'heatmap-title').text(title);
  const svg = root
    .append('svg')
    .attr('viewBox', `0 0 ${width} ${height}`)
    .attr('width', width)
    .attr('height', height)
    .attr('class', 'heatmap')
    .attr('data-domain', `${lo},${hi}`) // the colour scale's ends, for maps meant to be compared
    .attr('role', onCellClick ? 'group' : 'img')
    .attr('aria-label', `${title}: ${rows} by ${cols}${rowAxis ? `, rows: ${rowAxis}, columns: ${colAxis}` : ''}` +
      `${note ? `, ${note}` : ''}${onCellClick ? `. Arrow keys move between cells, Enter or Space ${cellAction}.` : ''}`);
  const hatchId = `hatch-${Math.random().toString(36).slice(2)}`;
  const hatch = svg.append('defs').append('pattern').attr('id', hatchId).attr('width', 6).attr('height', 6)
    .attr('patternUnits', 'userSpaceOnUse').attr('patternTransform', 'rotate(45)');
  // The theme's colours (style.css): subdued in the dark theme, where they would outshine the data.
  hatch.append('rect').attr('class', 'hatch-ground').attr('width', 6).attr('height', 6);
  hatch.append('line').attr('class', 'hatch-line').attr('x1', 0).attr('y1', 0).attr('x2', 0).attr('y2', 6).attr('stroke-width', 2);

  if (colAxis) {
    svg.append('text').attr('class', 'axis-title col-axis').attr('x', left).attr('y', 12).text(`${colAxis} →`);
  }
  if (rowAxis) {
    svg.append('text').attr('class', 'axis-title row-axis')
      .attr('transform', `translate(12, ${top}) rotate(90)`).attr('text-anchor', 'start').text(`${rowAxis} →`);
  }
  svg.append('g').selectAll('text').data(d3.range(cols)).join('text')
    .attr('class', 'col-label')
    .attr('x', (j) => left + j * cell + cell / 2)
    .attr('y', top - 6)
    .attr('text-anchor', 'middle')
    .text(colName);

  const row = svg.append('g').selectAll('g').data(d3.range(rows)).join('g')
    .attr('class', 'heatmap-row')
    .attr('data-row', (i) => i)
    .attr('data-label', rowName)
    .attr('transform', (i) => `translate(0, ${top + i * cell})`);
  row.append('text').attr('class', 'row-label')
    .attr('x', left - 6).attr('y', cell / 2).attr('dy', '0.35em').attr('text-anchor', 'end')
    .text(rowName);

  const cells = row.selectAll('g.cell')
    .data((i) => d3.range(cols).map((j) => ({ i, j, v: values[i * cols + j], masked: isMasked(i, j) })))
    .join('g')
    .attr('class', (d) => `cell${d.masked ? ' masked' : ''}${cellPressed?.(d.i, d.j) ? ' clicked' : ''}`)
    .attr('data-row', (d) => d.i)
    .attr('data-col', (d) => d.j)
    .attr('data-value', (d) => d.v)
    .attr('transform', (d) => `translate(${left + d.j * cell}, 0)`);
  cells.append('rect').attr('width', cell - 2).attr('height', cell - 2).attr('rx', 3).attr('fill', fill);
  if (showValues) {
    cells.append('text').attr('class', 'value')
      .attr('x', (cell - 2) / 2).attr('y', (cell - 2) / 2).attr('dy', '0.35em').attr('text-anchor', 'middle')
      .attr('fill', (d) => (d.masked ? null : textColorOn(Number.isFinite(d.v) ? color(d.v) : '#bbbbbb'))) // masked: style.css
      .text(label);
  }
  cells.append('title').text((d) => `${rowName(d.i)} → ${colName(d.j)}: ${d.masked ? `masked (${maskLabel})` : d.v}`);
  if (onCellClick) makeToggleGrid(cells, rows, cols, { onCellClick, cellPressed, refocus,
    name: (d) => cellLabel?.(d.i, d.j, label(d)) ?? `${rowName(d.i)} to ${colName(d.j)}: ${label(d)}` });

  // Columns in groups (one head's d_k columns of a multi-head matrix): a rule between groups.
  if (groupEvery && groupEvery < cols) {
    for (let g = groupEvery; g < cols; g += groupEvery) {
      svg.append('line').attr('class', 'group-rule').attr('x1', left + g * cell - 1).attr('x2', left + g * cell - 1)
        .attr('y1', top - 4).attr('y2', top + rows * cell + 2);
    }
  }
  const legendY = top + rows * cell + 8;
  if (attendLabel) {
    const key = svg.append('g').attr('class', 'legend attend-key').attr('transform', `translate(${left}, ${legendY - 2})`);
    key.append('rect').attr('class', 'hatch-key').attr('width', 12).attr('height', 12).attr('fill', color(0));
    key.append('text').attr('x', 16).attr('y', 10).text(attendLabel);
  } else {
    drawLegend(svg, color, lo, hi, left, legendY, legendWidth, digits, lo < 0 && hi > 0);
  }
  if (masked) {
    const at = attendLabel ? 7 * attendLabel.length + 40 : legendWidth + 14;
    const key = svg.append('g').attr('class', 'legend masked-key').attr('transform', `translate(${left + at}, ${legendY - 2})`);
    key.append('rect').attr('class', 'hatch-key').attr('width', 12).attr('height', 12).attr('fill', `url(#${hatchId})`);
    key.append('text').attr('x', 16).attr('y', 10).text(`masked (${maskLabel})`);
  }
  if (note) svg.append('text').attr('class', 'map-note').attr('x', left).attr('y', legendY + 38).text(note);
  exportMenu(container, svg.node(), { title, rowLabels: d3.range(rows).map(rowName), colLabels: d3.range(cols).map(colName), values, rows, cols }, title);
}

/** Cells as toggle buttons behind one tab stop (a roving tabindex): arrows move, Enter or Space toggles. */
function makeToggleGrid(cells, rows, cols, { onCellClick, cellPressed, refocus, name }) {
  const current = refocus ?? [0, 0];
  cells
    .attr('role', 'button')
    .attr('tabindex', (d) => (d.i === current[0] && d.j === current[1] ? 0 : -1))
    .attr('aria-pressed', (d) => String(Boolean(cellPressed?.(d.i, d.j))))
    .attr('aria-label', name)
    .on('click', (_, d) => onCellClick(d.i, d.j))
    .on('keydown', function (event, d) {
      if (event.key === 'Enter' || event.key === ' ') {
        event.preventDefault();
        onCellClick(d.i, d.j);
        return;
      }
      const move = { ArrowUp: [-1, 0], ArrowDown: [1, 0], ArrowLeft: [0, -1], ArrowRight: [0, 1], Home: [0, -cols], End: [0, cols] }[event.key];
      if (!move) return;
      event.preventDefault();
      const i = Math.min(rows - 1, Math.max(0, d.i + move[0]));
      const j = Math.min(cols - 1, Math.max(0, d.j + move[1]));
      const next = this.ownerSVGElement.querySelector(`g.cell[data-row="${i}"][data-col="${j}"]`);
      this.setAttribute('tabindex', '-1');
      next.setAttribute('tabindex', '0');
      next.focus();
    });
  if (refocus) cells.filter((d) => d.i === refocus[0] && d.j === refocus[1]).node()?.focus();
}

function drawLegend(svg, color, lo, hi, x, y, width, digits, zero) {
  const id = `scale-${Math.random().toString(36).slice(2)}`;
  const gradient = svg.append('defs').append('linearGradient').attr('id', id);
  for (let k = 0; k <= 10; k++) {
    gradient.append('stop').attr('offset', `${k * 10}%`).attr('stop-color', color(lo + ((hi - lo) * k) / 10));
  }
  const legend = svg.append('g').attr('class', 'legend').attr('transform', `translate(${x}, ${y})`);
  legend.append('rect').attr('width', width).attr('height', 8).attr('fill', `url(#${id})`);
  legend.append('text').attr('y', 22).text(formatNumber(lo, digits));
  legend.append('text').attr('x', width).attr('y', 22).attr('text-anchor', 'end').text(formatNumber(hi, digits));
  if (zero) legend.append('text').attr('x', width / 2).attr('y', 22).attr('text-anchor', 'middle').text('0');
}

/** A number as a cell shows it: fixed digits, or a short exponent (−1e9) when that would not fit. */
export function formatNumber(v, digits = 4) {
  if (Number.isNaN(v)) return 'NaN';
  if (v === Infinity) return '∞';
  if (v === -Infinity) return '−∞';
  if (Math.abs(v) >= 1e5) {
    const [mantissa, exponent] = v.toExponential(Math.abs(v) === 10 ** Math.round(Math.log10(Math.abs(v))) ? 0 : 1).split('e');
    return `${mantissa.replace('-', '−')}e${Number(exponent)}`;
  }
  return v.toFixed(digits);
}
