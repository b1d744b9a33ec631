// Where order comes from (chapters/positions.js): attention alone gives each word the same output whatever the
// order, until positions are added; RoPE turns a query's and a key's pairs by their positions, so that a score
// depends on their distance only; rope_theta and llama3 scaling set the wavelengths. Numbers checked against the
// library in Node (and against PyTorch in pytorch.test.js and tests/js/positions.test.js).
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';

import { createAttention } from '../../web/lib/index.js';
import { assertClean, drawn, useSite } from './harness.js';

const site = useSite();
let attn;
before(async () => (attn = await createAttention({ threads: 1 })));
after(() => attn?.dispose?.());

/** A heatmap's rows, by row label, in order. */
const rowsOf = (page, figure) => page.$$eval(`[data-figure="${figure}"] g.heatmap-row`, (rows) => rows.map((r) => ({
  word: r.dataset.label, values: [...r.querySelectorAll('g.cell')].map((c) => Number(c.dataset.value)),
})));

test('the same words in another order: each word\'s output only moves; with sinusoidal positions it changes', async () => {
  const { page, context, problems } = await site.load('chapters/positions');
  const largest = async () => {
    const [a, b] = [await rowsOf(page, 'outputs'), await rowsOf(page, 'reordered-outputs')];
    assert.deepEqual(a.map((r) => r.word), ['the', 'dog', 'bit', 'the', 'man']);
    assert.deepEqual(b.map((r) => r.word), ['the', 'man', 'bit', 'the', 'dog']);
    // Each word against the same occurrence of it in the other order.
    const seen = {};
    return Math.max(...a.map((r) => {
      const k = (seen[r.word] = (seen[r.word] ?? -1) + 1);
      const other = b.filter((x) => x.word === r.word)[k];
      return Math.max(...r.values.map((v, c) => Math.abs(v - other.values[c])));
    }));
  };
  const blind = await largest();
  assert.ok(blind < 1e-6, `without positions: ${blind}`);
  assert.equal(Number(await page.getAttribute('#order-readout', 'data-largest')), blind);
  assert.match(await page.textContent('#order-readout'), /Attention alone cannot tell these sentences apart/);
  await page.check('#sinusoidal');
  await page.waitForFunction(() => Number(document.querySelector('#order-readout').dataset.largest) > 1e-3);
  assert.ok((await largest()) > 1e-3);
  // Words that are not the sentence's: said beside the field, the two maps out of date.
  await page.fill('#reordered', 'the cat bit the man');
  const alert = page.locator('.field:has(#reordered) [role="alert"]');
  await alert.waitFor({ state: 'visible' });
  assert.match(await alert.textContent(), /^Use the sentence's words, each as often, in any order/);
  await page.waitForSelector('[data-figure="reordered-outputs"].stale');
  await page.click('#shuffle');
  await page.waitForSelector('[data-figure="reordered-outputs"]:not(.stale)');
  assert.deepEqual((await page.inputValue('#reordered')).split(' ').sort(), ['bit', 'dog', 'man', 'the', 'the']);
  await context.close();
  assertClean(problems);
});

test('RoPE: the dial turns each arrow by its position × the pair\'s frequency; shifting both keeps the score', async () => {
  const { page, context, problems } = await site.load('chapters/positions.html?v=1&pair=2&query_position=30&key_position=2&shift=700&seed=3#');
  const f = attn.ropeFrequencies(16).data[1];
  // The arrows as drawn (y up): the turned ones are the unturned ones turned by 30 f and 2 f.
  const arrows = await page.$$eval('[data-figure="dial"] line.dial-arrow', (lines) => lines.map((l) => ({
    kind: l.classList.contains('query') ? 'q' : 'k', turned: l.classList.contains('turned'),
    angle: Math.atan2(-(l.y2.baseVal.value - l.y1.baseVal.value), l.x2.baseVal.value - l.x1.baseVal.value),
  })));
  const angle = (kind, turned) => arrows.find((a) => a.kind === kind && a.turned === turned).angle;
  const wrap = (x) => Math.atan2(Math.sin(x), Math.cos(x));
  assert.ok(Math.abs(wrap(angle('q', true) - angle('q', false) - 30 * f)) < 0.02, 'the query turned by 30 f');
  assert.ok(Math.abs(wrap(angle('k', true) - angle('k', false) - 2 * f)) < 0.02, 'the key turned by 2 f');
  // The score at (30, 2) and shifted by 700, as the page computes them and as the library does here.
  const [at, shifted] = JSON.parse(await page.getAttribute('#shift-readout', 'data-scores'));
  attn.manualSeed(3);
  const qk = attn.randn(2, 16);
  const score = (m, n) => {
    const q = attn.rope({ data: qk.data.subarray(0, 16), shape: [1, 16] }, { positions: [m] }).data;
    const k = attn.rope({ data: qk.data.subarray(16), shape: [1, 16] }, { positions: [n] }).data;
    return q.reduce((s, v, i) => s + v * k[i], 0);
  };
  assert.ok(Math.abs(at - score(30, 2)) < 1e-6 && Math.abs(shifted - score(730, 702)) < 1e-6);
  assert.ok(Math.abs(at - shifted) < 1e-4, `${at} vs ${shifted}`);
  assert.deepEqual(await page.$$eval('[data-figure="shift-scores"] text.label', (t) => t.map((e) => e.textContent)), ['(30, 2)', '(730, 702)']);
  await context.close();
  assertClean(problems);
});

test('rope_theta and llama3 scaling move the wavelengths: the slow pairs stretch, the fastest stays', async () => {
  const { page, context, problems } = await site.load('chapters/positions');
  const bars = () => page.$$eval('[data-figure="wavelengths"] g.bar', (b) => b.map((e) => Number(e.dataset.value)));
  const expected = (settings) => Array.from(attn.ropeFrequencies(16, settings).data, (f) => Math.log10((2 * Math.PI) / f));
  const close = (a, b) => a.forEach((v, i) => assert.ok(Math.abs(v - b[i]) < 1e-6, `pair ${i + 1}: ${v} vs ${b[i]}`));
  close(await bars(), expected({}));
  assert.ok(Math.abs((await bars())[0] - Math.log10(2 * Math.PI)) < 1e-6, 'pair 1 turns every 2π positions');
  await page.selectOption('#rope-theta', '500000');
  await drawn(page);
  close(await bars(), expected({ ropeTheta: 500000 }));
  const plain = await bars();
  await page.check('#rope-scaling');
  await drawn(page);
  const scaled = await bars();
  close(scaled, expected({ ropeTheta: 500000, ropeScaling: 'llama3' }));
  assert.equal(scaled[0], plain[0], 'the fastest pair is kept');
  assert.ok(Math.abs(scaled[7] - plain[7] - Math.log10(8)) < 1e-5, 'the slowest pair turns 8 times slower');
  assert.match(await page.textContent('#bands-readout'), /8 times slower/);
  // The bands are cos(position × frequency): row 3, pair 1 is cos(3 · 1).
  assert.ok(Math.abs(await page.$eval('[data-figure="bands"] g.heatmap-row[data-row="3"] g.cell[data-col="0"]', (c) => Number(c.dataset.value)) - Math.cos(3)) < 1e-6);
  await context.close();
  assertClean(problems);
});

test('learned positions: chapter 8\'s model\'s wpe compared position by position, as the library computes it', async () => {
  const { page, context, problems } = await site.load('chapters/positions');
  await page.waitForSelector('[data-figure="learned"] svg');
  const drawn = await page.$$eval('[data-figure="learned"] g.cell', (c) => c.map((e) => Number(e.dataset.value)));
  const { model, tokenizer } = await attn.loadDefaultModel();
  const wpe = model.parameter('transformer.wpe.weight');
  model.dispose();
  tokenizer.dispose();
  const [all, C] = wpe.shape;
  const P = Math.min(all, 16);
  assert.equal(drawn.length, P * P);
  const row = (i) => wpe.data.subarray(i * C, (i + 1) * C);
  for (const [i, j] of [[0, 0], [1, 2], [5, 1], [P - 1, 0]]) {
    const cos = row(i).reduce((s, v, c) => s + v * row(j)[c], 0) / (Math.hypot(...row(i)) * Math.hypot(...row(j)));
    assert.ok(Math.abs(drawn[i * P + j] - cos) < 1e-5, `cos(wpe_${i}, wpe_${j}): ${drawn[i * P + j]} vs ${cos}`);
  }
  assert.match(await page.textContent('#learned-readout'), /^Neighbouring positions' vectors are alike \(mean cos 0\.\d\d\)/);
  await context.close();
  assertClean(problems);
});
