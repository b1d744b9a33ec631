// Chapter 2: notebook 000's attention without trainable weights, step by step
// (§2-§3, docs/notebooks.md), every figure from attn.* on the reader's inputs.
import { bars } from '../components/bars.js';
import { sharedDomain } from '../components/colour-scales.js';
import { WEIGHTS_DOMAIN } from '../components/heatmap.js';
import { markStale } from '../components/inputs.js';
import { matrixEditor } from '../components/matrix-editor.js';
import { chapter } from '../components/chapter.js';
import { controls } from '../components/controls.js';
import { kinds, linkState } from '../components/link-state.js';
import { perFrame, report } from '../components/page.js';
import { pipeline } from '../components/pipeline.js';
import { pytorchPanel } from '../components/pytorch-panel.js';
import { dims, inputsLinkField, NOTEBOOK_INPUTS, TOKENS } from './journey.js';
import { chapter2 } from './pytorch.js';
import { factorOf, CHAPTER_2 as SETTINGS } from './settings.js';

// What each step of the hero figure does, in one sentence.
const STEPS = {
  X: 'Six tokens, each a 3-dimensional embedding (edit them above).',
  Ω: 'Every embedding dotted with every other: how much two tokens point the same way.',
  A: 'A softmax along each row: positive weights that sum to 1.',
  Z: 'Each row of A mixes the embeddings into one context vector.',
};

chapter(async (attn) => {
  const fig = (id) => document.querySelector(`[data-figure="${id}"]`);
  const query = document.querySelector('#query');
  const settings = controls(SETTINGS);
  TOKENS.forEach((t, i) => query.add(new Option(t, String(i), i === 1, i === 1)));
  let inputs = attn.tensor(NOTEBOOK_INPUTS); // null while a cell of the editor is not a number
  const all = [...document.querySelectorAll('[data-figure]')];
  const normalised = ['sum-normalised', 'naive-softmax', 'softmax'].map(fig);
  const pytorch = pytorchPanel(document.querySelector('[data-pytorch]'));
  const hero = pipeline(fig('pipeline'), {
    title: 'The whole computation: X → scores Ω = X Xᵀ → weights A → context Z = A X',
    describe: (stage) => STEPS[stage.name] ?? '',
  });

  const factorSlider = settings.element('log10_factor');
  const draw = perFrame(() => {
    const exponent = settings.read('log10_factor');
    const k = exponent === null ? null : factorOf(exponent);
    document.querySelector('#factor-value').textContent = k === null ? '' : String(k);
    // A screen reader announces the factor, not the exponent the slider holds.
    factorSlider.setAttribute('aria-valuetext', k === null ? '' : `× ${k}`);
    markStale(all, inputs === null);
    markStale(normalised, inputs === null || k === null);
    pytorch.update(inputs === null ? null : chapter2({ inputs, tokens: TOKENS, query: Number(query.value), factor: k }));
    if (inputs === null) return;
    try {
      // The hero first (it is the chapter's first figure), the rest in the next frame, so that neither frame
      // blocks the page for long (page.js, perFrame).
      const t = attn.simpleSelfAttention(inputs);
      const vectors = sharedDomain(inputs, t.context); // Z mixes X's rows: one scale for both (colour-scales.js)
      hero.update([
        { id: 'inputs', name: 'X', title: 'the embeddings', kind: 'x', tensor: inputs, rowLabels: TOKENS, colLabels: dims(3, 'x'), domain: vectors },
        { id: 'scores', name: 'Ω', title: 'X Xᵀ', kind: 'score', tensor: t.scores, rowLabels: TOKENS, colLabels: TOKENS, op: 'X Xᵀ' },
        { id: 'weights', name: 'A', title: 'softmax by row', kind: 'score', tensor: t.weights, rowLabels: TOKENS, colLabels: TOKENS, domain: WEIGHTS_DOMAIN, op: 'softmax' },
        { id: 'context', name: 'Z', title: 'A X', kind: 'z', tensor: t.context, rowLabels: TOKENS, colLabels: dims(3, 'z'), op: 'A X', domain: vectors },
      ]);
      const q = Number(query.value);
      const scores = attn.attentionScoresForQuery(inputs, q);
      report(null);
      return [() => {
        bars(fig('query-scores'), scores.data, { title: `ω for the query “${TOKENS[q]}”`, labels: TOKENS });
        if (k !== null) {
          const scaled = { data: scores.data.map((s) => s * k), shape: scores.shape };
          const sum = attn.normalizeSum(scaled).data;
          // One 0-1 axis for the three, widened only if ω/Σω leaves it (negative scores).
          const finite = Array.from(sum).filter(Number.isFinite);
          const domain = [Math.min(0, ...finite), Math.max(1, ...finite)];
          bars(fig('sum-normalised'), sum, { title: 'ω / Σω', labels: TOKENS, domain });
          bars(fig('naive-softmax'), attn.softmaxNaive(scaled).data, { title: 'naive softmax', labels: TOKENS, domain });
          bars(fig('softmax'), attn.softmax(scaled).data, { title: 'softmax (stable)', labels: TOKENS, domain });
        }
        document.querySelector('#overflow-note').textContent = k === null ? '' : overflowNote(scores.data.map((s) => s * k));
      }];
    } catch (error) {
      report(error);
    }
  });

  const editor = matrixEditor(document.querySelector('[data-editor="inputs"]'), inputs, {
    caption: 'Input embeddings x⁽ⁱ⁾ (edit any value)',
    rowLabels: TOKENS,
    colLabels: dims(3, 'x'),
    onChange: (t) => {
      inputs = t;
      draw();
    },
  });
  query.addEventListener('change', draw);
  factorSlider.addEventListener('input', draw);
  const link = linkState({
    inputs: inputsLinkField(attn, editor, { get: () => inputs, assign: (t) => (inputs = t) }),
    query: { ...kinds.named(TOKENS), default: 1, get: () => Number(query.value), set: (i) => (query.value = String(i)) },
    // The link names the factor itself, as links made before the slider moved in powers of ten did.
    factor: {
      ...kinds.number({ min: 0.1, max: 100 }),
      default: 1,
      get: () => factorOf(Number(factorSlider.value)),
      set: (f) => (factorSlider.value = String(Math.log10(f))),
    },
  }, { restore: draw });
  await link.ready;
  draw();
  await new Promise(requestAnimationFrame);
});

/**
 * What the naive softmax did with these scores, in numbers: e^ω overflows float32 past ln(3.4e38) ≈ 88.72, and
 * ∞ / ∞ is NaN, which is all its bars can show then.
 */
export function overflowNote(scores) {
  const LIMIT = Math.log(3.4028234663852886e38);
  let top = 0;
  for (let j = 1; j < scores.length; j++) if (scores[j] > scores[top]) top = j;
  const max = scores[top];
  const fmt = (v) => v.toFixed(1).replace('-', '−');
  if (max > LIMIT) {
    return `The naive softmax is NaN: the largest scaled score, ${fmt(max)} for “${TOKENS[top]}”, gives e^${fmt(max)} = ∞ ` +
      `in float32 (anything past e^88.7 is), and then ∞ / ∞ = NaN. The stable softmax computes e^(ω − ${fmt(max)}) ` +
      'instead: its largest exponent is e^0 = 1, and its weights are the ones the naive formula means.';
  }
  return `The largest scaled score is ${fmt(max)} (“${TOKENS[top]}”): e^${fmt(max)} still fits in float32, so the naive ` +
    'and the stable softmax agree. Past about 88.7 the naive one overflows.';
}

