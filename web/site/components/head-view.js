// A head view in the manner of bertviz: the tokens twice, side by side, the
// queries (the tokens attending) on the left and the keys (the tokens attended
// to) on the right; a line from query i to key j for every head shown, its
// opacity the attention weight. One head is shown at first; the buttons add
// others, each in its own colour. Hovering or focusing a token on either side
// keeps only its lines and highlights the tokens at their other ends.
import * as d3 from 'd3';

import { exportMenu } from './figure-export.js';
import { availableWidth } from './heatmap.js';

/**
 * A head's colour: twelve distinct hues from the style sheet's palette of the current theme. `h` is the head's
 * place in the whole model, layer × heads per layer + head, so that one head wears one colour in every view of a
 * chapter (its head view, its flow figure, its training chart) — colour-scales.js states the rest of the palette.
 */
export const headColor = (h) => `var(--head-${(h % 12) + 1})`;

/**
 * weights: (H, T, T) row-major for one sequence; tokens: T labels.
 * shown: the caller's Set of the heads to draw (kept across redraws); head 0 when empty.
 * firstHead: the place in the model of this layer's head 0 (layer × heads), which sets the heads' colours.
 */
export function headView(container, weights, tokens, { heads, shown = new Set(), label = 'Head view', firstHead = 0 }) {
  const T = tokens.length;
  for (const h of shown) if (h >= heads) shown.delete(h);
  if (shown.size === 0) shown.add(0);
  const root = d3.select(container);
  root.selectAll('*').remove();
  const picker = root.append('div').attr('class', 'head-picker').attr('role', 'group').attr('aria-label', 'Heads shown');
  const rowHeight = 28;
  const width = Math.min(560, availableWidth(container));
  const height = 30 + T * rowHeight + 8;
  const left = Math.min(150, width * 0.32);
  const right = width - left;
  const svg = root
    .append('svg')
    .attr('class', 'head-view')
    .attr('viewBox', `0 0 ${width} ${height}`)
    .attr('width', width)
    .attr('height', height)
    .attr('role', 'group')
    .attr('aria-label', `${label}: lines from each query (left) to the keys it attends to (right), one colour per head`);
  svg.append('text').attr('class', 'side-heading').attr('x', left).attr('y', 16).attr('text-anchor', 'end').text('query (attending)');
  svg.append('text').attr('class', 'side-heading').attr('x', right).attr('y', 16).attr('text-anchor', 'start').text('key (attended to)');
  const lines = svg.append('g').attr('class', 'lines');
  const y = (i) => 30 + i * rowHeight + rowHeight / 2;
  let focus = null; // {side: 'query' | 'key', index}

  function redraw() {
    const data = [];
    for (const h of shown)
      for (let i = 0; i < T; i++)
        for (let j = 0; j < T; j++) {
          const w = weights[(h * T + i) * T + j];
          const kept = focus === null || (focus.side === 'query' ? focus.index === i : focus.index === j);
          if (w > 0.01 && kept) data.push({ h, i, j, w });
        }
    lines.selectAll('line').data(data).join('line')
      .attr('x1', left + 6).attr('y1', (d) => y(d.i))
      .attr('x2', right - 6).attr('y2', (d) => y(d.j))
      .style('stroke', (d) => headColor(firstHead + d.h))
      .attr('stroke-width', 3)
      .attr('stroke-opacity', (d) => d.w)
      .attr('data-head', (d) => d.h)
      .attr('data-query', (d) => d.i)
      .attr('data-key', (d) => d.j)
      .attr('data-weight', (d) => d.w);
    const linked = (side, index) => focus !== null && (focus.side === side ? focus.index === index :
      data.some((d) => (side === 'query' ? d.i : d.j) === index));
    svg.selectAll('g.tokens text').classed('linked', function () {
      return linked(this.dataset.side, Number(this.dataset.index));
    });
  }

  for (let h = 0; h < heads; h++) {
    const button = picker.append('button')
      .attr('type', 'button')
      .attr('class', 'head-button')
      .attr('data-head', h)
      .attr('aria-pressed', String(shown.has(h)))
      .on('click', function () {
        if (shown.has(h) && shown.size > 1) shown.delete(h);
        else shown.add(h);
        picker.selectAll('button').attr('aria-pressed', (_, k) => String(shown.has(k)));
        redraw();
      });
    button.append('span').attr('class', 'swatch').attr('aria-hidden', 'true').style('background', headColor(firstHead + h));
    button.append('span').text(`head ${h + 1}`);
  }
  const side = (x, anchor, name) =>
    svg.append('g').attr('class', `tokens ${name}-tokens`).selectAll('text').data(tokens).join('text')
      .attr('x', x)
      .attr('y', (_, i) => y(i))
      .attr('dy', '0.35em')
      .attr('text-anchor', anchor)
      .attr('tabindex', 0)
      .attr('role', 'button')
      .attr('data-side', name)
      .attr('data-index', (_, i) => i)
      .attr('aria-label', (t) => `${name} “${t}”: show only its lines`)
      .text((t) => t)
      .each(function (_, i) {
        d3.select(this)
          .on('mouseenter focus', () => {
            focus = { side: name, index: i };
            redraw();
          })
          .on('mouseleave blur', () => {
            focus = null;
            redraw();
          });
      });
  side(left, 'end', 'query');
  side(right, 'start', 'key');
  redraw();
  // Its numbers: every head's weights, a row per head and query.
  exportMenu(container, svg.node(), {
    title: label,
    rowLabels: d3.range(heads * T).map((r) => `head ${Math.floor(r / T) + 1}, ${tokens[r % T]}`),
    colLabels: tokens,
    values: Array.from(weights.subarray(0, heads * T * T)),
    rows: heads * T,
    cols: T,
  }, label);
}
