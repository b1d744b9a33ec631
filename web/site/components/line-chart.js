// Lines over one x axis, drawn with D3 as SVG: chapter 8's loss curve and its
// heads' shares while a model trains. Being SVG, a chart follows the theme
// through the style sheet and downloads like every figure (SVG, PNG, JSON,
// CSV). A missing value (null) is skipped and the line joins its neighbours;
// a long series is thinned to the pixels it covers, keeping each pixel
// column's first, lowest, highest and last point, so that a run of 100,000
// steps draws as fast as one of 1,000 and looks the same.
import * as d3 from 'd3';

import { exportMenu } from './figure-export.js';
import { availableWidth, titleTag } from './heatmap.js';

const HEIGHT = 240;
const MARGIN = { top: 12, right: 16, bottom: 42, left: 56 };
const LEGEND_ITEM = { width: 150, height: 18 };

/** The points worth drawing: all of them, or at most four per pixel column (px(x) rounded) when there are many more. */
export function thinned(points, px, width) {
  if (points.length <= 4 * width) return points;
  const kept = [];
  let column = [];
  const flush = () => {
    if (!column.length) return;
    const lo = column.reduce((a, p) => (p.y < a.y ? p : a));
    const hi = column.reduce((a, p) => (p.y > a.y ? p : a));
    kept.push(...new Set([column[0], lo, hi, column.at(-1)].sort((a, b) => a.x - b.x)));
    column = [];
  };
  let at = null;
  for (const p of points) {
    const c = Math.round(px(p.x));
    if (c !== at) flush();
    at = c;
    column.push(p);
  }
  flush();
  return kept;
}

/**
 * @param {HTMLElement} container  its contents are replaced
 * @param {{title: string, x: number[], series: {label: string, values: (number|null)[], color: string,
 *          dash?: boolean, points?: boolean, emphasis?: boolean, muted?: boolean}[], xLabel: string, yLabel: string,
 *          yDomain?: [number, number], description: string, empty?: string,
 *          marks?: {x: number, label: string, kind: string}[]}} options
 *   series colours are CSS colours (a palette variable such as 'var(--accent)' follows the theme);
 *   points: each value also drawn as a dot named by a tooltip; description: the chart for assistive technology;
 *   emphasis / muted: a series drawn thicker (the one the text is about) or faded (lines that stay near zero, so
 *   that eight overlapping flat lines do not hide the one that matters); empty: the sentence shown instead of
 *   axes while there is nothing to draw. marks: vertical rules at steps the page is about (the step a slider shows,
 *   a phase change), each labelled at the top and named by `kind` (its class, `mark-${kind}`).
 */
export function lineChart(container, { title, x, series, xLabel, yLabel, yDomain, description, empty, marks = [] }) {
  if (x.length === 0 && empty) {
    // Nothing measured yet: a sentence saying what will be drawn here, not axes around nothing.
    const root = d3.select(container);
    root.selectAll('*').remove();
    root.append(titleTag(container)).attr('class', 'heatmap-title').text(title);
    root.append('p').attr('class', 'empty-state').text(empty);
    return;
  }
  const width = Math.min(640, availableWidth(container));
  const plotWidth = width - MARGIN.left - MARGIN.right;
  const perRow = Math.max(1, Math.floor(plotWidth / LEGEND_ITEM.width));
  const legendHeight = Math.ceil(series.length / perRow) * LEGEND_ITEM.height + 6;
  const height = HEIGHT + legendHeight;
  const lines = series.map((s) => ({ ...s, points: x.map((xv, t) => ({ x: xv, y: s.values[t] })).filter((p) => p.y != null && Number.isFinite(p.y)), dots: s.points }));
  const all = lines.flatMap((l) => l.points.map((p) => p.y));
  const [x0, x1] = x.length ? d3.extent(x) : [0, 1];
  const px = d3.scaleLinear().domain(x0 === x1 ? [x0 - 1, x1 + 1] : [x0, x1]).range([MARGIN.left, width - MARGIN.right]);
  const py = d3.scaleLinear().domain(yDomain ?? (all.length ? d3.extent(all) : [0, 1])).range([HEIGHT - MARGIN.bottom, MARGIN.top]);
  if (!yDomain) py.nice();

  const root = d3.select(container);
  root.selectAll('*').remove();
  root.append(titleTag(container)).attr('class', 'heatmap-title').text(title);
  const svg = root.append('svg')
    .attr('class', 'line-chart')
    .attr('viewBox', `0 0 ${width} ${height}`)
    .attr('width', width)
    .attr('height', height)
    .attr('role', 'img')
    .attr('aria-label', `${description}${marks.length ? `; marked: ${marks.map((m) => m.label).join(', ')}` : ''}`);
  svg.append('g').attr('class', 'axis x-axis').attr('transform', `translate(0, ${HEIGHT - MARGIN.bottom})`).call(d3.axisBottom(px).ticks(6));
  svg.append('g').attr('class', 'axis y-axis').attr('transform', `translate(${MARGIN.left}, 0)`).call(d3.axisLeft(py).ticks(5));
  svg.append('text').attr('class', 'axis-title').attr('x', MARGIN.left + plotWidth / 2).attr('y', HEIGHT - 8).attr('text-anchor', 'middle').text(xLabel);
  svg.append('text').attr('class', 'axis-title').attr('text-anchor', 'middle')
    .attr('transform', `translate(14, ${(MARGIN.top + HEIGHT - MARGIN.bottom) / 2}) rotate(-90)`).text(yLabel);

  // Marks under the lines, so that a line crossing one stays readable.
  for (const [k, mark] of marks.filter((m) => Number.isFinite(m.x)).entries()) {
    const at = px(mark.x);
    const g = svg.append('g').attr('class', `mark mark-${mark.kind}`).attr('data-x', mark.x);
    g.append('line').attr('x1', at).attr('x2', at).attr('y1', MARGIN.top).attr('y2', HEIGHT - MARGIN.bottom);
    g.append('text').attr('x', at + 4).attr('y', MARGIN.top + 10 + 13 * k).text(mark.label);
  }
  const path = d3.line().x((p) => px(p.x)).y((p) => py(p.y));
  lines.forEach((l, k) => {
    const g = svg.append('g').attr('class', 'series').attr('data-series', l.label).attr('data-points', l.points.length);
    g.append('path').attr('class', 'line').attr('d', path(thinned(l.points, px, plotWidth)) ?? '')
      .style('stroke', l.color).style('stroke-dasharray', l.dash ? '6 4' : null)
      .style('stroke-width', l.emphasis ? 3.5 : null).style('opacity', l.muted ? 0.3 : null);
    if (l.emphasis) g.classed('emphasis', true);
    if (l.muted) g.classed('muted', true);
    if (l.dots) {
      g.selectAll('circle').data(l.points).join('circle').attr('cx', (p) => px(p.x)).attr('cy', (p) => py(p.y)).attr('r', 3)
        .style('fill', l.color)
        .append('title').text((p) => `${l.label} at ${xLabel} ${p.x}: ${p.y.toFixed(4)}`);
    }
    const item = svg.append('g').attr('class', 'legend-item')
      .attr('transform', `translate(${MARGIN.left + (k % perRow) * LEGEND_ITEM.width}, ${HEIGHT + Math.floor(k / perRow) * LEGEND_ITEM.height + 4})`);
    item.append('line').attr('x1', 0).attr('x2', 22).attr('y1', 0).attr('y2', 0).style('stroke', l.color).style('stroke-dasharray', l.dash ? '6 4' : null);
    item.append('text').attr('x', 28).attr('dy', '0.35em').text(l.label);
  });

  if (x.length === 0) return; // nothing to download yet
  exportMenu(container, svg.node(), {
    title,
    rowLabels: x.map(String),
    colLabels: series.map((s) => s.label),
    values: x.flatMap((_, t) => series.map((s) => s.values[t] ?? null)),
    rows: x.length,
    cols: series.length,
  }, title);
}
