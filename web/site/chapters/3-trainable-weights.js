// Chapter 3: SelfAttentionV1 of notebooks 000/002 (seed 123 gives their
// numbers); the reader changes the seed, d_out and the inputs.
import { heatmap } from '../components/heatmap.js';
import { matrixEditor } from '../components/matrix-editor.js';
import { chapter, perFrame, report } from '../components/page.js';
import { scatter } from '../components/scatter.js';
import { dims, NOTEBOOK_INPUTS, TOKENS } from './journey.js';

chapter(async (attn) => {
  const fig = (id) => document.querySelector(`[data-figure="${id}"]`);
  const seedInput = document.querySelector('#seed');
  const dOutInput = document.querySelector('#d-out');
  let inputs = attn.tensor(NOTEBOOK_INPUTS);

  const draw = perFrame(() => {
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
      const max = Math.max(...t.weights.data);
      heatmap(fig('W_query'), sa.W_query, { title: 'W_query', rowLabels: inLabels, colLabels: outLabels });
      heatmap(fig('W_key'), sa.W_key, { title: 'W_key', rowLabels: inLabels, colLabels: outLabels });
      heatmap(fig('W_value'), sa.W_value, { title: 'W_value', rowLabels: inLabels, colLabels: outLabels });
      heatmap(fig('queries'), t.queries, { title: 'Queries Q = X W_q', rowLabels: TOKENS, colLabels: outLabels });
      heatmap(fig('keys'), t.keys, { title: 'Keys K = X W_k', rowLabels: TOKENS, colLabels: outLabels });
      heatmap(fig('values'), t.values, { title: 'Values V = X W_v', rowLabels: TOKENS, colLabels: outLabels });
      if (dOut >= 2) {
        scatter(fig('space'), [
          { name: 'queries', data: t.queries.data, d: dOut, labels: TOKENS },
          { name: 'keys', data: t.keys.data, d: dOut, labels: TOKENS },
          { name: 'values', data: t.values.data, d: dOut, labels: TOKENS },
        ], { title: dOut === 2 ? 'Q, K, V in 2-D' : 'Q, K, V (first three dimensions); drag to rotate' });
      } else {
        fig('space').replaceChildren();
      }
      heatmap(fig('attn-scores'), t.scores, { title: 'Scores Q Kᵀ', rowLabels: TOKENS, colLabels: TOKENS });
      heatmap(fig('scaled-scores'), t.scaledScores, { title: `Scaled Q Kᵀ / √${dOut}`, rowLabels: TOKENS, colLabels: TOKENS });
      heatmap(fig('trainable-weights'), t.weights, { title: 'Weights softmax(Q Kᵀ / √d_k)', rowLabels: TOKENS, colLabels: TOKENS, domain: [0, max] });
      heatmap(fig('trainable-context'), t.context, { title: 'Context vectors weights · V', rowLabels: TOKENS, colLabels: outLabels });
      report(null);
    } catch (error) {
      report(error);
    } finally {
      sa.dispose();
    }
  });

  matrixEditor(document.querySelector('[data-editor="inputs"]'), inputs, {
    caption: 'Input embeddings (edit any value)',
    rowLabels: TOKENS,
    colLabels: dims(3, 'x'),
    onChange: (t) => {
      inputs = t;
      draw();
    },
  });
  seedInput.addEventListener('input', draw);
  dOutInput.addEventListener('input', draw);
  draw();
  await new Promise(requestAnimationFrame);
});
