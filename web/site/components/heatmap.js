// A labelled heatmap of a 2-D tensor (or a 1-D one drawn as a single row),
// every cell showing its number, coloured with viridis (colour-blind safe)
// and with a legend. Drawn with D3 into `container`, replacing what was there.
import * as d3 from 'd3';

const CELL = 52;
const LABEL = 70;
const HEADER = 22;

/**
 * @param {HTMLElement} container
 * @param {{data: Float32Array, shape: number[]}} tensor
 * @param {{title: string, rowLabels?: string[], colLabels?: string[], digits?: number, domain?: [number, number]}} options
 */
export function heatmap(container, tensor, { title, rowLabels, colLabels, digits = 4, domain } = {}) {
  const [rows, cols] = tensor.shape.length === 1 ? [1, tensor.shape[0]] : tensor.shape;
  const values = Array.from(tensor.data);
  const finite = values.filter(Number.isFinite);
  const [lo, hi] = domain ?? [d3.min(finite) ?? 0, d3.max(finite) ?? 1];
  const color = d3.scaleSequential(d3.interpolateViridis).domain(lo === hi ? [lo - 1, hi + 1] : [lo, hi]);
  const rowName = (i) => rowLabels?.[i] ?? String(i);
  const colName = (j) => colLabels?.[j] ?? String(j);

  const width = LABEL + cols * CELL;
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
  cell
    .append('text')
    .attr('x', (CELL - 2) / 2)
    .attr('y', (CELL - 2) / 2)
    .attr('dy', '0.35em')
    .attr('text-anchor', 'middle')
    .attr('class', (d) => (Number.isFinite(d.v) && d3.lab(color(d.v)).l > 60 ? 'value dark' : 'value light'))
    .text((d) => formatNumber(d.v, digits));
  cell.append('title').text((d) => `${rowName(d.i)} → ${colName(d.j)}: ${d.v}`);

  drawLegend(svg, color, lo, hi, LABEL, HEADER + rows * CELL + 8, cols * CELL - 2, digits);
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
