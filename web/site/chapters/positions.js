// Where order comes from: attention alone is blind to order (the same words reordered give the same outputs,
// moved); the sinusoidal positions of "Attention Is All You Need" (§3.5) added to the embeddings tell orders
// apart; RoPE (RoFormer, §3.4) turns each pair of a query's and a key's dimensions by position × the pair's
// frequency instead, so that a score depends on the distance only; θ and llama3 scaling set the wavelengths.
// Every number is the library's: attn.Embedding, SelfAttentionV1, sinusoidalPositions, rope, ropeFrequencies.
import './attention-today.css';

import { bars } from '../components/bars.js';
import { chapter } from '../components/chapter.js';
import { sharedDomain } from '../components/colour-scales.js';
import { controls } from '../components/controls.js';
import { heatmap } from '../components/heatmap.js';
import { markStale, showProblem } from '../components/inputs.js';
import { linkState } from '../components/link-state.js';
import { perFrame, report } from '../components/page.js';
import { pytorchPanel } from '../components/pytorch-panel.js';
import { rotationDial } from '../components/rotation-dial.js';
import { dims } from './journey.js';
import { positions as script } from './pytorch.js';
import { POSITIONS as SETTINGS } from './settings.js';
import shippedModelUrl from '../../lib/models/agreement.safetensors?url';

const D_MODEL = 8; // the sentence's embeddings
const HEAD = 16; // the query's and the key's dimensions: 8 pairs
const BANDS = 32; // the positions the bands figure draws
const MAX_WORDS = 16;

const wordsOf = (text) => text.trim().split(/\s+/).filter(Boolean);
const dot = (a, b) => a.reduce((s, v, i) => s + v * b[i], 0);
const fmt = (v, digits = 4) => v.toFixed(digits).replace('-', '−');

/** For each word of `a`, the row of `b` holding the same occurrence of the same word (the k-th “the” to the k-th). */
function matchRows(a, b) {
  const seen = new Map();
  return a.map((w) => {
    const k = seen.get(w) ?? 0;
    seen.set(w, k + 1);
    return b.reduce((found, x, j) => (found.length <= k && x === w ? [...found, j] : found), []).at(k);
  });
}

chapter(async (attn) => {
  const $ = (sel) => document.querySelector(sel);
  const fig = (id) => $(`[data-figure="${id}"]`);
  const settings = controls(SETTINGS);
  const pytorch = pytorchPanel($('[data-pytorch]'));
  const orderFigures = [fig('outputs'), fig('reordered-outputs'), $('#order-readout')];
  // llama3 scaling's settings as a model config has them by default (the config list states them once).
  const { ropeFactor: factor, ropeOriginalContext: L, ropeLowFreqFactor: low, ropeHighFreqFactor: high } =
    attn.nanoGPTConfig({ vocabSize: 1, blockSize: 1, nLayer: 1, nHead: 1, nEmbd: 2 });

  /** The two orders' outputs, and what tells them apart; false while a sentence is refused. */
  function drawOrder(seed, sinusoidal) {
    const a = wordsOf($('#sentence').value);
    const b = wordsOf($('#reordered').value);
    const sorted = (w) => [...w].sort().join(' ');
    showProblem($('#sentence'), a.length === 0 ? 'Type a sentence: at least one word.'
      : a.length > MAX_WORDS ? `At most ${MAX_WORDS} words; this one has ${a.length}.` : '');
    const same = a.length > 0 && a.length <= MAX_WORDS && sorted(a) === sorted(b);
    showProblem($('#reordered'), same || a.length === 0 || a.length > MAX_WORDS ? ''
      : `Use the sentence's words, each as often, in any order (${a.length} words: ${sorted(a)}).`);
    const ok = same && seed !== null;
    markStale(orderFigures, !ok);
    if (!ok) return null;
    const vocab = [...new Set(a)].sort();
    attn.manualSeed(seed);
    const embed = new attn.Embedding(vocab.length, D_MODEL);
    const sa = new attn.SelfAttentionV1(D_MODEL, D_MODEL);
    try {
      const pe = sinusoidal ? attn.sinusoidalPositions(a.length, D_MODEL) : null;
      const input = (words) => {
        const x = embed.forward(words.map((w) => vocab.indexOf(w)));
        return pe ? { data: x.data.map((v, i) => v + pe.data[i]), shape: x.shape } : x;
      };
      const za = sa.forward(input(a)).context;
      const zb = sa.forward(input(b)).context;
      const domain = sharedDomain(za, zb);
      const cols = dims(D_MODEL, 'z');
      heatmap(fig('outputs'), za, { title: `Outputs for “${a.join(' ')}”`, rowLabels: a, colLabels: cols, domain, digits: 2, cellSize: 40 });
      heatmap(fig('reordered-outputs'), zb, { title: `Outputs for “${b.join(' ')}”`, rowLabels: b, colLabels: cols, domain, digits: 2, cellSize: 40 });
      const rows = matchRows(a, b);
      let largest = 0;
      rows.forEach((j, i) => {
        for (let c = 0; c < D_MODEL; c++) largest = Math.max(largest, Math.abs(za.data[i * D_MODEL + c] - zb.data[j * D_MODEL + c]));
      });
      const readout = $('#order-readout');
      readout.dataset.largest = String(largest);
      readout.textContent = largest < 1e-5
        ? `Each word's output is the same vector in both orders, only in another row: the largest difference between a word's two ` +
          `outputs is ${largest === 0 ? '0' : largest.toExponential(1)}${largest === 0 ? '' : ' (float32 rounding: the sums add the same terms in another order)'}. ` +
          'Attention alone cannot tell these sentences apart.'
        : `With positions added, a word's two outputs differ by up to ${fmt(largest, 3)}: the model can now tell the orders apart.`;
      return { a, b, vocab };
    } finally {
      sa.dispose();
      embed.dispose();
    }
  }

  const draw = perFrame(() => {
    try {
      const seed = settings.read('seed');
      const sinusoidal = settings.read('sinusoidal');
      const order = drawOrder(seed, sinusoidal);
      heatmap(fig('sinusoidal'), attn.sinusoidalPositions(MAX_WORDS, D_MODEL), {
        title: `Sinusoidal positions PE (${MAX_WORDS} positions × d = ${D_MODEL})`, rowLabels: Array.from({ length: MAX_WORDS }, (_, p) => String(p)),
        colLabels: dims(D_MODEL, 'd'), domain: [-1, 1], digits: 2, cellSize: 34,
      });
      const pair = settings.read('pair');
      const m = settings.read('query_position');
      const n = settings.read('key_position');
      const shift = settings.read('shift');
      for (const [id, v] of [['pair', pair], ['query-position', m], ['key-position', n]]) $(`#${id}-value`).textContent = v === null ? '' : String(v);
      const rope = { ropeTheta: Number(settings.read('rope_theta')), ropeScaling: settings.read('rope_scaling') ? 'llama3' : 'none' };
      const ok = seed !== null && pair !== null && m !== null && n !== null && shift !== null;
      markStale([fig('dial'), fig('shift-scores'), $('#dial-readout'), $('#shift-readout')], !ok);
      pytorch.update(ok && order ? script({ ...order, seed, sinusoidal, dModel: D_MODEL, head: HEAD, bands: BANDS, m, n, shift, rope, llama3: { factor, low, high, context: L } }) : null);
      drawBands(rope);
      if (!ok) return;
      attn.manualSeed(seed);
      const qk = attn.randn(2, HEAD);
      const q = { data: qk.data.subarray(0, HEAD), shape: [1, HEAD] };
      const k = { data: qk.data.subarray(HEAD), shape: [1, HEAD] };
      const turn = (x, p) => attn.rope(x, { positions: [p], ...rope }).data;
      const score = (qp, kp) => dot(turn(q, qp), turn(k, kp));
      const frequency = attn.ropeFrequencies(HEAD, rope).data;
      const i = pair - 1;
      const h = HEAD / 2;
      const tq = turn(q, m);
      const tk = turn(k, n);
      const at = (v) => [v[i], v[i + h]];
      const wavelength = (2 * Math.PI) / frequency[i];
      rotationDial(fig('dial'), {
        title: `Pair ${pair}: dimensions ${pair} and ${pair + h}, a full turn every ${wavelength < 100 ? wavelength.toFixed(1) : Math.round(wavelength)} positions`,
        query: at(q.data), key: at(k.data), turnedQuery: at(tq), turnedKey: at(tk),
        queryAngle: m * frequency[i], keyAngle: n * frequency[i], labels: { query: `q at ${m}`, key: `k at ${n}` },
      });
      const share = tq[i] * tk[i] + tq[i + h] * tk[i + h];
      const unturned = q.data[i] * k.data[i] + q.data[i + h] * k.data[i + h];
      const readout = $('#dial-readout');
      readout.textContent = `The query turns by ${m} × ${fmt(frequency[i], 4)} rad, the key by ${n} × ${fmt(frequency[i], 4)} rad: ` +
        `between them, (${m} − ${n}) × ${fmt(frequency[i], 4)} = ${fmt((m - n) * frequency[i], 3)} rad. This pair's share of the ` +
        `score is ${fmt(share)} (unturned: ${fmt(unturned)}); the whole score, all ${h} pairs, is q · k = ${fmt(dot(tq, tk))}.`;
      const [before, after] = [score(m, n), score(m + shift, n + shift)];
      bars(fig('shift-scores'), [before, after], {
        title: 'The score q · k, at the positions above and both shifted', labels: [`(${m}, ${n})`, `(${m + shift}, ${n + shift})`], digits: 4,
      });
      const shiftReadout = $('#shift-readout');
      shiftReadout.dataset.scores = JSON.stringify([before, after]);
      shiftReadout.textContent = `At (${m}, ${n}) the score is ${fmt(before)}; shifted by ${shift} to (${m + shift}, ${n + shift}) it is ` +
        `${fmt(after)}: a difference of ${Math.abs(after - before).toExponential(1)}, float32 rounding. Both are the score of ` +
        `a distance of ${m - n}.`;
      report(null);
    } catch (error) {
      report(error);
    }
  });

  /** Each pair's wavelength, and cos(position × frequency) for the first BANDS positions: the bands. */
  function drawBands(rope) {
    const h = HEAD / 2;
    const frequency = attn.ropeFrequencies(HEAD, rope).data;
    const log10 = Array.from(frequency, (f) => Math.log10((2 * Math.PI) / f));
    const pairs = Array.from({ length: h }, (_, i) => `${i + 1}`);
    bars(fig('wavelengths'), log10, { title: 'log₁₀ of each pair\'s wavelength, in positions', labels: pairs, digits: 2 });
    // rope turns (1, 0) of each pair to (cos, sin): the first half of a turned row of ones is cos(position × frequency).
    const ones = { data: new Float32Array(BANDS * HEAD).map((_, k) => (k % HEAD < h ? 1 : 0)), shape: [BANDS, HEAD] };
    const turned = attn.rope(ones, rope).data;
    const cos = Float32Array.from({ length: BANDS * h }, (_, k) => turned[Math.floor(k / h) * HEAD + (k % h)]);
    heatmap(fig('bands'), { data: cos, shape: [BANDS, h] }, {
      title: 'cos(position × frequency): rows are positions, columns pairs', rowLabels: Array.from({ length: BANDS }, (_, p) => String(p)),
      colLabels: pairs, domain: [-1, 1], digits: 2, cellSize: 30,
    });
    const wl = (i) => Math.round((2 * Math.PI) / frequency[i]).toLocaleString('en');
    $('#bands-readout').textContent = `Pair 1 turns fully every ${((2 * Math.PI) / frequency[0]).toFixed(1)} positions: it tells neighbours ` +
      `apart. Pair ${h} turns every ${wl(h - 1)} positions: over a long text its angle still says how far. ` +
      (rope.ropeScaling === 'llama3' ? `llama3 scaling turns every pair whose wavelength passes ${(L / low).toLocaleString('en')} positions ` +
        `(the context the model was first trained for, ÷ ${low}) ${factor} times slower, and blends those between ` +
        `${(L / high).toLocaleString('en')} and ${(L / low).toLocaleString('en')}: the slow pairs reach ${factor} times as far, the fast ones are kept.` : '');
  }

  /**
   * The shipped model's learned positions (chapter 8's model, nanoGPT's wpe): how alike each two positions' vectors
   * are, cos(wpe_i, wpe_j), as the library's X Xᵀ of the rows scaled to length 1.
   */
  async function drawLearned() {
    const { model, tokenizer } = await attn.loadDefaultModel({ url: shippedModelUrl });
    try {
      const wpe = model.parameter('transformer.wpe.weight');
      const [all, C] = wpe.shape;
      const P = Math.min(all, MAX_WORDS); // the first positions: a map that fits a phone with its labels readable
      const unit = Float32Array.from(wpe.data.subarray(0, P * C), (v, k) => {
        const row = wpe.data.subarray(Math.floor(k / C) * C, (Math.floor(k / C) + 1) * C);
        return v / Math.hypot(...row);
      });
      const cos = attn.attentionScores({ data: unit, shape: [P, C] });
      const labels = Array.from({ length: P }, (_, p) => String(p));
      heatmap(fig('learned'), cos, { title: `cos(wpe_i, wpe_j): the first ${P} of the ${all} positions of chapter 8's model (C = ${C})`,
        rowLabels: labels, colLabels: labels, domain: [-1, 1], digits: 2, cellSize: 30 });
      const mean = (d) => {
        let sum = 0;
        for (let i = 0; i + d < P; i++) sum += cos.data[i * P + i + d];
        return sum / (P - d);
      };
      const far = Math.floor(P / 2);
      $('#learned-readout').textContent = `Neighbouring positions' vectors are alike (mean cos ${fmt(mean(1), 2)}); positions ${far} apart ` +
        `much less (${fmt(mean(far), 2)}). Nobody wrote that down: training found it useful.`;
    } finally {
      model.dispose();
      tokenizer.dispose();
    }
  }

  for (const name of Object.keys(SETTINGS)) settings.element(name).addEventListener('input', draw);
  $('#shuffle').addEventListener('click', () => {
    const words = wordsOf($('#sentence').value);
    for (let i = words.length - 1; i > 0; i--) {
      const j = Math.floor(Math.random() * (i + 1));
      [words[i], words[j]] = [words[j], words[i]];
    }
    $('#reordered').value = words.join(' ');
    draw();
    link.record();
  });
  const link = linkState({ ...settings.fields }, { restore: draw });
  await link.ready;
  draw();
  await drawLearned();
  await new Promise(requestAnimationFrame);
});
