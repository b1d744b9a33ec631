// Chapter 2: notebook 000's attention without trainable weights, step by step
// (cells 111-121), every figure from attn.* on the reader's inputs.
import { bars } from '../components/bars.js';
import { heatmap } from '../components/heatmap.js';
import { matrixEditor } from '../components/matrix-editor.js';
import { chapter, perFrame, report } from '../components/page.js';
import { dims, NOTEBOOK_INPUTS, TOKENS } from './journey.js';

chapter(async (attn) => {
  const fig = (id) => document.querySelector(`[data-figure="${id}"]`);
  const query = document.querySelector('#query');
  const factor = document.querySelector('#factor');
  TOKENS.forEach((t, i) => query.add(new Option(t, String(i), i === 1, i === 1)));
  let inputs = attn.tensor(NOTEBOOK_INPUTS);

  const draw = perFrame(() => {
    try {
      const q = Number(query.value);
      const scores = attn.attentionScoresForQuery(inputs, q);
      bars(fig('query-scores'), scores.data, { title: `ω for the query “${TOKENS[q]}”`, labels: TOKENS });

      const k = factor.valueAsNumber;
      factor.setAttribute('aria-invalid', String(!Number.isFinite(k)));
      const scaled = { data: scores.data.map((s) => s * (Number.isFinite(k) ? k : 1)), shape: scores.shape };
      bars(fig('sum-normalised'), attn.normalizeSum(scaled).data, { title: 'ω / Σω', labels: TOKENS });
      bars(fig('naive-softmax'), attn.softmaxNaive(scaled).data, { title: 'naive softmax', labels: TOKENS, domain: [0, 1] });
      bars(fig('softmax'), attn.softmax(scaled).data, { title: 'softmax (stable)', labels: TOKENS, domain: [0, 1] });

      const t = attn.simpleSelfAttention(inputs);
      const max = Math.max(...t.weights.data);
      heatmap(fig('scores'), t.scores, { title: 'Scores Ω = X Xᵀ', rowLabels: TOKENS, colLabels: TOKENS });
      heatmap(fig('weights'), t.weights, { title: 'Weights A = softmax(Ω)', rowLabels: TOKENS, colLabels: TOKENS, domain: [0, max] });
      heatmap(fig('context'), t.context, { title: 'Context vectors Z = A X', rowLabels: TOKENS, colLabels: dims(3, 'z') });
      report(null);
    } catch (error) {
      report(error);
    }
  });

  matrixEditor(document.querySelector('[data-editor="inputs"]'), inputs, {
    caption: 'Input embeddings x⁽ⁱ⁾ (edit any value)',
    rowLabels: TOKENS,
    colLabels: dims(3, 'x'),
    onChange: (t) => {
      inputs = t;
      draw();
    },
  });
  query.addEventListener('change', draw);
  factor.addEventListener('input', draw);
  draw();
  await new Promise(requestAnimationFrame);
});
