// Attention at scale: what today's models do so that attention stays affordable over long texts. The KV cache
// (each new token one row of attention against the keys and values kept, equal to recomputing everything);
// grouped key/value heads (GQA, MQA) and the cache they save, from six models' config.json; sliding windows and
// how far their reach grows layer by layer; the T × T matrix streamed by the online softmax. Every number is the
// library's: scaledDotProductAttention, kvCacheNumbers, onlineSoftmax.
import './attention-today.css';

import { bars } from '../components/bars.js';
import { chapter } from '../components/chapter.js';
import { controls } from '../components/controls.js';
import { heatmap, WEIGHTS_DOMAIN } from '../components/heatmap.js';
import { markStale } from '../components/inputs.js';
import { linkState } from '../components/link-state.js';
import { perFrame, report } from '../components/page.js';
import { LENGTHS, MODELS } from './at-scale/configs.js';
import { groupingPicture } from './at-scale/grouping.js';
import { keptSinks } from './at-scale/kept-sinks.js';
import { AT_SCALE as SETTINGS } from './settings.js';
import shippedModelUrl from '../../lib/models/agreement.safetensors?url';

const TOKENS = ['The', 'cats', 'which', 'slept', 'near', 'the', 'dog', 'purr'];
const SINKS_TEXT = 'The cats, which slept near the dog, purr.'; // the sinks' text, for chapter 8's model and a kept one
const D = 8; // the cache example's head dimension
const WINDOW_T = 12; // the tokens of the sliding-window maps
const SCORES = 12; // the online softmax's row

const fmt = (v, digits = 4) => v.toFixed(digits).replace('-', '−');
/** Bytes as a reader says them: 36 KB, 1.2 MB, 3.0 GB (powers of 1,024, as memory is counted). */
function size(bytes) {
  const units = ['bytes', 'KB', 'MB', 'GB'];
  let k = 0;
  while (bytes >= 1024 && k < units.length - 1) {
    bytes /= 1024;
    k++;
  }
  return `${k === 0 ? bytes : bytes.toFixed(bytes < 10 ? 1 : 0)} ${units[k]}`;
}

chapter(async (attn) => {
  const $ = (sel) => document.querySelector(sel);
  const fig = (id) => $(`[data-figure="${id}"]`);
  const settings = controls(SETTINGS);
  const modelSelect = settings.element('model');

  /** The KV cache at step t: the new token's query against the t keys kept, and the full recomputation's row. */
  function drawCache(seed, t) {
    attn.manualSeed(seed);
    const [q, k, v] = ['q', 'k', 'v'].map(() => attn.randn(TOKENS.length, D));
    const rows = (x, n) => ({ data: x.data.subarray(0, n * D), shape: [n, D] });
    const step = attn.scaledDotProductAttention({ data: q.data.subarray((t - 1) * D, t * D), shape: [1, D] }, rows(k, t), rows(v, t));
    const full = attn.scaledDotProductAttention(q, k, v, { causal: true });
    const labels = TOKENS.slice(0, t);
    heatmap(fig('cache'), rows(k, t), {
      title: `The cache's keys after “${TOKENS[t - 1]}”: ${t} rows, one per token so far (its values alike)`, rowLabels: labels,
      colLabels: Array.from({ length: D }, (_, c) => `d${c + 1}`), digits: 2, cellSize: 36,
    });
    bars(fig('step-weights'), step.weights.data, { title: `“${TOKENS[t - 1]}” attends to the ${t} tokens kept`, labels, domain: WEIGHTS_DOMAIN, digits: 2 });
    const z = step.output.data;
    const recomputed = full.output.data.subarray((t - 1) * D, t * D);
    const largest = Math.max(...Array.from(z, (x, c) => Math.abs(x - recomputed[c])));
    const readout = $('#cache-readout');
    readout.dataset.largest = String(largest);
    readout.textContent = `This step: one query row against ${t} cached keys, ${t} dot products of ${D} numbers. Its output ` +
      `z = (${Array.from(z.subarray(0, 3), (x) => fmt(x, 3)).join(', ')}, …) is row ${t} of the whole causal attention recomputed ` +
      `from scratch (${t * (t + 1) / 2} dot products): the largest difference is ${largest === 0 ? '0' : largest.toExponential(1)}. ` +
      `The cache grows by ${2 * D} numbers per head and layer with every token.`;
  }

  /** Which query heads read which key/value head, and the cache each model keeps. */
  function drawGrouping(name) {
    const model = MODELS.find((m) => m.name === name);
    groupingPicture(fig('grouping'), model);
    const bytes = (config, tokens) => 2 * attn.kvCacheNumbers(config, tokens); // 16-bit numbers
    const own = (config) => ({ ...config, ...(config.num_attention_heads ? { num_key_value_heads: config.num_attention_heads } : {}) });
    const body = $('#calculator tbody');
    body.replaceChildren(...MODELS.map((m) => {
      const tr = document.createElement('tr');
      tr.dataset.model = m.name;
      if (m.name === name) tr.className = 'chosen';
      const th = document.createElement('th');
      th.scope = 'row';
      const a = Object.assign(document.createElement('a'), { href: m.source, textContent: m.name });
      th.append(a);
      const cells = [bytes(m.config, 1), ...LENGTHS.map((T) => bytes(m.config, T)), bytes(own(m.config), LENGTHS.at(-1))];
      tr.append(th, ...cells.map((b) => {
        const td = document.createElement('td');
        td.textContent = size(b);
        td.dataset.bytes = String(b);
        return td;
      }));
      return tr;
    }));
    const m = MODELS.find((x) => x.name === name);
    const [one, all] = [bytes(m.config, LENGTHS.at(-1)), bytes(own(m.config), LENGTHS.at(-1))];
    $('#grouping-readout').textContent = one === all
      ? `${name} gives every query head its own keys and values: its cache at ${LENGTHS.at(-1).toLocaleString('en')} tokens is ${size(one)}.`
      : `${name}'s cache at ${LENGTHS.at(-1).toLocaleString('en')} tokens is ${size(one)}; with a key/value head per query head it would be ` +
        `${size(all)}, ${(all / one).toFixed(1)} times as much.`;
  }

  /** The band a sliding window leaves, and how far back the last token reaches through a stack of such layers. */
  function drawWindow(seed, window, layers) {
    attn.manualSeed(seed + 1);
    const q = attn.randn(WINDOW_T, D);
    const k = attn.randn(WINDOW_T, D);
    const a = attn.scaledDotProductAttention(q, k, k, { causal: true, window });
    const positions = Array.from({ length: WINDOW_T }, (_, i) => String(i));
    const masked = (i, j) => a.mask.data[i * WINDOW_T + j] === 0;
    heatmap(fig('window'), a.weights, { title: `Causal attention with a window of ${window}`, rowLabels: positions, colLabels: positions,
      masked, maskLabel: '−∞', digits: 2, domain: WEIGHTS_DOMAIN, cellSize: 30 });
    // Which positions the last token's output depends on after 1 … layers layers: the mask's reach, composed.
    let reach = Array.from({ length: WINDOW_T }, (_, j) => (j === WINDOW_T - 1 ? 1 : 0));
    const rows = [];
    for (let l = 0; l < layers; l++) {
      reach = reach.map((_, j) => (reach.some((r, i) => r && !masked(i, j)) ? 1 : 0));
      rows.push(...reach);
    }
    heatmap(fig('reach'), { data: Float32Array.from(rows), shape: [layers, WINDOW_T] }, {
      title: `What the last token can see, layer by layer (1 = within reach)`, rowLabels: Array.from({ length: layers }, (_, l) => `layer ${l + 1}`),
      colLabels: positions, domain: [0, 1], digits: 0, cellSize: 30,
    });
    const far = WINDOW_T - 1 - reach.indexOf(1);
    $('#window-readout').textContent = `Each layer sees ${window} tokens, its own and ${window - 1} before it; through ${layers} ` +
      `layers the last token reaches ${far} back (${layers} × ${window - 1}${far < layers * (window - 1) ? ', cut by the text\'s start' : ''}).`;
  }

  /** One row of scores through the online softmax, `block` keys at a time. */
  function drawOnline(seed, block) {
    attn.manualSeed(seed + 2);
    const scores = attn.randn(SCORES);
    const scaled = { data: scores.data.map((s) => 3 * s), shape: [SCORES] };
    const t = attn.onlineSoftmax(scaled, { block });
    const steps = Array.from({ length: t.maxima.shape[0] }, (_, s) => `${s + 1}`);
    bars(fig('running-max'), t.maxima.data, { title: 'The running maximum m after each step', labels: steps, digits: 2 });
    bars(fig('running-sum'), t.sums.data, { title: 'The running sum l = Σ e^(ω − m) after each step', labels: steps, digits: 2 });
    const full = attn.softmax(scaled).data;
    bars(fig('online-weights'), t.weights.data, { title: 'e^(ω − m) / l at the end: the weights', labels: Array.from({ length: SCORES }, (_, j) => `k${j + 1}`),
      domain: WEIGHTS_DOMAIN, digits: 2, ghost: full, ghostLabel: 'softmax of the whole row' });
    const largest = Math.max(...Array.from(t.weights.data, (w, j) => Math.abs(w - full[j])));
    const readout = $('#online-readout');
    readout.dataset.largest = String(largest);
    readout.textContent = `${steps.length} steps of ${block} key${block > 1 ? 's' : ''}: whenever a step raises the maximum, the sum so ` +
      `far is multiplied by e^(m_old − m_new). The weights equal the softmax of the whole row (largest difference ${largest === 0 ? '0' : largest.toExponential(1)}), ` +
      'and no step held more than its block of scores.';
  }

  /**
   * Attention sinks: the share of each head's weight on the text's first token, in chapter 8's model on a sentence
   * of the kind it was trained on: the mean of w[i][0] over the queries after the first, each layer's maps from
   * attn.layerAttention (as summarizeHeads' firstToken measures it; a model this small is read on the page).
   */
  async function drawSinks() {
    const { model, tokenizer } = await attn.loadDefaultModel({ url: shippedModelUrl });
    try {
      const text = SINKS_TEXT;
      const ids = tokenizer.encode(text);
      const T = ids.length;
      const { nLayer: L, nHead: H } = model.config;
      const first = new Float32Array(L * H);
      for (let l = 0; l < L; l++) {
        const maps = attn.layerAttention(model, ids, l).data; // (H, T, T)
        for (let h = 0; h < H; h++) {
          let sum = 0;
          for (let i = 1; i < T; i++) sum += maps[(h * T + i) * T];
          first[l * H + h] = sum / (T - 1);
        }
      }
      const names = Array.from({ length: L * H }, (_, k) => `L${Math.floor(k / H) + 1}.h${(k % H) + 1}`);
      bars(fig('sinks'), first, { title: `Each head's weight on the first token, “The”, in chapter 8's model reading “${text}”`,
        labels: names, domain: WEIGHTS_DOMAIN, digits: 2 });
      const top = first.indexOf(Math.max(...first));
      const readout = $('#sinks-readout');
      readout.dataset.head = names[top];
      // Spread evenly, query i (of the T − 1 after the first) would give the first token 1 / (i + 1) of its weight.
      const even = Array.from({ length: T - 1 }, (_, k) => 1 / (k + 2)).reduce((a, b) => a + b, 0) / (T - 1);
      readout.textContent = `${names[top]} puts ${fmt(first[top] * 100, 0)} % of its weight on the first token, on ` +
        `average over the ${T - 1} queries after it; spread evenly over the tokens each query sees, it would be ${fmt(even * 100, 0)} %.`;
    } finally {
      model.dispose();
      tokenizer.dispose();
    }
  }

  const draw = perFrame(() => {
    try {
      const seed = settings.read('seed');
      const t = settings.read('step');
      const window = settings.read('window');
      const layers = settings.read('layers');
      const block = settings.read('block');
      for (const [id, v] of [['step', t], ['window', window], ['layers', layers], ['block', block]]) $(`#${id}-value`).textContent = v === null ? '' : String(v);
      markStale([fig('cache'), fig('step-weights'), $('#cache-readout')], seed === null || t === null);
      markStale([fig('window'), fig('reach'), $('#window-readout')], seed === null || window === null || layers === null);
      markStale([fig('running-max'), fig('running-sum'), fig('online-weights'), $('#online-readout')], seed === null || block === null);
      drawGrouping(modelSelect.value);
      if (seed !== null && t !== null) drawCache(seed, t);
      if (seed !== null && window !== null && layers !== null) drawWindow(seed, window, layers);
      if (seed !== null && block !== null) drawOnline(seed, block);
      report(null);
    } catch (error) {
      report(error);
    }
  });
  for (const name of Object.keys(SETTINGS)) settings.element(name).addEventListener('input', draw);
  const link = linkState({ ...settings.fields }, { restore: draw });
  await link.ready;
  draw();
  await drawSinks();
  await keptSinks(attn, SINKS_TEXT);
  await new Promise(requestAnimationFrame);
});
