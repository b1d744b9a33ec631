// Chapter: "Your journey starts with one step" (notebook 000, with notebook
// 002's step-by-step prints). Every figure is recomputed by the WASM library
// from the inputs the reader edits.
import { heatmap } from '../components/heatmap.js';
import { matrixEditor } from '../components/matrix-editor.js';

export const TOKENS = ['Your', 'journey', 'starts', 'with', 'one', 'step'];

// notebook 000, cell 110
export const NOTEBOOK_INPUTS = [
  [0.43, 0.15, 0.89],
  [0.55, 0.87, 0.66],
  [0.57, 0.85, 0.64],
  [0.22, 0.58, 0.33],
  [0.77, 0.25, 0.1],
  [0.05, 0.8, 0.55],
];

const dims = (n, prefix) => Array.from({ length: n }, (_, j) => `${prefix}${j + 1}`);

export function journeyChapter(root, attn) {
  const $ = (sel) => root.querySelector(sel);
  const fig = (id) => root.querySelector(`[data-figure="${id}"]`);
  const status = $('.status');
  const seedInput = $('#seed');
  const dOutInput = $('#d-out');
  let inputs = attn.tensor(NOTEBOOK_INPUTS);

  function report(error) {
    // Keep the reader's edits; say what went wrong next to them.
    status.textContent = error ? `Could not compute: ${error.message}` : '';
    status.hidden = !error;
  }

  function drawSimple() {
    const t = attn.simpleSelfAttention(inputs);
    const d = inputs.shape[1];
    heatmap(fig('scores'), t.scores, { title: 'Attention scores ω = X Xᵀ', rowLabels: TOKENS, colLabels: TOKENS });
    heatmap(fig('weights'), t.weights, {
      title: 'Attention weights α = softmax(ω)',
      rowLabels: TOKENS,
      colLabels: TOKENS,
      domain: [0, Math.max(...t.weights.data)],
    });
    heatmap(fig('context'), t.context, { title: 'Context vectors z = α X', rowLabels: TOKENS, colLabels: dims(d, 'z') });
  }

  function drawTrainable() {
    const seed = seedInput.valueAsNumber;
    const dOut = dOutInput.valueAsNumber;
    const seedOk = Number.isSafeInteger(seed);
    const dOutOk = Number.isInteger(dOut) && dOut >= 1 && dOut <= 8;
    seedInput.setAttribute('aria-invalid', String(!seedOk));
    dOutInput.setAttribute('aria-invalid', String(!dOutOk));
    if (!seedOk || !dOutOk) return;
    attn.manualSeed(seed);
    const sa = new attn.SelfAttentionV1(inputs.shape[1], dOut);
    try {
      const t = sa.forward(inputs);
      const inLabels = dims(inputs.shape[1], 'x');
      const outLabels = dims(dOut, 'd');
      heatmap(fig('W_query'), sa.W_query, { title: 'W_query', rowLabels: inLabels, colLabels: outLabels });
      heatmap(fig('W_key'), sa.W_key, { title: 'W_key', rowLabels: inLabels, colLabels: outLabels });
      heatmap(fig('W_value'), sa.W_value, { title: 'W_value', rowLabels: inLabels, colLabels: outLabels });
      heatmap(fig('queries'), t.queries, { title: 'Queries Q = X W_query', rowLabels: TOKENS, colLabels: outLabels });
      heatmap(fig('keys'), t.keys, { title: 'Keys K = X W_key', rowLabels: TOKENS, colLabels: outLabels });
      heatmap(fig('values'), t.values, { title: 'Values V = X W_value', rowLabels: TOKENS, colLabels: outLabels });
      heatmap(fig('scaled-scores'), t.scaledScores, {
        title: `Scaled scores Q Kᵀ / √${dOut}`,
        rowLabels: TOKENS,
        colLabels: TOKENS,
      });
      heatmap(fig('trainable-weights'), t.weights, {
        title: 'Attention weights softmax(Q Kᵀ / √d_k)',
        rowLabels: TOKENS,
        colLabels: TOKENS,
        domain: [0, Math.max(...t.weights.data)],
      });
      heatmap(fig('trainable-context'), t.context, { title: 'Context vectors weights · V', rowLabels: TOKENS, colLabels: outLabels });
    } finally {
      sa.dispose();
    }
  }

  function redraw() {
    try {
      drawSimple();
      drawTrainable();
      report(null);
    } catch (error) {
      report(error);
    }
  }

  matrixEditor($('[data-editor="inputs"]'), inputs, {
    caption: 'Input embeddings x⁽ⁱ⁾ (edit any value)',
    rowLabels: TOKENS,
    colLabels: dims(3, 'x'),
    onChange: (t) => {
      inputs = t;
      redraw();
    },
  });
  seedInput.addEventListener('input', redraw);
  dOutInput.addEventListener('input', redraw);
  redraw();
}
