// The chapters' hero figure (components/pipeline.js): the attention pipeline drawn as one linked figure.
// Pointing at a cell lights up exactly the cells it is made from and feeds, in every matrix; the read-out
// gives the exact numbers, the same ones the chapter's own maps hold; the keyboard reaches every matrix;
// Step and Back show the computation one matrix at a time; the download holds every matrix.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { assertClean, download, focusForKeys, measured, useSite } from './harness.js';

const site = useSite();
const HERO = '[data-figure="pipeline"]';
const stage = (k) => `${HERO} g.stage[data-stage="${k}"]`;
/** The lit cells of each stage, as "row,col" lists. */
const lit = (page) => page.$$eval(`${HERO} g.stage`, (stages) => stages.map((s) =>
  [...s.querySelectorAll('g.cell.lit')].map((c) => `${c.dataset.row},${c.dataset.col}`)));

test('chapter 3: one weight lights its query row, key row, value row, the score row its softmax divides by, and its output row', async () => {
  const { page, context, problems } = await site.load('chapters/3-trainable-weights');
  // Stages: Q, K, Ω, Ω/√d_k, A, V, Z (T = 6, d_out = 2).
  assert.deepEqual(await page.$$eval(`${HERO} .stage-name`, (t) => t.map((e) => e.textContent)), ['Q', 'K', 'Ω', 'Ω / √d_k', 'A', 'V', 'Z']);
  // Ω and Ω / √d_k share one colour scale, as the chapter's own maps do: the scaled map's largest cell is not the
  // top colour, so that the division shows as fading.
  const top = (k) => page.$$eval(`${stage(k)} g.cell`, (c) => c.reduce((a, b) => (Number(b.dataset.value) > Number(a.dataset.value) ? b : a))
    .querySelector('rect').getAttribute('fill'));
  assert.equal(await top(2), 'rgb(103, 0, 31)'); // the diverging scale's end: the largest score is the scale's reach
  assert.notEqual(await top(3), await top(2));
  await page.hover(`${stage(4)} g.cell[data-row="1"][data-col="2"]`);
  // A softmax's output divides by its whole input row: every score of row 1 is lit, not only the weight's own cell.
  const scoreRow = ['1,0', '1,1', '1,2', '1,3', '1,4', '1,5'];
  assert.deepEqual(await lit(page), [['1,0', '1,1'], ['2,0', '2,1'], scoreRow, scoreRow, ['1,2'], ['2,0', '2,1'], ['1,0', '1,1']]);
  assert.equal(await page.$$eval(`${HERO} svg.linking`, (s) => s.length), 1, 'the other cells fade');
  // The read-out is exact: the cells' own numbers, to four digits.
  const weight = Number(await page.getAttribute(`${stage(4)} g.cell[data-row="1"][data-col="2"]`, 'data-value'));
  const score = Number(await page.getAttribute(`${stage(2)} g.cell[data-row="1"][data-col="2"]`, 'data-value'));
  const readout = await page.textContent(`${HERO} .pipeline-readout`);
  assert.ok(readout.startsWith(`A[journey, starts] = ${weight.toFixed(4)}`), readout);
  assert.ok(readout.includes(`Ω ${score.toFixed(4)} → Ω / √d_k ${(score / Math.SQRT2).toFixed(4)} → A ${weight.toFixed(4)}`), readout);

  // A component of a query pairs with the same component of every key, and feeds its row of scores.
  await page.hover(`${stage(0)} g.cell[data-row="3"][data-col="1"]`);
  const fromQuery = await lit(page);
  assert.deepEqual(fromQuery[0], ['3,1'], 'in its own matrix, the cell alone');
  assert.deepEqual(fromQuery[1], ['0,1', '1,1', '2,1', '3,1', '4,1', '5,1']);
  assert.deepEqual(fromQuery[2], ['3,0', '3,1', '3,2', '3,3', '3,4', '3,5']);
  assert.deepEqual(fromQuery[5], [], 'values do not depend on queries');

  // The keyboard: Tab reaches a matrix, arrows move, the read-out follows, Enter pins.
  await focusForKeys(page, `${stage(6)} g.cell[tabindex="0"]`);
  await page.keyboard.press('ArrowDown');
  assert.equal(await page.evaluate(() => document.activeElement.dataset.row), '1');
  assert.match(await page.textContent(`${HERO} .pipeline-readout`), /^Z\[journey, d1\] = \d\.\d{4}/);
  await page.keyboard.press('Enter');
  await page.mouse.move(0, 0);
  await page.keyboard.press('Tab');
  assert.equal(await page.$$eval(`${HERO} g.cell.pinned`, (c) => c.length), 1, 'the pinned cell stays lit when focus leaves');
  assert.match(await page.textContent(`${HERO} .pipeline-readout`), /^Z\[journey, d1\]/);

  // Step through: Back to the first matrix, then forward one at a time; what is not reached yet waits, faded.
  for (let k = 0; k < 6; k++) await page.click(`${HERO} button:text("◀ Back")`);
  assert.equal(await page.$$eval(`${HERO} g.stage.pending`, (s) => s.length), 6);
  assert.match(await page.textContent(`${HERO} .stepper-text`), /^Step 1 of 7: Q/);
  assert.equal(await page.isDisabled(`${HERO} button:text("◀ Back")`), true);
  await page.click(`${HERO} button:text("Step ▶")`);
  await page.click(`${HERO} button:text("Step ▶")`);
  assert.equal(await page.$$eval(`${HERO} g.stage.pending`, (s) => s.length), 4);
  assert.match(await page.textContent(`${HERO} .stepper-text`), /^Step 3 of 7: Ω \(Q Kᵀ\)/);
  await page.click(`${HERO} button:text("Show all")`);
  assert.equal(await page.$$eval(`${HERO} g.stage.pending`, (s) => s.length), 0);

  // Editing the inputs redraws the hero with the chapter's other figures, keeping its step.
  await page.fill('#d-out', '3');
  await page.waitForFunction((sel) => document.querySelectorAll(`${sel} g.stage[data-stage="0"] g.cell`).length === 18, HERO);

  // One download holds every matrix, each under its name.
  const json = JSON.parse((await download(page, HERO, 'json')).bytes.toString('utf8'));
  assert.deepEqual(json.map((m) => m.title.split(':')[0]), ['Q', 'K', 'Ω', 'Ω / √d_k', 'A', 'V', 'Z']);
  assert.deepEqual([json[4].values.length, json[4].values[0].length], [6, 6]);
  assert.equal(json[0].values[0].length, 3);
  await context.close();
  assertClean(problems);
});

// Hovering A[journey, starts] lit Ω[journey, starts] alone, not the row its softmax divides by.
test('chapter 2: a weight lights the whole row of scores its softmax normalises, and a score the whole row of weights it feeds', async () => {
  const { page, context, problems } = await site.load('chapters/2-self-attention');
  assert.deepEqual(await page.$$eval(`${HERO} .stage-name`, (t) => t.map((e) => e.textContent)), ['X', 'Ω', 'A', 'Z']);
  const row = (r) => Array.from({ length: 6 }, (_, c) => `${r},${c}`);
  await page.hover(`${stage(2)} g.cell[data-row="1"][data-col="2"]`);
  const fromWeight = await lit(page);
  assert.deepEqual(fromWeight[1], row(1));
  assert.deepEqual(fromWeight[2], ['1,2']);
  await page.hover(`${stage(1)} g.cell[data-row="3"][data-col="0"]`);
  const fromScore = await lit(page);
  assert.deepEqual(fromScore[1], ['3,0']);
  assert.deepEqual(fromScore[2], row(3));
  await context.close();
  assertClean(problems);
});

test('chapter 5: masked scores read as masked, get a weight of exactly 0, and the output row mixes only visible values', async () => {
  const { page, context, problems } = await site.load('chapters/5-masking');
  const names = await page.$$eval(`${HERO} .stage-name`, (t) => t.map((e) => e.textContent));
  assert.deepEqual(names, ['Q', 'K', 'Ω / √d_k', 'M', 'Ω + M', 'A', 'V', 'Z']);
  // Causal: "Your" (row 0) sees itself alone; its masked scores read as the fill the softmax receives.
  const row0 = await page.$$eval(`${stage(4)} g.cell[data-row="0"] text`, (t) => t.map((e) => e.textContent));
  assert.match(row0[0], /^\d\.\d\d$/);
  assert.deepEqual(row0.slice(1), Array(5).fill('−∞'));
  assert.deepEqual(await page.$$eval(`${stage(4)} g.cell[data-row="0"]`, (c) => c.map((e) => e.classList.contains('masked'))), [false, true, true, true, true, true]);
  assert.deepEqual(await page.$$eval(`${stage(5)} g.cell[data-row="0"]`, (c) => c.map((e) => Number(e.dataset.value))), [1, 0, 0, 0, 0, 0]);
  // Pointing at a masked weight lights the key's value row, and the read-out says it is masked upstream.
  await page.hover(`${stage(5)} g.cell[data-row="0"][data-col="3"]`);
  assert.match(await page.textContent(`${HERO} .pipeline-readout`), /A\[Your, with\] = 0\.0000.*Ω \+ M masked → A 0\.0000/);
  await context.close();
  assertClean(problems);
});

test('chapter 8: the text flows up through the blocks; each curve is a weight of the maps below, the bars are the next-token guesses', async () => {
  const { page, context, problems } = await site.load('chapters/7-language-model');
  await measured(page);
  const FLOW = '[data-figure="flow"]';
  assert.deepEqual(await page.$$eval(`${FLOW} .stage-name`, (t) => t.map((e) => e.textContent)), ['embed', 'block 1', 'block 2', 'next token']);
  // Block 2's curves are the last row of each layer-2 head's map (weights ≥ 0.05): the subject head's is the one shown in full.
  const lastRow = await page.$$eval('[data-figure="head-map"] g.cell[data-row="8"]', (c) => c.map((e) => Number(e.dataset.value)));
  const curves = await page.$$eval(`${FLOW} g.stage[data-stage="2"] path.read`, (p) => p.map((e) => ({ w: Number(e.dataset.weight), colour: e.getAttribute('stroke') })));
  const subject = curves.filter((c) => c.colour === 'var(--head-8)').map((c) => c.w);
  assert.deepEqual(subject, lastRow.filter((w) => w >= 0.05));
  // The bars are the five likeliest next tokens, in the order the page lists them.
  const top = JSON.parse(await page.getAttribute('#probe-next', 'data-top'));
  assert.deepEqual(await page.$$eval(`${FLOW} .bar-label`, (t) => t.map((e) => e.textContent)), top.map((p) => p.trim()));
  // Stepping: from the embeddings up, the sentence naming where each head of the block looks.
  for (let k = 0; k < 3; k++) await page.click(`${FLOW} button:text("◀ Back")`);
  assert.match(await page.textContent(`${FLOW} .stepper-text`), /^Step 1 of 4: Embeddings: each of the 9 tokens becomes a vector/);
  assert.equal(await page.$$eval(`${FLOW} g.stage.pending`, (s) => s.length), 3);
  await page.click(`${FLOW} button:text("Step ▶")`);
  await page.click(`${FLOW} button:text("Step ▶")`);
  assert.match(await page.textContent(`${FLOW} .stepper-text`), /^Step 3 of 4: Block 2: from “,”, head 1 .*head 4 “ cats” \d\.\d\d/);
  // A head switched off reads nothing: its curves go, and the sentence says so.
  await page.click('#head-switches input[data-layer="1"][data-head="3"]');
  await page.waitForFunction((sel) => document.querySelector(`${sel} .stepper-text`).textContent.includes('(switched off)'), FLOW);
  assert.equal(await page.$$eval(`${FLOW} g.stage[data-stage="2"] path.read[stroke="var(--head-8)"]`, (p) => p.length), 0);
  assert.ok(await page.$$eval(`${FLOW} g.stage[data-stage="2"] path.read`, (p) => p.length) > 0, 'the other heads still read');
  await context.close();
  assertClean(problems);
});
