// The landing page's pictures, one per chapter: a small drawing of what the chapter's hero figure shows, in the
// site's colours (viridis for weights, the head colours for heads). Drawings, not results: their shapes come
// from tiny formulas here (a softmax of distances, a causal triangle), so that the landing page loads no WASM.
import * as d3 from 'd3';

const W = 160;
const H = 96;
const softmax = (xs) => {
  const m = Math.max(...xs);
  const e = xs.map((x) => Math.exp(x - m));
  const s = e.reduce((a, b) => a + b, 0);
  return e.map((v) => v / s);
};
/** A T × T map of weights that prefer nearby keys, row by row (masked above the diagonal when causal). */
const nearby = (T, sharp, causal = false) => d3.range(T).map((i) => softmax(d3.range(T).map((j) => (causal && j > i ? -Infinity : -sharp * Math.abs(i - j)))));

function grid(g, rows, { x = 0, y = 0, cell = 12, masked = () => false }) {
  const gap = Math.min(1.5, cell * 0.1);
  rows.forEach((row, i) => row.forEach((v, j) => {
    g.append('rect').attr('x', x + j * cell).attr('y', y + i * cell).attr('width', cell - gap).attr('height', cell - gap).attr('rx', gap)
      .attr('class', masked(i, j) ? 'masked' : null)
      .attr('fill', masked(i, j) ? null : d3.interpolateViridis(v));
  }));
}

const DRAW = {
  // Six encoder states, one decoder state reading them with different weights.
  '1-why-attention.html': (g) => {
    const w = softmax([0.2, 1.6, 0.4, -0.5, 0.9, 0]);
    d3.range(6).forEach((j) => {
      g.append('line').attr('x1', 80).attr('y1', 18).attr('x2', 20 + j * 24).attr('y2', 78).attr('class', 'wire').attr('stroke-width', 1 + 10 * w[j]);
      g.append('circle').attr('cx', 20 + j * 24).attr('cy', 80).attr('r', 7).attr('class', 'node');
    });
    g.append('circle').attr('cx', 80).attr('cy', 16).attr('r', 9).attr('class', 'node accent');
  },
  '2-self-attention.html': (g) => grid(g, nearby(6, 0.9), { x: 44, y: 10, cell: 13 }),
  // Queries and keys as points; the query's arrow.
  '3-trainable-weights.html': (g) => {
    const pts = [[30, 60], [52, 30], [70, 70], [96, 40], [118, 62], [130, 24]];
    pts.forEach(([px, py], k) => g.append('circle').attr('cx', px).attr('cy', py).attr('r', 5).attr('class', k % 2 ? 'keys' : 'queries'));
    g.append('line').attr('x1', 20).attr('y1', 86).attr('x2', 96).attr('y2', 40).attr('class', 'arrow');
  },
  // The same scores through a softmax, gentle and sharp.
  '4-scaling.html': (g) => {
    const scores = [0.3, 1.1, -0.4, 0.8, 0.1, -0.9];
    [softmax(scores), softmax(scores.map((s) => 8 * s))].forEach((p, k) => p.forEach((v, j) => {
      const h = 70 * v;
      g.append('rect').attr('x', 14 + k * 72 + j * 10).attr('y', 84 - h).attr('width', 8).attr('height', h).attr('class', k ? 'bar sharp' : 'bar');
    }));
  },
  '5-masking.html': (g) => grid(g, nearby(6, 0.5, true), { x: 44, y: 10, cell: 13, masked: (i, j) => j > i }),
  // Four heads, each with its own pattern.
  '6-multi-head.html': (g) => [0.2, 1.5, 0.6, 3].forEach((sharp, h) => {
    grid(g, nearby(4, sharp, h % 2 === 1), { x: 6 + h * 38, y: 26, cell: 8.5, masked: (i, j) => h % 2 === 1 && j > i });
    g.append('rect').attr('x', 5 + h * 38).attr('y', 24).attr('width', 36).attr('height', 37).attr('class', `head-frame h${h + 1}`);
  }),
  // One pair of a query and a key as arrows, each turned by its position: the angle between them is the distance.
  'positions.html': (g) => {
    g.append('circle').attr('cx', 80).attr('cy', 50).attr('r', 38).attr('class', 'wire');
    [[0.5, 'queries'], [1.55, 'keys']].forEach(([angle, kind]) => g.append('line').attr('x1', 80).attr('y1', 50)
      .attr('x2', 80 + 36 * Math.cos(angle)).attr('y2', 50 - 36 * Math.sin(angle)).attr('class', `arrow ${kind}`));
    g.append('path').attr('d', `M${80 + 18 * Math.cos(0.5)},${50 - 18 * Math.sin(0.5)} A18,18 0 0 0 ${80 + 18 * Math.cos(1.55)},${50 - 18 * Math.sin(1.55)}`)
      .attr('class', 'read h1').attr('fill', 'none').attr('stroke-width', 2);
  },
  // Tokens rising through two blocks, the last one reading back.
  '7-language-model.html': (g) => {
    [84, 50, 16].forEach((y) => d3.range(5).forEach((j) => g.append('rect').attr('x', 10 + j * 28).attr('y', y - 6).attr('width', 22).attr('height', 12).attr('rx', 3).attr('class', j === 4 ? 'chip last' : 'chip')));
    // [the row of the reading block, the row below it, the token read, its weight]
    [[50, 84, 1, 0.8], [50, 84, 3, 0.3], [16, 50, 0, 0.6], [16, 50, 2, 0.4]].forEach(([top, below, j, w], k) => {
      const mid = (top + below) / 2;
      g.append('path').attr('d', `M122,${top + 6} C122,${mid} ${21 + j * 28},${mid} ${21 + j * 28},${below - 6}`)
        .attr('class', `read h${(k % 4) + 1}`).attr('stroke-width', 1 + 5 * w);
    });
  },
  // A layers × heads grid of small maps, each head its own pattern.
  '8-your-model.html': (g) => d3.range(4).forEach((l) => d3.range(6).forEach((h) => {
    grid(g, nearby(4, (l + h) % 4, true), { x: 16 + h * 22, y: 4 + l * 22, cell: 5, masked: (i, j) => j > i });
  })),
  // The sliding window's band: each query sees its own token and the few before it.
  'at-scale.html': (g) => grid(g, d3.range(7).map((i) => d3.range(7).map((j) => (j <= i && i - j < 3 ? 0.3 + 0.25 * (2 - (i - j)) : 0))),
    { x: 40, y: 6, cell: 12, masked: (i, j) => j > i || i - j >= 3 }),
  // The previous-token head's line under the diagonal, and the induction head's stripe: a repeat of three at
  // positions 1–3 and 5–7, whose second copy looks at the token after each earlier occurrence.
  '9-induction-heads.html': (g) => {
    const T = 8;
    const previous = d3.range(T).map((i) => d3.range(T).map((j) => (j === Math.max(0, i - 1) ? 0.95 : 0.05)));
    const induction = d3.range(T).map((i) => d3.range(T).map((j) => (i >= 5 ? (j === i - 3 ? 0.95 : 0.05) : j === 0 ? 0.6 : 0.05)));
    grid(g, previous, { x: 4, y: 8, cell: 9.5, masked: (i, j) => j > i });
    grid(g, induction, { x: 82, y: 8, cell: 9.5, masked: (i, j) => j > i });
  },
};

/** The picture for a chapter's file, as an <svg> element (decorative: the card's text says what it shows). */
export function chapterPicture(file) {
  const svg = d3.create('svg').attr('class', 'chapter-picture').attr('viewBox', `0 0 ${W} ${H}`).attr('width', W).attr('height', H)
    .attr('aria-hidden', 'true');
  DRAW[file]?.(svg.append('g'));
  return svg.node();
}
