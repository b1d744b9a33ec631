// Chapter 3: SelfAttentionV1 of notebooks 000/002, opening on W_query and
// W_key fitted so each word attends to its phrase (fitted-weights.js); seeded,
// seed 123 gives the notebooks' numbers. The reader changes the weights, the
// seed, d_out and the inputs.
import { sharedDomain } from '../components/colour-scales.js';
import { heatmap, WEIGHTS_DOMAIN } from '../components/heatmap.js';
import { markStale } from '../components/inputs.js';
import { matrixEditor } from '../components/matrix-editor.js';
import { chapter } from '../components/chapter.js';
import { controls } from '../components/controls.js';
import { kinds, linkState } from '../components/link-state.js';
import { perFrame, report } from '../components/page.js';
import { pipeline } from '../components/pipeline.js';
import { pytorchPanel } from '../components/pytorch-panel.js';
import { scorePanel } from '../components/score-panel.js';
import { DEFAULT_VIEW, ELEVATION_LIMIT, projections, scatter, SET_COLORS, sharedView } from '../components/scatter.js';
import { onThemeChange } from '../components/theme.js';
import { dims, inputsLinkField, NOTEBOOK_INPUTS, TOKENS } from './journey.js';
import { chapter3Weights } from './fitted-weights.js';
import { chapter3 } from './pytorch.js';
import { CHAPTER_3 as SETTINGS } from './settings.js';

const norm = (v) => Math.hypot(...v);

// What each step of the hero figure does, in one sentence.
const STEPS = {
  Q: 'Every token’s embedding times W_q: what it looks for.',
  K: 'Times W_k: what it offers to be found by.',
  V: 'Times W_v: what it passes on.',
  Ω: 'Each query row dotted with each key row: how well they match.',
  'Ω / √d_k': 'Divided by √d_k, so that the scores do not grow with the width (chapter 4).',
  A: 'A softmax along each row: positive weights that sum to 1.',
  Z: 'Each row of A mixes the rows of V into one context vector.',
};

/**
 * The hero's stages: SelfAttentionV1's trace (t) as the pipeline draws it, the chapter's one drawing of each
 * matrix; the two score maps share `scores`, and Q, K, V and Z share `vectors` (Z mixes V's rows, so on V's
 * scale its narrow range reads as the blend it is). A cell of Ω, Ω / √d_k or A is traced below (`traceable`).
 */
function heroStages(t, dOut, outLabels, scores, vectors, traceable) {
  const tokens = { rowLabels: TOKENS, colLabels: TOKENS };
  const dimsOf = { rowLabels: TOKENS, colLabels: outLabels, domain: vectors };
  return [
    { id: 'queries', name: 'Q', title: 'X W_q', kind: 'q', tensor: t.queries, ...dimsOf },
    { id: 'keys', name: 'K', title: 'X W_k', kind: 'k', tensor: t.keys, ...dimsOf, op: '' },
    { id: 'scores', name: 'Ω', title: 'Q Kᵀ', kind: 'score', tensor: t.scores, ...tokens, domain: scores, op: 'Q Kᵀ', ...traceable },
    { id: 'scaled-scores', name: 'Ω / √d_k', title: `÷ √${dOut}`, kind: 'score', tensor: t.scaledScores, ...tokens, domain: scores, op: `÷ √${dOut}`, ...traceable },
    { id: 'weights', name: 'A', title: 'softmax by row', kind: 'score', tensor: t.weights, ...tokens, domain: WEIGHTS_DOMAIN, op: 'softmax', ...traceable },
    { id: 'values', name: 'V', title: 'X W_v', kind: 'v', tensor: t.values, ...dimsOf, op: '' },
    { id: 'context', name: 'Z', title: 'A V', kind: 'z', tensor: t.context, ...dimsOf, op: 'A V' },
  ];
}

chapter(async (attn) => {
  const fig = (id) => document.querySelector(`[data-figure="${id}"]`);
  const $ = (sel) => document.querySelector(sel);
  const settings = controls(SETTINGS);
  const projectionQuery = $('#projection-query');
  TOKENS.forEach((t, i) => projectionQuery.add(new Option(t, String(i), i === 1, i === 1)));
  let inputs = attn.tensor(NOTEBOOK_INPUTS); // null while a cell of the editor is not a number
  const figures = [...document.querySelectorAll('[data-figure]')];
  const pytorch = pytorchPanel($('[data-pytorch]'));
  const panel = scorePanel($('[data-score-panel]'), { level: 2, hint: 'Click a cell of Ω, Ω / √d_k or A above (or move to one with the arrow keys and press Enter) to trace that one number from q and k to the output.' });
  let traced = null; // [query, key] of the traced cell, kept across redraws
  const trace = (i, j) => {
    traced = [i, j];
    draw();
  };
  const orbit = sharedView(() => link.record()); // the 3-D views' viewpoint, turned by the reader
  const hero = pipeline(fig('pipeline'), {
    title: 'The whole computation: Q, K → scores → ÷ √d_k → softmax → A, then A V',
    describe: (stage) => STEPS[stage.name] ?? '',
  });
  const traceable = { onCellClick: trace, cellPressed: (i, j) => traced?.[0] === i && traced?.[1] === j, cellAction: 'traces it below the figure' };

  const draw = perFrame(() => {
    const seed = settings.read('seed');
    const dOut = settings.read('d_out');
    const ok = seed !== null && dOut !== null && inputs !== null;
    markStale([...figures, $('#projection-readout'), $('[data-score-panel]')], !ok);
    const fitted = settings.read('weights') === 'fitted' && dOut !== null ? chapter3Weights(dOut) : null;
    pytorch.update(ok ? chapter3({ inputs, tokens: TOKENS, seed, dOut, fitted }) : null);
    if (!ok) return;
    attn.manualSeed(seed);
    const sa = new attn.SelfAttentionV1(inputs.shape[1], dOut);
    try {
      if (fitted) sa.loadStateDict(fitted, { strict: false }); // W_value stays the seed's
      const t = sa.forward(inputs);
      const inLabels = dims(inputs.shape[1], 'x');
      const outLabels = dims(dOut, 'd');
      const W = { query: sa.W_query, key: sa.W_key, value: sa.W_value }; // read now: `sa` is freed when this returns
      const weightsDomain = sharedDomain(W.query, W.key, W.value);
      const weightsOf = (name, notebook) => ({ title: `${name} (the notebook's ${notebook})`, rowLabels: inLabels, colLabels: outLabels,
        domain: weightsDomain, note: 'one colour scale for the three' });
      // One colour scale for the scores and the scaled scores, so that dividing by √d_k is seen as the colours
      // drawing together (each map on its own scale looked the same; chapter 4 is about that difference).
      const both = [...t.scores.data, ...t.scaledScores.data].filter(Number.isFinite);
      const scores = [Math.min(...both), Math.max(...both)];
      // One scale for each kind of matrix shown side by side: the three weight matrices; the vectors Q, K, V, Z.
      const vectors = sharedDomain(t.queries, t.keys, t.values, t.context);
      // The hero first (it is the chapter's first figure), the rest in the frames that follow, so that no frame
      // blocks the page for long (page.js, perFrame).
      hero.update(heroStages(t, dOut, outLabels, scores, vectors, traceable));
      if (traced) panel.show(attn.explainScore(t, ...traced), { i: traced[0], j: traced[1], queryLabel: TOKENS[traced[0]], keyLabels: TOKENS });
      else panel.clear();
      report(null);
      return [() => {
        heatmap(fig('W_query'), W.query, weightsOf('W_q', 'W_query'));
        heatmap(fig('W_key'), W.key, weightsOf('W_k', 'W_key'));
        heatmap(fig('W_value'), W.value, weightsOf('W_v', 'W_value'));
      }, () => drawSpaces(t, dOut, outLabels), () => drawProjections(t, dOut, outLabels)];
    } catch (error) {
      report(error);
    } finally {
      sa.dispose();
    }
  });

  function drawSpaces(t, dOut, outLabels) {
    if (dOut < 2) {
      fig('space').replaceChildren();
      fig('value-space').replaceChildren();
      return;
    }
    const set = (name, tensor, k) => ({ name, data: tensor.data, d: dOut, labels: TOKENS, color: SET_COLORS[k] });
    const view = dOut === 2 ? '' : ' (first three dimensions; drag or use the arrow keys to rotate)';
    scatter(fig('space'), [set('queries', t.queries, 0), set('keys', t.keys, 1)], { title: `Queries and keys${view}`, axisNames: outLabels, orbit });
    scatter(fig('value-space'), [set('values', t.values, 2)], { title: `Values${view}`, axisNames: outLabels, orbit });
  }

  function drawProjections(t, dOut, outLabels) {
    const readout = $('#projection-readout');
    const q = Number(projectionQuery.value);
    const T = TOKENS.length;
    const row = (tensor, i) => Array.from(tensor.data.subarray(i * dOut, (i + 1) * dOut));
    const keyNorms = TOKENS.map((_, j) => norm(row(t.keys, j)));
    const longest = keyNorms.indexOf(Math.max(...keyNorms));
    const winners = TOKENS.map((_, i) => {
      const scores = Array.from(t.scores.data.subarray(i * T, (i + 1) * T));
      return scores.indexOf(Math.max(...scores));
    });
    const allSame = winners.every((w) => w === winners[0]);
    const summary = allSame
      ? `Every query gives its highest score to the same key, “${TOKENS[winners[0]]}”` +
        (winners[0] === longest ? `, the longest key (‖k‖ = ${keyNorms[longest].toFixed(3)}).` : '.')
      : `The highest score goes to ${new Set(winners).size} different keys across the queries.`;
    if (dOut !== 2) {
      fig('projections').replaceChildren();
      readout.textContent = `${summary} (The projection picture is drawn for d_out = 2.)`;
      return;
    }
    const scores = Array.from(t.scores.data.subarray(q * T, (q + 1) * T));
    const { along, best } = projections(fig('projections'), {
      query: row(t.queries, q), keys: Array.from(t.keys.data), queryLabel: TOKENS[q], keyLabels: TOKENS, axisNames: outLabels, scores,
    });
    // The nearest key by distance, to show that nearness is not what counts.
    const distances = TOKENS.map((_, j) => norm(row(t.keys, j).map((v, k) => v - t.queries.data[q * dOut + k])));
    const nearest = distances.indexOf(Math.min(...distances));
    readout.textContent = `Query “${TOKENS[q]}” (‖q‖ = ${norm(row(t.queries, q)).toFixed(3)}): the key reaching furthest along it is ` +
      `“${TOKENS[best]}” (${along[best].toFixed(3)}), so its score is the highest, ${scores[best].toFixed(4)}; the key nearest to the ` +
      `query is “${TOKENS[nearest]}”${nearest === best ? ' too' : `, whose score is only ${scores[nearest].toFixed(4)}`}. ${summary}`;
  }

  const editor = matrixEditor(document.querySelector('[data-editor="inputs"]'), inputs, {
    caption: 'Input embeddings (edit any value)',
    rowLabels: TOKENS,
    colLabels: dims(3, 'x'),
    onChange: (t) => {
      inputs = t;
      draw();
    },
  });
  for (const name of Object.keys(SETTINGS)) settings.element(name).addEventListener('input', draw);
  projectionQuery.addEventListener('change', draw);
  onThemeChange(draw); // the 3-D view takes its colours from the theme when it is drawn
  const link = linkState({
    ...settings.fields,
    inputs: inputsLinkField(attn, editor, { get: () => inputs, assign: (t) => (inputs = t) }),
    projection_query: { ...kinds.named(TOKENS), default: 1, get: () => Number(projectionQuery.value), set: (i) => (projectionQuery.value = String(i)) },
    trace: { ...kinds.tuple({ size: 2, max: [TOKENS.length, TOKENS.length] }), default: null, get: () => traced, set: (cell) => (traced = cell) },
    azimuth: { ...kinds.integer({ min: -180, max: 179 }), default: DEFAULT_VIEW.azimuth, get: () => orbit.get().azimuth, set: (azimuth) => orbit.set({ ...orbit.get(), azimuth }) },
    elevation: { ...kinds.integer({ min: -ELEVATION_LIMIT, max: ELEVATION_LIMIT }), default: DEFAULT_VIEW.elevation, get: () => orbit.get().elevation, set: (elevation) => orbit.set({ ...orbit.get(), elevation }) },
  }, { restore: draw });
  await link.ready;
  draw();
  await new Promise(requestAnimationFrame);
});
