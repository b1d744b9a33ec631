// One pair of a query's and a key's dimensions as arrows in their plane, before and after RoPE turns them: the
// query by its position × the pair's frequency, the key by its own. Their dot product — the pair's share of the
// score — depends on the angle between the turned arrows alone, which is why only the distance counts. The
// chapter computes every number (attn.rope); this file draws them.
import * as d3 from 'd3';

import { exportMenu } from './figure-export.js';
import { availableWidth, titleTag } from './heatmap.js';

const SIZE = 300;

/**
 * pair: { query: [x, y], key: [x, y], turnedQuery: [x, y], turnedKey: [x, y], queryAngle, keyAngle } (angles in
 * radians, as turned); labels name the arrows ("q at 5").
 */
export function rotationDial(container, { title, query, key, turnedQuery, turnedKey, queryAngle, keyAngle, labels }) {
  const size = Math.min(SIZE, availableWidth(container) - 8);
  const reach = Math.max(1e-6, ...[query, key, turnedQuery, turnedKey].map(([x, y]) => Math.hypot(x, y))) * 1.15;
  const s = d3.scaleLinear().domain([-reach, reach]).range([0, size]);
  const root = d3.select(container);
  root.selectAll('*').remove();
  root.append(titleTag(container)).attr('class', 'heatmap-title').text(title);
  const svg = root.append('svg').attr('class', 'rotation-dial').attr('width', size).attr('height', size)
    .attr('viewBox', `0 0 ${size} ${size}`).attr('role', 'img')
    .attr('aria-label', `${title}: ${labels.query} turned by ${degrees(queryAngle)}, ${labels.key} by ${degrees(keyAngle)}; ` +
      `between them ${degrees(angleBetween(turnedQuery, turnedKey))}.`);
  const defs = svg.append('defs');
  for (const kind of ['query', 'key']) {
    defs.append('marker').attr('id', `dial-${kind}`).attr('viewBox', '0 0 10 10').attr('refX', 9).attr('refY', 5)
      .attr('markerWidth', 7).attr('markerHeight', 7).attr('orient', 'auto')
      .append('path').attr('d', 'M0,0 L10,5 L0,10 z').attr('class', `arrowhead ${kind}`);
  }
  svg.append('circle').attr('class', 'dial-ring').attr('cx', s(0)).attr('cy', s(0)).attr('r', s(reach / 1.15) - s(0));
  svg.append('line').attr('class', 'dial-axis').attr('x1', s(-reach)).attr('x2', s(reach)).attr('y1', s(0)).attr('y2', s(0));
  svg.append('line').attr('class', 'dial-axis').attr('y1', s(-reach)).attr('y2', s(reach)).attr('x1', s(0)).attr('x2', s(0));
  // y up, as a plane is drawn in a textbook
  const arrow = ([x, y], kind, turned) => svg.append('line').attr('class', `dial-arrow ${kind}${turned ? ' turned' : ''}`)
    .attr('x1', s(0)).attr('y1', s(0)).attr('x2', s(x)).attr('y2', size - s(y))
    .attr('marker-end', turned ? `url(#dial-${kind})` : null);
  arrow(query, 'query', false);
  arrow(key, 'key', false);
  arrow(turnedQuery, 'query', true);
  arrow(turnedKey, 'key', true);
  const label = ([x, y], kind, text) => svg.append('text').attr('class', `dial-label ${kind}`)
    .attr('x', s(x * 1.08)).attr('y', size - s(y * 1.08)).attr('text-anchor', x < 0 ? 'end' : 'start').attr('dy', '0.35em').text(text);
  label(turnedQuery, 'query', labels.query);
  label(turnedKey, 'key', labels.key);
  exportMenu(container, svg.node(), {
    title, rowLabels: ['query', 'key', 'turned query', 'turned key'], colLabels: ['x', 'y'],
    values: [...query, ...key, ...turnedQuery, ...turnedKey], rows: 4, cols: 2,
  }, title);
}

/** The angle from a to b, in (−π, π]. */
export function angleBetween([ax, ay], [bx, by]) {
  return Math.atan2(ax * by - ay * bx, ax * bx + ay * by);
}

const degrees = (radians) => `${((radians * 180) / Math.PI).toFixed(1)}°`;
