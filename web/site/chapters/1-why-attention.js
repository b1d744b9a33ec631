// Chapter 1: the bottleneck and Bahdanau's fix. The reader scores the six
// encoder states for one decoder step; the library's softmax turns the scores
// into weights, drawn as the opacity of the diagram's attention lines, and
// contextVector mixes the states (notebook 000's embeddings) into z.
import * as d3 from 'd3';

import { bars } from '../components/bars.js';
import { exportMenu } from '../components/figure-export.js';
import { availableWidth, heatmap } from '../components/heatmap.js';
import { markStale, readNumber } from '../components/inputs.js';
import { chapter } from '../components/chapter.js';
import { float32Text, kinds, linkState } from '../components/link-state.js';
import { perFrame, report } from '../components/page.js';
import { dims, NOTEBOOK_INPUTS, TOKENS } from './journey.js';

const SCORES = [0.5, 2, 1, 0, -1, 0.5];
const SUB = '₁₂₃₄₅₆';

/**
 * The encoder–decoder diagram at the width it is shown: the encoder states in
 * a row on a wide screen, in a column on a narrow one, text always at 11-12 px.
 * Labels sit where no attention line passes. weights: one per state.
 */
function diagram(container, weights) {
  const width = Math.min(640, availableWidth(container));
  const wide = width >= 560;
  const n = TOKENS.length;
  const geometry = wide
    ? {
        height: 250,
        box: (i) => ({ x: 20 + i * 80, y: 150, w: 60, h: 36 }),
        decoder: { x: 520, y: 42, w: 100, h: 40 },
        from: (b) => [b.x + b.w / 2, b.y],
        to: (d) => [d.x, d.y + d.h / 2],
        bend: ([x1, y1], [x2, y2]) => `M${x1} ${y1} C ${x1} ${y1 - 60}, ${x2 - 90} ${y2}, ${x2} ${y2}`,
        recurrent: (a, b) => [a.x + a.w, a.y + a.h / 2, b.x, b.y + b.h / 2],
        token: (b) => [b.x + b.w / 2, b.y + b.h + 18],
        bottleneck: (b, d) => [b.x + b.w, b.y + 6, d.x + 20, d.y + d.h],
        notes: [[20, 16, 'attention: the decoder reads every hᵢ, weighted', 'accent'], [535, 104, 'one vector:'], [535, 119, 'the bottleneck'],
          [20, 240, 'encoder states h₁ … h₆, one per token, read left to right']],
      }
    : {
        height: 40 + n * 46 + 30,
        box: (i) => ({ x: 8, y: 36 + i * 46, w: 120, h: 34 }),
        decoder: { x: width - 104, y: 36 + (n * 46) / 2 - 40, w: 96, h: 40 },
        from: (b) => [b.x + b.w, b.y + b.h / 2],
        to: (d) => [d.x, d.y + d.h / 2],
        bend: ([x1, y1], [x2, y2]) => `M${x1} ${y1} C ${x1 + 50} ${y1}, ${x2 - 50} ${y2}, ${x2} ${y2}`,
        recurrent: (a, b) => [a.x + 30, a.y + a.h, b.x + 30, b.y],
        token: null, // the token is written inside its box
        bottleneck: (b, d) => [b.x + b.w, b.y + b.h - 4, d.x + 10, d.y + d.h],
        notes: [[8, 16, 'attention: the decoder reads every hᵢ', 'accent'], [width - 80, 36 + (n * 46) / 2 + 18, 'one vector:'],
          [width - 80, 36 + (n * 46) / 2 + 33, 'the bottleneck']],
      };
  const root = d3.select(container);
  root.selectAll('*').remove();
  const svg = root.append('svg').attr('viewBox', `0 0 ${width} ${geometry.height}`).attr('width', width).attr('height', geometry.height)
    .attr('role', 'img')
    .attr('aria-label', 'A recurrent encoder passes one hidden state to the decoder; with attention the decoder reads every encoder state, weighted');
  svg.append('defs').append('marker').attr('id', 'arrow').attr('viewBox', '0 0 10 10').attr('refX', 9).attr('refY', 5)
    .attr('markerWidth', 6).attr('markerHeight', 6).attr('orient', 'auto-start-reverse')
    .append('path').attr('d', 'M0 0 L10 5 L0 10 z').attr('class', 'arrowhead');
  const boxes = TOKENS.map((_, i) => geometry.box(i));
  const d = geometry.decoder;
  const lines = svg.append('g').attr('class', 'attention-lines');
  boxes.forEach((b, i) => {
    const w = weights?.[i] ?? 0.2;
    lines.append('path').attr('data-state', i).attr('d', geometry.bend(geometry.from(b), geometry.to(d)))
      .attr('stroke-opacity', 0.1 + 0.9 * w).attr('stroke-width', 1 + 5 * w);
  });
  const encoder = svg.append('g').attr('class', 'encoder');
  boxes.forEach((b, i) => {
    encoder.append('rect').attr('x', b.x).attr('y', b.y).attr('width', b.w).attr('height', b.h).attr('rx', 6);
    encoder.append('text').attr('x', b.x + b.w / 2).attr('y', b.y + b.h / 2).attr('dy', '0.35em')
      .text(geometry.token ? `h${SUB[i]}` : `h${SUB[i]} · ${TOKENS[i]}`);
    if (geometry.token) {
      const [tx, ty] = geometry.token(b);
      encoder.append('text').attr('class', 'token').attr('x', tx).attr('y', ty).text(TOKENS[i]);
    }
    if (i + 1 < n) {
      const [x1, y1, x2, y2] = geometry.recurrent(b, boxes[i + 1]);
      encoder.append('line').attr('x1', x1).attr('y1', y1).attr('x2', x2).attr('y2', y2).attr('marker-end', 'url(#arrow)');
    }
  });
  const [bx1, by1, bx2, by2] = geometry.bottleneck(boxes[n - 1], d);
  encoder.append('line').attr('class', 'bottleneck').attr('x1', bx1).attr('y1', by1).attr('x2', bx2).attr('y2', by2).attr('marker-end', 'url(#arrow)');
  svg.append('rect').attr('class', 'decoder').attr('x', d.x).attr('y', d.y).attr('width', d.w).attr('height', d.h).attr('rx', 6);
  svg.append('text').attr('x', d.x + d.w / 2).attr('y', d.y + d.h / 2).attr('dy', '0.35em').text('decoder');
  for (const [x, y, text, cls] of geometry.notes) {
    svg.append('text').attr('class', `note${cls ? ` ${cls}` : ''}`).attr('x', x).attr('y', y).text(text);
  }
  // Its numbers are the weights its attention lines are drawn with.
  exportMenu(container, svg.node(), { title: 'attention weights of the decoder step', rowLabels: ['α'], colLabels: TOKENS,
    values: Array.from(weights), rows: 1, cols: TOKENS.length }, 'encoder-decoder attention');
}

chapter(async (attn) => {
  const holder = document.querySelector('#bahdanau-scores');
  const fig = (id) => document.querySelector(`[data-figure="${id}"]`);
  const states = attn.tensor(NOTEBOOK_INPUTS);
  const inputs = TOKENS.map((w, i) => {
    const field = document.createElement('div');
    field.className = 'field';
    const label = document.createElement('label');
    // The input is a score ω, not the state itself: named as the formula above names it, with its state and word.
    label.textContent = `ω${SUB[i]} for h${SUB[i]} (${w}) `;
    const input = document.createElement('input');
    input.type = 'number';
    input.step = '0.5';
    input.id = `score-${i}`;
    input.value = String(SCORES[i]);
    label.appendChild(input);
    field.appendChild(label);
    holder.appendChild(field);
    return input;
  });
  const figures = ['bahdanau-weights', 'context-vector'].map(fig);
  let lastWeights = null;
  const draw = perFrame(() => {
    const scores = inputs.map((el, i) => readNumber(el, { name: `The score of h${SUB[i]}` }));
    const ok = scores.every((s) => s !== null);
    markStale([...figures, fig('bottleneck').querySelector('.diagram-holder')], !ok);
    if (!ok) return;
    try {
      const weights = attn.softmax(scores);
      lastWeights = weights.data;
      diagram(fig('bottleneck').querySelector('.diagram-holder'), lastWeights);
      bars(fig('bahdanau-weights'), weights.data, { title: 'α = softmax(scores)', labels: TOKENS, domain: [0, 1] });
      heatmap(fig('context-vector'), attn.contextVector(weights, states), {
        title: 'Context vector z = Σⱼ αⱼ hⱼ', rowLabels: ['z'], colLabels: dims(3, 'x'), domain: [0, 1],
      });
      report(null);
    } catch (error) {
      report(error);
    }
  });
  heatmap(fig('encoder-states'), states, { title: 'Encoder states hⱼ (notebook 000)', rowLabels: TOKENS, colLabels: dims(3, 'x'), domain: [0, 1] });
  inputs.forEach((el) => el.addEventListener('input', draw));
  const link = linkState({
    scores: {
      ...kinds.float32s({ count: TOKENS.length }),
      default: Float32Array.from(SCORES),
      get: () => {
        const values = inputs.map((el) => (el.value.trim() === '' ? NaN : Number(el.value)));
        return values.every(Number.isFinite) ? Float32Array.from(values) : undefined;
      },
      set: (values) => values.forEach((v, i) => (inputs[i].value = float32Text(v))),
    },
  }, { restore: draw });
  await link.ready;
  // The diagram changes layout with the width of the page (only the width: opening its download menu makes the
  // page taller, and redrawing then would close the menu under the reader's pointer).
  let drawnWidth = availableWidth(fig('bottleneck'));
  new ResizeObserver(() => {
    const width = availableWidth(fig('bottleneck'));
    if (width === drawnWidth || !lastWeights) return;
    drawnWidth = width;
    diagram(fig('bottleneck').querySelector('.diagram-holder'), lastWeights);
  }).observe(document.querySelector('main'));
  draw();
  await new Promise(requestAnimationFrame);
});
