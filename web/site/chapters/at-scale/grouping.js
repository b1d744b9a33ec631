// Which query heads read which key/value head in one layer of a model: its query heads in a row, its key/value
// heads under them, a line from each query head to the one it reads — head h reads h / (H / KV), as Hugging
// Face's repeat_kv repeats each key/value head H / KV times in a row. MHA: one each; GQA: groups; MQA: all one.
import * as d3 from 'd3';

import { exportMenu } from '../../components/figure-export.js';
import { availableWidth, titleTag } from '../../components/heatmap.js';
import { headsOf } from './configs.js';

const HEIGHT = 150;

export function groupingPicture(container, { name, config }) {
  const { queries: H, keyValues: KV } = headsOf(config);
  const group = H / KV;
  const kind = KV === H ? 'multi-head attention (MHA)' : KV === 1 ? 'multi-query attention (MQA)' : `grouped-query attention (GQA), groups of ${group}`;
  const title = `${name}: ${H} query heads, ${KV} key/value head${KV > 1 ? 's' : ''} — ${kind}`;
  const width = Math.min(availableWidth(container), 720);
  const x = (i, n) => 16 + ((width - 32) * (i + 0.5)) / n;
  const box = Math.max(4, Math.min(22, (width - 32) / H - 3));
  const root = d3.select(container);
  root.selectAll('*').remove();
  root.append(titleTag(container)).attr('class', 'heatmap-title').text(title);
  const svg = root.append('svg').attr('class', 'grouping').attr('width', width).attr('height', HEIGHT).attr('viewBox', `0 0 ${width} ${HEIGHT}`)
    .attr('role', 'img').attr('aria-label', `${title}. Query head h reads key/value head h ÷ ${group}, rounded down.`);
  // The head colours repeat after 12 (style.css), as the site's other head figures.
  const colour = (g) => `var(--head-${(g % 12) + 1})`;
  svg.append('g').selectAll('line').data(d3.range(H)).join('line').attr('class', 'reads')
    .attr('x1', (h) => x(h, H)).attr('y1', 40).attr('x2', (h) => x(Math.floor(h / group), KV)).attr('y2', HEIGHT - 44)
    .attr('stroke', (h) => colour(Math.floor(h / group)));
  svg.append('g').selectAll('rect').data(d3.range(H)).join('rect').attr('class', 'query-head')
    .attr('x', (h) => x(h, H) - box / 2).attr('y', 22).attr('width', box).attr('height', 18).attr('rx', 2)
    .attr('fill', (h) => colour(Math.floor(h / group)));
  svg.append('g').selectAll('rect').data(d3.range(KV)).join('rect').attr('class', 'kv-head')
    .attr('x', (g) => x(g, KV) - 14).attr('y', HEIGHT - 44).attr('width', 28).attr('height', 22).attr('rx', 3).attr('fill', colour);
  svg.append('text').attr('class', 'axis-label').attr('x', 16).attr('y', 14).text(`query heads (${H})`);
  svg.append('text').attr('class', 'axis-label').attr('x', 16).attr('y', HEIGHT - 6).text(`key/value heads, each kept in the cache (${KV})`);
  exportMenu(container, svg.node(), {
    title, rowLabels: d3.range(H).map((h) => `query head ${h + 1}`), colLabels: ['key/value head'],
    values: d3.range(H).map((h) => Math.floor(h / group) + 1), rows: H, cols: 1,
  }, title);
}
