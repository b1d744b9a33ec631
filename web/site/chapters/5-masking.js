// Chapter 5: causal, padding and hand-drawn masks on notebook 000's example
// (SelfAttentionV1, seed 123), through scaledDotProductAttention.
import { sharedDomain } from '../components/colour-scales.js';
import { ATTENTION_AXES, heatmap, WEIGHTS_DOMAIN, WEIGHTS_NOTE } from '../components/heatmap.js';
import { chapter } from '../components/chapter.js';
import { controls } from '../components/controls.js';
import { kinds, linkState } from '../components/link-state.js';
import { perFrame, report } from '../components/page.js';
import { pipeline } from '../components/pipeline.js';
import { pytorchPanel } from '../components/pytorch-panel.js';
import { scorePanel } from '../components/score-panel.js';
import { NOTEBOOK_INPUTS, TOKENS } from './journey.js';
import { chapter5 } from './pytorch.js';
import { CHAPTER_5 as SETTINGS } from './settings.js';

// What each step of the hero figure does, in one sentence.
const STEPS = {
  Q: 'The queries of chapter 3 (seed 123, d_out = 2).',
  K: 'And the keys.',
  'Ω / √d_k': 'The scaled scores, before any mask.',
  M: 'The mask: the causal triangle, the padding and the cells you clicked, as 0 (attend) and −∞ (masked). Click a cell of it to mask it.',
  'Ω + M': 'Masked scores become −∞ (or −1e9): the softmax gives them a weight of exactly 0.',
  A: 'Each row renormalised over the keys it may still see.',
  V: 'The values.',
  Z: 'Each output mixes only the values its query was allowed to see.',
};

chapter(async (attn) => {
  const fig = (id) => document.querySelector(`[data-figure="${id}"]`);
  const $ = (sel) => document.querySelector(sel);
  attn.manualSeed(123);
  const sa = new attn.SelfAttentionV1(3, 2);
  const { queries, keys, values } = sa.forward(attn.tensor(NOTEBOOK_INPUTS));
  sa.dispose();
  const T = TOKENS.length;
  const settings = controls(SETTINGS);
  const clicked = new Uint8Array(T * T); // 1 = masked by the reader
  /** The cells the reader masked, as [query, key] pairs. */
  const clickedCells = () => [...clicked.keys()].filter((k) => clicked[k]).map((k) => [Math.floor(k / T), k % T]);
  const pytorch = pytorchPanel($('[data-pytorch]'));
  const panel = scorePanel($('[data-score-panel]'), { level: 2, hint: 'Click a cell of Ω + M or of A above (or move to one with the arrow keys and press Enter) to trace that one number.' });
  let traced = null; // [query, key]
  const hero = pipeline(fig('pipeline'), {
    title: 'The whole computation: Q, K → scaled scores → + mask → softmax → A, then A V',
    describe: (stage) => STEPS[stage.name] ?? '',
  });
  const traceable = {
    onCellClick: (i, j) => {
      traced = [i, j];
      draw();
    },
    cellPressed: (i, j) => traced?.[0] === i && traced?.[1] === j,
    cellAction: 'traces it below the figure',
  };
  const toggles = {
    onCellClick: (i, j) => {
      clicked[i * T + j] ^= 1;
      draw();
    },
    cellPressed: (i, j) => clicked[i * T + j] === 1,
    cellAction: 'masks it or unmasks it',
  };

  const draw = perFrame(() => {
    try {
      const length = Number($('#length').value);
      $('#length-value').textContent = String(length);
      const fillValue = $('#fill').value === '-inf' ? -Infinity : -1e9;
      const mask = { data: Float32Array.from(clicked, (c) => 1 - c), shape: [T, T] };
      const before = attn.scaledDotProductAttention(queries, keys, values);
      const after = attn.scaledDotProductAttention(queries, keys, values, {
        causal: $('#causal').checked,
        keyLengths: [length],
        mask,
        fillValue,
      });
      const masked = (i, j) => after.mask.data[i * T + j] === 0;
      // The mask as the formula adds it: M = 0 where a query attends, −∞ where it is masked (the trace's 1 / 0).
      const M = { data: after.mask.data.map((m) => (m ? 0 : -Infinity)), shape: after.mask.shape };
      const dims = ['d1', 'd2'];
      const shown = { rowLabels: TOKENS, colLabels: TOKENS };
      // The hero first (it is the chapter's first figure), the rest in the frames that follow, so that no frame
      // blocks the page for long (page.js, perFrame).
      const vectors = sharedDomain(queries, keys, values, after.output); // one scale for Q, K, V and Z (colour-scales.js)
      const fill = fillValue === -Infinity ? '−∞' : '−1e9';
      hero.update([
        { id: 'queries', name: 'Q', title: 'X W_q', kind: 'q', tensor: queries, rowLabels: TOKENS, colLabels: dims, domain: vectors },
        { id: 'keys', name: 'K', title: 'X W_k', kind: 'k', tensor: keys, rowLabels: TOKENS, colLabels: dims, domain: vectors },
        { id: 'scaled-scores', name: 'Ω / √d_k', title: 'Q Kᵀ ÷ √2', kind: 'score', tensor: after.scaledScores, ...shown, op: 'Q Kᵀ ÷ √2' },
        { id: 'mask', name: 'M', title: 'click a cell to mask it', kind: 'score', tensor: M, ...shown, masked, maskLabel: '−∞', attendLabel: 'attend (0)',
          digits: 0, op: 'mask', ...toggles,
          cellLabel: (i, j, text) => `M, query ${TOKENS[i]}, key ${TOKENS[j]}: ${text} (${after.mask.data[i * T + j] ? 'attends' : 'masked'})` },
        { id: 'masked-scores', name: 'Ω + M', title: `masked → ${fill}`, kind: 'score', tensor: after.maskedScores, ...shown, masked, maskLabel: fill, op: '+ M', ...traceable },
        { id: 'weights', name: 'A', title: 'softmax by row', kind: 'score', tensor: after.weights, ...shown, domain: WEIGHTS_DOMAIN, op: 'softmax', ...traceable },
        { id: 'values', name: 'V', title: 'X W_v', kind: 'v', tensor: values, rowLabels: TOKENS, colLabels: dims, domain: vectors },
        { id: 'context', name: 'Z', title: 'A V', kind: 'z', tensor: after.output, rowLabels: TOKENS, colLabels: dims, op: 'A V', domain: vectors },
      ]);
      if (traced) {
        const e = attn.explainScore({ queries, keys, values, weights: after.weights }, ...traced);
        panel.show(e, { i: traced[0], j: traced[1], queryLabel: TOKENS[traced[0]], keyLabels: TOKENS, context: masked(...traced) ? 'a masked key' : '' });
      } else {
        panel.clear();
      }
      report(null);
      return [() => {
        heatmap(fig('weights-before'), before.weights, {
          title: 'A without the mask, for comparison', rowLabels: TOKENS, colLabels: TOKENS, ...ATTENTION_AXES, domain: WEIGHTS_DOMAIN, note: WEIGHTS_NOTE,
        });
        pytorch.update(chapter5({ inputs: attn.tensor(NOTEBOOK_INPUTS), tokens: TOKENS, causal: $('#causal').checked, length, cells: clickedCells(), fillValue, mask: after.mask }));
      }];
    } catch (error) {
      report(error);
    }
  });
  for (const name of Object.keys(SETTINGS)) settings.element(name).addEventListener('input', draw);
  $('#reset').addEventListener('click', () => {
    clicked.fill(0);
    draw();
  });
  const cell = { size: 2, max: [T, T] }; // (query, key), 1-based in the link
  const link = linkState({
    ...settings.fields,
    masked: {
      ...kinds.tuples({ ...cell, count: T * T }),
      default: [],
      get: clickedCells,
      set: (list) => {
        clicked.fill(0);
        for (const [i, j] of list) clicked[i * T + j] = 1;
      },
    },
    trace: { ...kinds.tuple(cell), default: null, get: () => traced, set: (at) => (traced = at) },
  }, { restore: draw });
  await link.ready;
  draw();
  await new Promise(requestAnimationFrame);
});
