// Chapter 6: notebook 001's MultiHeadAttention on the reader's sentence, opening
// on four heads fitted to one job each (fitted-weights.js); every head's
// weights at a glance (the grid chooses the one the hero follows and draws in
// full) and a bertviz-style head view.
import { headGrid } from '../components/head-grid.js';
import { headView } from '../components/head-view.js';
import { WEIGHTS_DOMAIN } from '../components/heatmap.js';
import { markStale, showProblem } from '../components/inputs.js';
import { chapter } from '../components/chapter.js';
import { controls } from '../components/controls.js';
import { kinds, linkState } from '../components/link-state.js';
import { perFrame, report } from '../components/page.js';
import { pipeline } from '../components/pipeline.js';
import { pytorchPanel } from '../components/pytorch-panel.js';
import { oneHead, scorePanel } from '../components/score-panel.js';
import { chapter6Weights, HEAD_JOBS } from './fitted-weights.js';
import { chapter6 } from './pytorch.js';
import { CHAPTER_6 as SETTINGS } from './settings.js';

const D_MODEL = 12;
// What each step of the hero figure does, in one sentence.
const STEPS = {
  Q: 'One projection for all heads; the rules cut its columns into one block per head.',
  K: 'The keys, cut the same way.',
  A: 'This head attends with its own block of Q and K only.',
  V: 'The values, cut the same way.',
  Concat: 'Each head’s output, d_k columns, set back in its own place.',
  Output: 'W_o mixes the heads’ columns: every output column reads every head.',
};
const MAX_WORDS = 16; // the position embedding's rows

chapter(async (attn) => {
  const $ = (sel) => document.querySelector(sel);
  const settings = controls(SETTINGS);
  const grid = $('[data-figure="grid"]');
  const shownHeads = new Set([0]); // the head view's choice, kept across redraws
  const pytorch = pytorchPanel($('[data-pytorch]'));
  const panel = scorePanel($('[data-score-panel]'), { level: 2, hint: 'Click a cell of A above (or move to one with the arrow keys and press Enter) to trace that one number through its head.' });
  let traced = null; // [head, query, key]: always in the followed head
  let followed = 0; // the head the hero follows, kept when the number of heads changes (if it still exists)
  const hero = pipeline($('[data-figure="pipeline"]'), {
    title: 'One projection, cut into heads: Q, K, V → each head attends in its own columns → concat → W_o',
    describe: (stage) => STEPS[stage.name.split(' ')[0]] ?? '',
  });

  const wordsOf = (sentence) => sentence.trim().split(/\s+/).filter(Boolean);

  const draw = perFrame(() => {
    const all = wordsOf($('#sentence').value);
    const words = all.slice(0, MAX_WORDS);
    showProblem($('#sentence'), all.length === 0 ? 'Type a sentence: at least one word.' : '');
    $('#sentence-note').textContent = all.length > MAX_WORDS
      ? `The sentence has ${all.length} words; the model reads at most ${MAX_WORDS}, so it was cut after “${words.at(-1)}”.` : '';
    const fitted = settings.read('weights') === 'fitted' ? chapter6Weights() : null;
    // The fitted weights have their own number of heads; the control shows it and waits for the seeded weights.
    const headsControl = settings.element('num_heads');
    if (fitted) headsControl.value = String(HEAD_JOBS.length);
    headsControl.disabled = fitted !== null;
    $('#heads-note').textContent = fitted
      ? `The fitted weights have ${HEAD_JOBS.length} heads: ${HEAD_JOBS.map((job, h) => `head ${h + 1} looks for ${job}`).join(', ')}. ` +
        'Choose torch.randn weights to change the number of heads.'
      : '';
    const numHeads = Number(settings.read('num_heads'));
    const seed = settings.read('seed');
    const ok = words.length > 0 && seed !== null;
    markStale([$('[data-figure="pipeline"]'), grid, $('[data-figure="head-view"]'), $('[data-score-panel]')], !ok);
    pytorch.update(ok ? chapter6({ words, numHeads, causal: $('#causal').checked, seed, dModel: D_MODEL, maxWords: MAX_WORDS, fitted }) : null);
    if (!ok) return;
    const vocab = [...new Set(words)].sort();
    attn.manualSeed(seed);
    const embed = new attn.Embedding(vocab.length, D_MODEL);
    const pos = new attn.Embedding(MAX_WORDS, D_MODEL);
    const mha = new attn.MultiHeadAttention(D_MODEL, numHeads);
    try {
      const tok = embed.forward(words.map((w) => vocab.indexOf(w)));
      let p = pos.forward(words.map((_, i) => i));
      if (fitted) {
        const { position_embedding: positions, ...state } = fitted;
        mha.loadStateDict(state);
        p = { data: Float32Array.from(positions.slice(0, words.length).flat()), shape: p.shape };
      }
      const x = { data: tok.data.map((v, i) => v + p.data[i]), shape: tok.shape };
      const t = mha.forward(x, { causal: $('#causal').checked });
      const T = words.length;
      // Q = X W_q as one (T, d_model) matrix, from the trace's per-head queries (1, H, T, d_k): head h holds its
      // columns h·d_k … (h+1)·d_k − 1. The concatenation of the heads' outputs has the same columns.
      const dk = D_MODEL / numHeads;
      const q = new Float32Array(T * D_MODEL);
      for (let h = 0; h < numHeads; h++)
        for (let i = 0; i < T; i++)
          for (let c = 0; c < dk; c++) q[i * D_MODEL + h * dk + c] = t.queries.data[(h * T + i) * dk + c];
      report(null);
      // The figures, a frame each, the hero first (it is the chapter's first figure): drawn in one, the redraw
      // took ~100 ms, and the page could not answer meanwhile (page.js, perFrame).
      return [() => drawHero(t, words, numHeads, q), () => {
        const h = Math.min(followed, numHeads - 1);
        headGrid(grid, { data: t.weights.data, shape: [1, numHeads, T, T] }, {
          title: 'Every head’s weights A: choose one to follow it in the figure',
          selected: [0, h],
          causal: $('#causal').checked,
          maxThumb: 72,
          onChoose: (_, head) => {
            followed = head;
            if (traced) traced = [head, traced[1], traced[2]]; // the same number, in the head now followed
            draw();
          },
        });
      }, () => {
        headView($('[data-figure="head-view"]'), t.weights.data, words, { heads: numHeads, shown: shownHeads, label: fitted ? 'Head view of the fitted heads' : 'Head view of the untrained module' });
      }];
    } catch (error) {
      report(error);
    } finally {
      mha.dispose();
      pos.dispose();
      embed.dispose();
    }
  });
  /**
   * The hero: Q, K, V as whole (T, d_model) matrices cut into heads, the followed head's weights (the chapter's
   * one full drawing of them; its cells are traced below), the concat, the output.
   */
  function drawHero(t, words, numHeads, q) {
    const T = words.length;
    const dk = D_MODEL / numHeads;
    if (traced && (traced[0] >= numHeads || traced[1] >= T || traced[2] >= T)) traced = null; // the sentence or the heads changed under it
    if (traced) followed = traced[0]; // a traced number is always in the head followed (a link may name only the trace)
    const h = Math.min(followed, numHeads - 1);
    // (1, H, T, d_k) per head → (T, d_model) with head h in columns h·d_k … (h+1)·d_k − 1, as Q is above.
    const joined = (perHead) => {
      const out = new Float32Array(T * D_MODEL);
      for (let g = 0; g < numHeads; g++)
        for (let i = 0; i < T; i++)
          for (let c = 0; c < dk; c++) out[i * D_MODEL + g * dk + c] = perHead.data[(g * T + i) * dk + c];
      return { data: out, shape: [T, D_MODEL] };
    };
    const cols = Array.from({ length: D_MODEL }, (_, k) => `h${Math.floor(k / dk) + 1}·${(k % dk) + 1}`);
    const model = { rowLabels: words, colLabels: cols, groupEvery: dk };
    hero.update([
      { id: 'queries', name: 'Q', title: `X W_q, cut into ${numHeads} heads of d_k = ${dk}`, kind: 'q', tensor: { data: q, shape: [T, D_MODEL] }, ...model },
      { id: 'keys', name: 'K', title: 'X W_k', kind: 'k', tensor: joined(t.keys), ...model },
      { id: 'weights', name: `A (head ${h + 1})`, title: `softmax(Q${h + 1} K${h + 1}ᵀ / √${dk})`, kind: 'score', head: h,
        tensor: { data: t.weights.data.subarray(h * T * T, (h + 1) * T * T), shape: [T, T] }, rowLabels: words, colLabels: words,
        domain: WEIGHTS_DOMAIN, op: `head ${h + 1}'s columns`,
        onCellClick: (i, j) => {
          traced = [h, i, j];
          draw();
        },
        cellPressed: (i, j) => traced?.[1] === i && traced?.[2] === j,
        cellAction: 'traces it below the figure' },
      { id: 'values', name: 'V', title: 'X W_v', kind: 'v', tensor: joined(t.values), ...model },
      { id: 'concat', name: 'Concat', title: 'every head’s A_h V_h, side by side', kind: 'z', tensor: { data: t.concat.data, shape: [T, D_MODEL] }, ...model, op: 'A_h V_h' },
      { id: 'output', name: 'Output', title: 'Concat W_o', kind: 'z', tensor: { data: t.output.data, shape: [T, D_MODEL] }, rowLabels: words,
        colLabels: Array.from({ length: D_MODEL }, (_, k) => `o${k + 1}`), op: '· W_o' },
    ]);
    if (!traced) panel.clear();
    else panel.show(attn.explainScore(oneHead(t, h), traced[1], traced[2]), { i: traced[1], j: traced[2], queryLabel: words[traced[1]], keyLabels: words, context: `head ${h + 1}` });
  }

  for (const name of Object.keys(SETTINGS)) settings.element(name).addEventListener('input', draw);
  const link = linkState({
    ...settings.fields,
    num_heads: { ...settings.fields.num_heads, formerly: ['heads'] },
    // (head, query, key) of the traced number, in the map of the sentence and heads set above
    trace: {
      ...kinds.tuple({ size: 3, max: [12, MAX_WORDS, MAX_WORDS] }),
      default: null,
      get: () => traced,
      set: (at, note) => {
        const T = Math.min(MAX_WORDS, wordsOf($('#sentence').value).length);
        const inside = at === null || (at[0] < Number(settings.element('num_heads').value) && at[1] < T && at[2] < T);
        if (!inside) note(`Its traced number (head ${at[0] + 1}, query ${at[1] + 1}, key ${at[2] + 1}) is outside the maps of this sentence and these heads.`);
        traced = inside ? at : null;
        if (traced) followed = traced[0]; // a traced number is in the head the figure follows
      },
    },
    hero_head: { ...kinds.integer({ min: 1, max: 12 }), default: 1, get: () => followed + 1, set: (h) => (followed = h - 1) }, // 1-based, as the page names heads
    head_view: {
      ...kinds.tuples({ size: 1, max: [12], count: 12 }),
      default: [[0]],
      get: () => [...shownHeads].sort((a, b) => a - b).map((h) => [h]),
      set: (list) => {
        shownHeads.clear();
        for (const [h] of list) shownHeads.add(h);
      },
    },
  }, { restore: draw });
  await link.ready;
  draw();
  await new Promise(requestAnimationFrame);
});
