// Chapter 8's sampling figure: the next token's probabilities as the model gives them (outlines) and as the
// temperature and top-k leave them (bars), equal to the library's samplingDistribution computed here in Node on
// the same model and prompt; Generate marks the token it drew.
import assert from 'node:assert/strict';
import { before, test } from 'node:test';

import { createAttention } from '../../web/lib/index.js';
import { assertClean, drawn, useSite } from './harness.js';

const site = useSite();
const PROMPT = 'The cats, which'; // the chapter's default prompt
let expected;

before(async () => {
  const attn = await createAttention();
  const { model, tokenizer } = await attn.loadDefaultModel();
  const ids = tokenizer.encode(PROMPT);
  const V = model.config.vocabSize;
  const { logits } = model.forward([ids]);
  const last = { data: logits.data.slice((ids.length - 1) * V, ids.length * V), shape: [V] };
  const own = attn.samplingDistribution(last).data;
  const top = Array.from(own.keys()).sort((a, b) => own[b] - own[a]).slice(0, 10);
  const at = (options) => { const p = attn.samplingDistribution(last, options).data; return top.map((id) => p[id]); };
  expected = { top, own: top.map((id) => own[id]), t08: at({ temperature: 0.8 }), t2k3: at({ temperature: 2, topK: 3 }) };
  model.dispose();
  tokenizer.dispose();
});

const bars = (page) => page.$$eval('[data-figure="sampling"] g.bar', (g) => g.map((e) => Number(e.dataset.value)));
const ghosts = (page) => page.$$eval('[data-figure="sampling"] g.ghost rect', (r) => r.map((e) => Number(e.dataset.value)));
const close = (a, b) => a.length === b.length && a.every((v, k) => Math.abs(v - b[k]) < 1e-6);

test('chapter 8: the bars move with the temperature and top-k, as the library computes them; Generate marks its draw', async () => {
  const { page, context, problems } = await site.load('chapters/7-language-model');
  await drawn(page);
  // The default temperature, 0.8, over the model's own probabilities.
  assert.ok(close(await bars(page), expected.t08), `${await bars(page)} vs ${expected.t08}`);
  assert.ok(close(await ghosts(page), expected.own), `${await ghosts(page)} vs ${expected.own}`);
  await page.fill('#temperature', '2');
  await page.fill('#top-k', '3');
  await page.waitForFunction(() => document.querySelector('[data-figure="sampling"]').dataset.temperature === '2');
  await drawn(page);
  const cut = await bars(page);
  assert.ok(close(cut, expected.t2k3), `${cut} vs ${expected.t2k3}`);
  assert.equal(cut.filter((p) => p > 0).length, 3);
  // Temperature 0: all on the likeliest token, and that is what Generate draws.
  await page.fill('#top-k', '0');
  await page.fill('#temperature', '0');
  await page.waitForFunction(() => document.querySelector('[data-figure="sampling"]').dataset.temperature === '0');
  await drawn(page);
  assert.deepEqual(await bars(page), [1, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
  await page.click('#generate');
  await page.waitForFunction(() => document.querySelector('#generated').dataset.state === 'done');
  assert.equal(await page.getAttribute('#sampling-drawn', 'data-drawn'), String(expected.top[0]));
  assert.equal(await page.locator('[data-figure="sampling"] g.bar.drawn[data-index="0"]').count(), 1);
  await context.close();
  assertClean(problems);
});
