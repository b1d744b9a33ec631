// Chapter 5: causal, padding and hand-drawn masks on notebook 000's example
// (SelfAttentionV1, seed 123), through scaledDotProductAttention.
import { heatmap } from '../components/heatmap.js';
import { chapter, perFrame, report } from '../components/page.js';
import { NOTEBOOK_INPUTS, TOKENS } from './journey.js';

chapter(async (attn) => {
  const fig = (id) => document.querySelector(`[data-figure="${id}"]`);
  const $ = (sel) => document.querySelector(sel);
  attn.manualSeed(123);
  const sa = new attn.SelfAttentionV1(3, 2);
  const { queries, keys, values } = sa.forward(attn.tensor(NOTEBOOK_INPUTS));
  sa.dispose();
  const T = TOKENS.length;
  const clicked = new Uint8Array(T * T); // 1 = masked by the reader

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
      heatmap(fig('mask'), after.mask, {
        title: 'Mask (1 = attend)',
        rowLabels: TOKENS,
        colLabels: TOKENS,
        digits: 0,
        domain: [0, 1],
        onCellClick: (i, j) => {
          clicked[i * T + j] ^= 1;
          draw();
        },
        cellState: (i, j) => (clicked[i * T + j] ? 'clicked' : ''),
      });
      heatmap(fig('masked-scores'), after.maskedScores, { title: 'Masked scaled scores', rowLabels: TOKENS, colLabels: TOKENS, digits: 2 });
      // One colour scale for both, so "before" and "after" compare at a glance.
      const domain = [0, Math.max(...before.weights.data, ...after.weights.data)];
      heatmap(fig('weights-before'), before.weights, { title: 'Weights without a mask', rowLabels: TOKENS, colLabels: TOKENS, domain });
      heatmap(fig('weights-after'), after.weights, { title: 'Weights with the mask', rowLabels: TOKENS, colLabels: TOKENS, domain });
      report(null);
    } catch (error) {
      report(error);
    }
  });
  for (const id of ['#causal', '#fill', '#length']) $(id).addEventListener('input', draw);
  $('#reset').addEventListener('click', () => {
    clicked.fill(0);
    draw();
  });
  draw();
  await new Promise(requestAnimationFrame);
});
