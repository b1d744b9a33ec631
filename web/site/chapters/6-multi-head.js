// Chapter 6: notebook 001's MultiHeadAttention on the reader's sentence; one
// heatmap per head and a bertviz-style head view.
import { headView } from '../components/head-view.js';
import { heatmap } from '../components/heatmap.js';
import { chapter, perFrame, report } from '../components/page.js';

const D_MODEL = 12;

chapter(async (attn) => {
  const $ = (sel) => document.querySelector(sel);
  const grid = $('[data-figure="grid"]');

  const draw = perFrame(() => {
    const words = $('#sentence').value.trim().split(/\s+/).filter(Boolean).slice(0, 16);
    const heads = Number($('#heads').value);
    const seed = $('#seed').valueAsNumber;
    $('#seed').setAttribute('aria-invalid', String(!Number.isSafeInteger(seed)));
    if (words.length === 0 || !Number.isSafeInteger(seed)) return;
    const vocab = [...new Set(words)].sort();
    attn.manualSeed(seed);
    const embed = new attn.Embedding(vocab.length, D_MODEL);
    const pos = new attn.Embedding(16, D_MODEL);
    const mha = new attn.MultiHeadAttention(D_MODEL, heads);
    try {
      const tok = embed.forward(words.map((w) => vocab.indexOf(w)));
      const p = pos.forward(words.map((_, i) => i));
      const x = { data: tok.data.map((v, i) => v + p.data[i]), shape: tok.shape };
      const t = mha.forward(x, { causal: $('#causal').checked });
      const T = words.length;
      grid.replaceChildren();
      for (let h = 0; h < heads; h++) {
        const cell = document.createElement('figure');
        cell.dataset.head = String(h);
        grid.appendChild(cell);
        heatmap(cell, { data: t.weights.data.subarray(h * T * T, (h + 1) * T * T), shape: [T, T] }, {
          title: `Head ${h + 1}`,
          rowLabels: words,
          colLabels: words,
          digits: 2,
          domain: [0, 1],
        });
      }
      headView($('[data-figure="head-view"]'), t.weights.data, words, { heads });
      report(null);
    } catch (error) {
      report(error);
    } finally {
      mha.dispose();
      pos.dispose();
      embed.dispose();
    }
  });
  for (const id of ['#sentence', '#heads', '#causal', '#seed']) $(id).addEventListener('input', draw);
  draw();
  await new Promise(requestAnimationFrame);
});
