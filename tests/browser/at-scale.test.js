// Attention at scale (chapters/at-scale.js): the KV cache's step equals the whole recomputation; the calculator's
// caches are the library's for the six configs; the grouping figure wires each query head to head h ÷ group; a
// sliding window's band and reach; the online softmax's weights equal the softmax.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';

import { createAttention } from '../../web/lib/index.js';
import { MODELS } from '../../web/site/chapters/at-scale/configs.js';
import { assertClean, drawn, useSite } from './harness.js';

const site = useSite();
let attn;
before(async () => (attn = await createAttention({ threads: 1 })));
after(() => attn?.dispose?.());

const barValues = (page, figure) => page.$$eval(`[data-figure="${figure}"] g.bar`, (b) => b.map((e) => Number(e.dataset.value)));

test('the KV cache: each token one row against the keys kept, equal to recomputing; the online softmax equal to the softmax', async () => {
  const { page, context, problems } = await site.load('chapters/at-scale');
  const step = async (t) => {
    const weights = await barValues(page, 'step-weights');
    assert.equal(weights.length, t);
    assert.ok(Math.abs(weights.reduce((a, b) => a + b, 0) - 1) < 1e-5);
    assert.ok(Number(await page.getAttribute('#cache-readout', 'data-largest')) < 1e-6);
    assert.equal(await page.locator('[data-figure="cache"] g.heatmap-row').count(), t, 'one row of keys kept per token so far');
  };
  await step(5);
  await page.locator('#step').fill('8');
  await page.waitForFunction(() => document.querySelectorAll('[data-figure="step-weights"] g.bar').length === 8);
  await step(8);
  for (const block of [3, 1, 12]) {
    await page.locator('#block').fill(String(block));
    await page.waitForFunction((n) => document.querySelectorAll('[data-figure="running-max"] g.bar').length === n, Math.ceil(12 / block));
    assert.ok(Number(await page.getAttribute('#online-readout', 'data-largest')) < 1e-6);
    const maxima = await barValues(page, 'running-max');
    maxima.slice(1).forEach((m, s) => assert.ok(m >= maxima[s], 'the running maximum never falls'));
  }
  await context.close();
  assertClean(problems);
});

test('the calculator: six models\' caches at 1k, 8k and 32k as the library computes them; the heads wired by group', async () => {
  const { page, context, problems } = await site.load('chapters/at-scale');
  const rows = await page.$$eval('#calculator tbody tr', (trs) => trs.map((tr) => ({
    model: tr.dataset.model, bytes: [...tr.querySelectorAll('td')].map((td) => Number(td.dataset.bytes)), link: tr.querySelector('a').href,
  })));
  assert.deepEqual(rows.map((r) => r.model), MODELS.map((m) => m.name));
  rows.forEach((r, k) => {
    const { config, source } = MODELS[k];
    assert.deepEqual(r.bytes.slice(0, 4), [1, 1024, 8192, 32768].map((T) => 2 * attn.kvCacheNumbers(config, T)), r.model);
    assert.equal(r.link, source);
  });
  // Four times the tokens, four times the cache; but Gemma-3-270M's sliding layers stop growing at 512 tokens.
  for (const r of rows) {
    const ratio = r.bytes[3] / r.bytes[2];
    if (r.model === 'Gemma-3-270M') assert.ok(ratio < 3.5, `${r.model}: ${ratio}`);
    else assert.equal(ratio, 4, r.model);
  }
  await page.selectOption('#model', 'Llama-3.2-1B');
  await page.waitForFunction(() => document.querySelectorAll('[data-figure="grouping"] rect.query-head').length === 32);
  const wiring = await page.$$eval('[data-figure="grouping"] svg', ([svg]) => {
    const kv = [...svg.querySelectorAll('rect.kv-head')].map((r) => r.x.baseVal.value + r.width.baseVal.value / 2);
    return [...svg.querySelectorAll('line.reads')].map((l) => kv.findIndex((x) => Math.abs(x - l.x2.baseVal.value) < 0.5));
  });
  assert.deepEqual(wiring, Array.from({ length: 32 }, (_, h) => Math.floor(h / 4)));
  assert.match(await page.textContent('#grouping-readout'), /with a key\/value head per query head it would be 4\.0 GB, 4\.0 times as much/);
  await context.close();
  assertClean(problems);
});

test('a sliding window: a band of w keys per query, and a reach of layers × (w − 1)', async () => {
  const { page, context, problems } = await site.load('chapters/at-scale');
  for (const [w, layers] of [[4, 3], [2, 4], [5, 1]]) {
    await page.locator('#window').fill(String(w));
    await page.locator('#layers').fill(String(layers));
    await drawn(page);
    await page.waitForFunction((n) => document.querySelectorAll('[data-figure="reach"] g.heatmap-row').length === n, layers);
    const masked = await page.$$eval('[data-figure="window"] g.cell', (c) => c.map((e) => [Number(e.dataset.row), Number(e.dataset.col), e.classList.contains('masked')]));
    for (const [i, j, m] of masked) assert.equal(m, j > i || i - j >= w, `(${i}, ${j}) with a window of ${w}`);
    const reach = await page.$$eval('[data-figure="reach"] g.heatmap-row', (rows) => rows.map((r) => [...r.querySelectorAll('g.cell')].filter((c) => c.dataset.value === '1').length));
    assert.deepEqual(reach, Array.from({ length: layers }, (_, l) => Math.min(12, 1 + (l + 1) * (w - 1))));
  }
  await context.close();
  assertClean(problems);
});

test('attention sinks: each head\'s weight on the first token, as summarizeHeads measures it on chapter 8\'s model (the page reads its maps)', async () => {
  const { page, context, problems } = await site.load('chapters/at-scale');
  await page.waitForSelector('[data-figure="sinks"] svg');
  const shown = await barValues(page, 'sinks');
  const { model, tokenizer } = await attn.loadDefaultModel();
  const s = attn.summarizeHeads(model, tokenizer.encode('The cats, which slept near the dog, purr.'), { thumbnailSize: 0 });
  model.dispose();
  tokenizer.dispose();
  assert.equal(shown.length, s.firstToken.data.length);
  shown.forEach((v, k) => assert.ok(Math.abs(v - s.firstToken.data[k]) < 1e-6, `head ${k}: ${v} vs ${s.firstToken.data[k]}`));
  const top = shown.indexOf(Math.max(...shown));
  const [, H] = s.firstToken.shape;
  assert.equal(await page.getAttribute('#sinks-readout', 'data-head'), `L${Math.floor(top / H) + 1}.h${(top % H) + 1}`);
  await context.close();
  assertClean(problems);
});
