// A labelled bar chart of a vector (e.g. one row of attention weights), drawn
// with D3 at the size it is shown. Bars are coloured by value as colour-scales.js says; every
// bar shows its number. `ghost` draws a second vector behind, as outlines on
// the same axis (the scores before they were multiplied), so that a change of
// size is seen as a change of size.
import * as d3 from 'd3';

import { colourScale, WEIGHTS_DOMAIN } from './colour-scales.js';
import { exportMenu } from './figure-export.js';
import { availableWidth, formatNumber, titleTag } from './heatmap.js';

export function bars(container, values, { title, labels, digits = 4, domain, ghost, ghostLabel } = {}) {
  const data = Array.from(values);
  const height = 180;
  const margin = { top: 18, bottom: 38, left: 4 };
  const width = Math.min(Math.max(240, data.length * 64), availableWidth(container));
  const finite = data.concat(ghost ? Array.from(ghost) : []).filter(Number.isFinite);
  const [lo, hi] = domain ?? [Math.min(0, d3.min(finite) ?? 0), Math.max(1e-9, d3.max(finite) ?? 1)];
  const x = d3.scaleBand().domain(d3.range(data.length)).range([margin.left, width]).padding(0.15);
  const y = d3.scaleLinear().domain([lo, hi]).range([height - margin.bottom, margin.top]);
  // Values within 0 to 1 are probabilities or weights: viridis on 0 to 1 whatever the axis shows; anything else
  // diverging around 0 (colour-scales.js).
  const { color } = colourScale(lo >= 0 && hi <= 1 ? WEIGHTS_DOMAIN : [lo, hi]);
  const root = d3.select(container);
  root.selectAll('*').remove();
  if (title) root.append(titleTag(container)).attr('class', 'heatmap-title').text(title);
  const svg = root
    .append('svg')
    .attr('class', 'bars')
    .attr('viewBox', `0 0 ${width} ${height}`)
    .attr('width', width)
    .attr('height', height)
    .attr('data-domain', `${lo},${hi}`)
    .attr('role', 'img')
    .attr('aria-label', `${title ?? 'bar chart'}: ${data.map((v) => formatNumber(v, digits)).join(', ')}` +
      `${ghost ? `; ${ghostLabel ?? 'before'}: ${Array.from(ghost, (v) => formatNumber(v, digits)).join(', ')}` : ''}`);
  const zero = y(Math.min(hi, Math.max(lo, 0)));
  const top = (v) => (Number.isFinite(v) ? Math.min(y(Math.min(hi, Math.max(lo, v))), zero) : y(hi));
  const size = (v) => (Number.isFinite(v) ? Math.abs(y(Math.min(hi, Math.max(lo, v))) - zero) : 0);
  svg.append('line').attr('class', 'baseline').attr('x1', margin.left).attr('x2', width).attr('y1', zero).attr('y2', zero);
  if (ghost) {
    svg.append('g').attr('class', 'ghost').selectAll('rect').data(Array.from(ghost)).join('rect')
      .attr('x', (_, i) => x(i)).attr('width', x.bandwidth())
      .attr('y', (v) => top(v)).attr('height', (v) => size(v))
      .attr('data-value', (v) => v);
  }
  const bar = svg
    .selectAll('g.bar')
    .data(data.map((v, i) => ({ v, i })))
    .join('g')
    .attr('class', 'bar')
    .attr('data-index', (d) => d.i)
    .attr('data-value', (d) => d.v);
  bar
    .append('rect')
    .attr('x', (d) => x(d.i))
    .attr('width', x.bandwidth())
    .attr('y', (d) => top(d.v))
    .attr('height', (d) => size(d.v))
    .attr('fill', (d) => (Number.isFinite(d.v) ? color(d.v) : '#bbb'));
  const room = Math.max(2, Math.floor((x.step() - 4) / 6.5)); // characters of 11 px text a bar's label may take
  const fitted = (label) => (label.length <= room ? label : `${label.slice(0, room - 1)}…`);
  bar
    .append('text')
    .attr('class', 'value')
    .attr('x', (d) => x(d.i) + x.bandwidth() / 2)
    .attr('y', (d) => Math.max(12, top(d.v) - 4))
    .attr('text-anchor', 'middle')
    .text((d) => formatNumber(d.v, digits));
  bar
    .append('text')
    .attr('class', 'label')
    .attr('x', (d) => x(d.i) + x.bandwidth() / 2)
    .attr('y', height - margin.bottom + 16)
    .attr('text-anchor', 'middle')
    .text((d) => fitted(labels?.[d.i] ?? String(d.i)));
  // A label longer than its bar's room (a word on a phone) is cut, and named in full by its tooltip.
  bar.select('text.label').filter((d) => fitted(labels?.[d.i] ?? String(d.i)) !== (labels?.[d.i] ?? String(d.i)))
    .append('title').text((d) => labels[d.i]);
  svg.append('text').attr('class', 'axis-range').attr('x', width).attr('y', height - 4).attr('text-anchor', 'end')
    .text(`axis ${formatNumber(lo, digits > 2 ? 2 : digits)} to ${formatNumber(hi, digits > 2 ? 2 : digits)}`);
  exportMenu(container, svg.node(), { title, rowLabels: [title ?? 'value'], colLabels: data.map((_, i) => labels?.[i] ?? String(i)),
    values: data, rows: 1, cols: data.length }, title);
}
