// Chapter 11 in Chromium: its maps are the library's numbers for the shipped induction model (computed here in
// Node with the JS API on the same file), with the induction stripe where the repeat says; a traced weight leads
// back through the previous-token head; switching that head off dissolves the stripe and loses what the repeat
// gave; the snapshots replay the phase change; a short live run trains, measures and hands its model over.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { before, test } from 'node:test';

import { createAttention } from '../../web/lib/index.js';
import { assertClean, ready, useSite } from './harness.js';

const site = useSite();
const LETTERS = 'xqjzharrypotterlkvbmwharrypotter'; // the chapter's default: "harrypotter" at 4 and again at 21
const FIRST = 4;
const SECOND = 21;
const LENGTH = 11;
let expected;

before(async () => {
  const attn = await createAttention();
  const { model, tokenizer } = await attn.loadDefaultModel({ name: 'induction' });
  const ids = Array.from(tokenizer.encode(LETTERS));
  const s = attn.headScores(model, { batchSize: 16, seed: 0 });
  const argmax = (data, from, n) => Array.from(data.subarray(from, from + n)).reduce((b, v, k, a) => (v > a[b] ? k : b), 0);
  const H = model.config.nHead;
  const previous = argmax(s.previousToken.data, 0, H);
  const induction = argmax(s.prefixMatching.data, H, H);
  const T = ids.length;
  const head = (t, h) => Array.from(t.data.subarray(h * T * T, (h + 1) * T * T));
  const mask = { data: Float32Array.from({ length: 2 * H }, (_, k) => (k === previous ? 0 : 1)), shape: [2, H] };
  const inductionHeads = Array.from(s.prefixMatching.data.subarray(H, 2 * H)).flatMap((v, h) => (v >= 0.3 ? [h] : []));
  expected = {
    previous, induction, T, inductionHeads,
    previousMap: head(attn.layerAttention(model, ids, 0), previous),
    inductionMap: head(attn.layerAttention(model, ids, 1), induction),
    inductionMapOff: head(attn.layerAttention(model, ids, 1, { headMask: mask }), induction),
  };
  model.dispose();
  tokenizer.dispose();
});

/** The values of a heatmap's cells, row by row (masked cells as 0, as the library's weights are). */
const cellValues = (page, figure) => page.$$eval(`[data-figure="${figure}"] g.cell`, (cells) => cells.map((c) => Number(c.dataset.value)));

function assertMap(actual, wanted, what) {
  assert.equal(actual.length, wanted.length, what);
  actual.forEach((v, k) => assert.ok(Math.abs(v - wanted[k]) < 1e-6, `${what} [${Math.floor(k / expected.T)}, ${k % expected.T}]: ${v} vs ${wanted[k]}`));
}

/** Mean weight of the induction stripe: query SECOND + k on key FIRST + k + 1. */
const stripe = (map) => {
  let sum = 0;
  for (let k = 0; k < LENGTH - 1; k++) sum += map[(SECOND + k) * expected.T + FIRST + k + 1];
  return sum / (LENGTH - 1);
};

test('the two heads on the reader\'s letters, one weight traced back, and the previous-token head switched off', async () => {
  const { page, context, problems } = await site.load('chapters/9-induction-heads');
  // The letters box wears the controls' one look (it was an <input> without a type, left unstyled).
  assert.deepEqual(await page.$eval('#sequence', (e) => [e.type, getComputedStyle(e).borderRadius]), ['text', '4px']);
  assert.match(await page.textContent('[data-figure="previous-token-map"]'), new RegExp(`Layer 1, head ${expected.previous + 1}: the previous-token head`));
  assertMap(await cellValues(page, 'previous-token-map'), expected.previousMap, 'previous-token map');
  const induction = await cellValues(page, 'induction-map');
  assertMap(induction, expected.inductionMap, 'induction map');
  assert.ok(stripe(induction) > 0.5, `the stripe's mean weight ${stripe(induction)}`);
  // The repeat's letters are predicted; the rest are guesses.
  const losses = await page.$eval('#copy-losses', (p) => ({ copy: Number(p.dataset.copyLoss), other: Number(p.dataset.otherLoss) }));
  assert.ok(losses.copy < 1.5 && losses.other > 3, JSON.stringify(losses));

  // Trace the weight from the second "p" (query 26) to the "o" after the first "p" (key 10).
  const [query, key] = [SECOND + 5, FIRST + 6];
  await page.click(`[data-figure="induction-map"] g.cell[data-row="${query}"][data-col="${key}"]`);
  await page.waitForFunction(() => document.querySelector('#composition').textContent.length > 0);
  const composition = await page.textContent('#composition');
  assert.match(composition, /^Query “p” \(position 27\) gives key “o” \(position 11\)/);
  assert.match(composition, /attended most to “p” \(position 10\)/);
  assert.match(composition, /a prefix match, and the letter it copies is the key’s own, "o"\./);
  assert.equal(await page.getAttribute('#composition', 'data-moved-from'), String(key - 1));
  assert.equal(await page.getAttribute('[data-score-panel]', 'data-query'), String(query));
  await page.waitForURL(/trace=27\.11/);

  // Without the previous-token head the stripe dissolves and the repeat no longer helps.
  await page.check('#previous-off');
  await page.waitForFunction(() => /switched off/.test(document.querySelector('[data-figure="previous-token-map"]').textContent));
  const off = await cellValues(page, 'induction-map');
  assertMap(off, expected.inductionMapOff, 'induction map, previous-token head off');
  assert.ok(stripe(off) < 0.2, `the stripe's mean weight without the previous-token head ${stripe(off)}`);
  const lossOff = Number(await page.getAttribute('#copy-losses', 'data-copy-loss'));
  assert.ok(lossOff > 2.5, `the repeat's loss without the previous-token head: ${lossOff}`);
  assert.match(await page.textContent('#ablation-numbers'), new RegExp(`with layer 1's head ${expected.previous + 1} switched off`));
  await page.waitForURL(/previous_off=1/);
  // The trace does not go through a head that is off (it said the key "attended most to" a letter, with 0.000 of its weight).
  await page.waitForFunction(() => /is switched off/.test(document.querySelector('#composition').textContent));
  const traceOff = await page.textContent('#composition');
  assert.match(traceOff, new RegExp(`^Query “p” \\(position 27\\) gives key “o” \\(position 11\\) \\d\\.\\d{3} of its attention\\. Layer 1's previous-token head \\(head ${expected.previous + 1}\\) is switched off`));
  assert.doesNotMatch(traceOff, /attended most/);
  assert.equal(await page.getAttribute('#composition', 'data-moved-from'), null);

  // A letter the model does not know is refused beside the input, and the figures are marked stale.
  await page.fill('#sequence', 'harry potter');
  const alert = page.locator('.field:has(#sequence) [role="alert"]');
  await alert.waitFor({ state: 'visible' });
  assert.match(await alert.textContent(), /remove " "/);
  assert.equal(await page.$eval('[data-figure="induction-map"]', (f) => f.classList.contains('stale')), true);
  await context.close();
  assertClean(problems);
});

test('the chapter names every induction head measured, and says when a repeat is too short for this model', async () => {
  const { page, context, problems } = await site.load('chapters/9-induction-heads');
  assert.ok(expected.inductionHeads.length >= 1);
  assert.equal(await page.getAttribute('#heads-found', 'data-heads'), expected.inductionHeads.join(','));
  const found = await page.textContent('#heads-found');
  for (const h of expected.inductionHeads) assert.match(found, new RegExp(`head ${h + 1}\\b`));
  // The default's repeat is 11 letters: no warning. "abcdef" twice is 6, under the 8 the model trained on.
  assert.equal(await page.getAttribute('#copy-losses', 'data-repeat'), String(LENGTH));
  assert.doesNotMatch(await page.textContent('#copy-losses'), /copies shorter ones weakly/);
  await page.fill('#sequence', 'abcdefabcdef');
  await page.waitForFunction(() => document.querySelector('#copy-losses').dataset.repeat === '6');
  assert.match(await page.textContent('#copy-losses'), /Your longest repeat is 6 letters; this model learned on repeats of 8 to 10 and copies shorter ones weakly/);
  await context.close();
  assertClean(problems);
});

test('the phase change: replayed from the snapshots, and trained live for a short run', async () => {
  const { page, context, problems } = await site.load('chapters/9-induction-heads');
  await page.waitForFunction(() => document.querySelector('#snapshot-numbers').dataset.step !== undefined);
  const at = async (k) => {
    await page.$eval('#snapshot', (el, v) => {
      el.value = String(v);
      el.dispatchEvent(new Event('input', { bubbles: true }));
    }, k);
    await page.waitForFunction((step) => document.querySelector('#snapshot-numbers').dataset.step === String(step),
      JSON.parse(readFileSync(new URL('../../web/site/public/induction/index.json', import.meta.url), 'utf8')).steps[k]);
    return Number(await page.getAttribute('#snapshot-numbers', 'data-second-repeat-loss'));
  };
  const [before, after] = [await at(0), await at(15)];
  assert.ok(before > 3.2 && after < 1.2, `the second copy's loss at the first and last snapshots: ${before}, ${after}`);
  const change = Number(await page.getAttribute('[data-figure="snapshot-losses"]', 'data-phase-change-step'));
  assert.ok(change > 0 && change < 1500, `phase change at ${change}`);
  // Both charts mark the phase change and the step the slider shows (the last snapshot's, here).
  const last = JSON.parse(readFileSync(new URL('../../web/site/public/induction/index.json', import.meta.url), 'utf8')).steps[15];
  for (const chart of ['snapshot-losses', 'snapshot-scores']) {
    const marks = await page.$$eval(`[data-figure="${chart}"] g.mark`, (g) => g.map((e) => [e.getAttribute('class'), Number(e.dataset.x), e.textContent]));
    assert.deepEqual(marks, [['mark mark-phase', change, `phase change, step ${change}`], ['mark mark-step', last, `shown: step ${last}`]]);
  }
  assert.equal(await page.locator('[data-figure="snapshot-induction-map"] g.cell').count(), LETTERS.length ** 2);

  // A live run of 100 steps: measured every 25, and its model can replace the shipped one in the views.
  await page.fill('#train-iters', '100');
  await page.click('#train');
  await page.waitForFunction(() => document.querySelector('#train-status').dataset.done === 'true', null, { timeout: 60000 });
  assert.match(await page.textContent('#train-status'), /^Done: 100 steps\./);
  assert.equal(await page.locator('[data-figure="live-losses"] svg path.line').count() >= 2, true);
  // The run's two heads were drawn on the reader's letters at its last measurement, step 100.
  for (const [figure, layer] of [['live-previous-map', 1], ['live-induction-map', 2]]) {
    await page.waitForFunction((f) => / at step 100:/.test(document.querySelector(`[data-figure="${f}"] .heatmap-title`)?.textContent ?? ''), figure);
    assert.match(await page.textContent(`[data-figure="${figure}"] .heatmap-title`), new RegExp(`^Layer ${layer}, head \\d at step 100: the`));
    assert.equal(await page.locator(`[data-figure="${figure}"] g.cell`).count(), LETTERS.length ** 2);
  }
  await page.click('#use-trained');
  await page.waitForFunction(() => document.body.dataset.inductionModel === 'trained');
  const [file] = await Promise.all([page.waitForEvent('download'), page.click('#download-trained')]);
  const attn = await createAttention();
  const { model, iter } = attn.loadCheckpoint(new Uint8Array(readFileSync(await file.path())));
  assert.equal(iter, 100);
  assert.equal(model.config.attnOnly, true);
  model.dispose();
  await page.click('#use-shipped');
  await page.waitForFunction(() => document.body.dataset.inductionModel === 'shipped');
  // The run is kept in this browser: after a reload it can be used again.
  await page.reload();
  await ready(page);
  assert.match(await page.textContent('#train-status'), /^Your last run \(seed 1337, 100 of 100 steps, .*\) is kept in this browser/);
  assert.equal(await page.isEnabled('#use-trained'), true);
  await page.click('#use-trained');
  await page.waitForFunction(() => document.body.dataset.inductionModel === 'trained');
  await context.close();
  assertClean(problems);
});
