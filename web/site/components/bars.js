// A labelled bar chart of a vector (e.g. one row of attention weights), drawn
// with D3. Bars are viridis-coloured by value; every bar shows its number.
import * as d3 from 'd3';

import { formatNumber } from './heatmap.js';

export function bars(container, values, { title, labels, digits = 4, domain } = {}) {
  const data = Array.from(values);
  const width = Math.max(240, data.length * 56);
  const height = 170;
  const margin = { top: 18, bottom: 38 };
  const finite = data.filter(Number.isFinite);
  const [lo, hi] = domain ?? [Math.min(0, d3.min(finite) ?? 0), Math.max(1e-9, d3.max(finite) ?? 1)];
  const x = d3.scaleBand().domain(d3.range(data.length)).range([0, width]).padding(0.15);
  const y = d3.scaleLinear().domain([lo, hi]).range([height - margin.bottom, margin.top]);
  const color = d3.scaleSequential(d3.interpolateViridis).domain([lo, hi === lo ? lo + 1 : hi]);
  const root = d3.select(container);
  root.selectAll('*').remove();
  if (title) root.append('h4').attr('class', 'heatmap-title').text(title);
  const svg = root
    .append('svg')
    .attr('class', 'bars')
    .attr('viewBox', `0 0 ${width} ${height}`)
    .attr('width', width)
    .attr('role', 'img')
    .attr('aria-label', `${title ?? 'bar chart'}: ${data.map((v) => formatNumber(v, digits)).join(', ')}`);
  const bar = svg
    .selectAll('g.bar')
    .data(data.map((v, i) => ({ v, i })))
    .join('g')
    .attr('class', 'bar')
    .attr('data-index', (d) => d.i)
    .attr('data-value', (d) => d.v);
  const top = (v) => (Number.isFinite(v) ? Math.min(y(v), y(Math.max(lo, 0))) : y(hi));
  bar
    .append('rect')
    .attr('x', (d) => x(d.i))
    .attr('width', x.bandwidth())
    .attr('y', (d) => top(d.v))
    .attr('height', (d) => (Number.isFinite(d.v) ? Math.abs(y(d.v) - y(Math.max(lo, 0))) : 0))
    .attr('fill', (d) => (Number.isFinite(d.v) ? color(d.v) : '#bbb'));
  bar
    .append('text')
    .attr('class', 'value')
    .attr('x', (d) => x(d.i) + x.bandwidth() / 2)
    .attr('y', (d) => top(d.v) - 4)
    .attr('text-anchor', 'middle')
    .text((d) => formatNumber(d.v, digits));
  bar
    .append('text')
    .attr('class', 'label')
    .attr('x', (d) => x(d.i) + x.bandwidth() / 2)
    .attr('y', height - margin.bottom + 16)
    .attr('text-anchor', 'middle')
    .text((d) => labels?.[d.i] ?? String(d.i));
}
