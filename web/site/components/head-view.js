// A head view in the manner of bertviz: the tokens twice, side by side; a line
// from token i (left, the query) to token j (right, the key) for every head
// shown, its opacity the attention weight. Hovering or focusing a token keeps
// only its lines. Heads are toggled with the buttons above.
import * as d3 from 'd3';

export const HEAD_COLORS = ['#440154', '#3b528b', '#21918c', '#5ec962', '#e5a50a', '#b5367a', '#2a788e', '#7a0177', '#1f9e89', '#8c564b', '#6b6ecf', '#d95f02'];

/**
 * weights: (H, T, T) row-major for one sequence; tokens: T labels.
 */
export function headView(container, weights, tokens, { heads }) {
  const T = tokens.length;
  const root = d3.select(container);
  root.selectAll('*').remove();
  const shown = new Set(d3.range(heads));
  const picker = root.append('div').attr('class', 'head-picker').attr('role', 'group').attr('aria-label', 'Heads shown');
  const rowHeight = 24;
  const width = 320;
  const height = T * rowHeight + 10;
  const svg = root
    .append('svg')
    .attr('class', 'head-view')
    .attr('viewBox', `0 0 ${width} ${height}`)
    .attr('width', width)
    .attr('role', 'img')
    .attr('aria-label', 'Attention lines from each token (left) to the tokens it attends to (right)');
  const left = 110;
  const right = width - 110;
  const lines = svg.append('g').attr('class', 'lines');
  let focus = null;

  function redraw() {
    const data = [];
    for (const h of shown)
      for (let i = 0; i < T; i++)
        for (let j = 0; j < T; j++) {
          const w = weights[(h * T + i) * T + j];
          if (w > 0.01 && (focus === null || focus === i)) data.push({ h, i, j, w });
        }
    lines
      .selectAll('line')
      .data(data)
      .join('line')
      .attr('x1', left + 4)
      .attr('y1', (d) => 10 + d.i * rowHeight + rowHeight / 2 - 4)
      .attr('x2', right - 4)
      .attr('y2', (d) => 10 + d.j * rowHeight + rowHeight / 2 - 4)
      .attr('stroke', (d) => HEAD_COLORS[d.h % HEAD_COLORS.length])
      .attr('stroke-width', 2)
      .attr('stroke-opacity', (d) => d.w)
      .attr('data-head', (d) => d.h)
      .attr('data-weight', (d) => d.w);
  }

  for (let h = 0; h < heads; h++) {
    picker
      .append('button')
      .attr('type', 'button')
      .attr('class', `head-button head-${h % HEAD_COLORS.length}`)
      .attr('aria-pressed', 'true')
      .text(`head ${h + 1}`)
      .on('click', function () {
        if (shown.has(h)) shown.delete(h);
        else shown.add(h);
        d3.select(this).attr('aria-pressed', String(shown.has(h)));
        redraw();
      });
  }
  const side = (x, anchor, cls, interactive) =>
    svg
      .append('g')
      .attr('class', cls)
      .selectAll('text')
      .data(tokens)
      .join('text')
      .attr('x', x)
      .attr('y', (_, i) => 10 + i * rowHeight + rowHeight / 2)
      .attr('text-anchor', anchor)
      .attr('tabindex', interactive ? 0 : null)
      .text((t) => t)
      .each(function (_, i) {
        if (!interactive) return;
        d3.select(this)
          .on('mouseenter focus', () => {
            focus = i;
            redraw();
          })
          .on('mouseleave blur', () => {
            focus = null;
            redraw();
          });
      });
  side(left, 'end', 'query-tokens', true);
  side(right, 'start', 'key-tokens', false);
  redraw();
}
