// "Trace one number" (chapters 3, 5 and 6): choosing a cell of a score or
// weight matrix of the hero, by mouse or keyboard, opens a panel whose numbers
// add up to that cell and to the matrices around it.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { artifactPath, assertClean, focusForKeys, hero, heroCell, useSite } from './harness.js';

const site = useSite();

const cellValue = (page, id, i, j) => page.$eval(heroCell(id, i, j), (e) => Number(e.dataset.value));
const panelNumber = (page, name) => page.getAttribute('[data-score-panel]', `data-${name}`).then(Number);
/** The numbers of one part of the panel's tables: its body rows (text) and its total row. */
const tableRows = (page, part) => page.$$eval(`[data-score-panel] [data-part="${part}"] tr`, (rows) =>
  rows.map((r) => Array.from(r.children, (c) => c.textContent)));
const close = (a, b, tol, what) => assert.ok(Math.abs(a - b) <= tol * Math.max(1, Math.abs(b)), `${what}: ${a} vs ${b}`);

test('chapter 3: a weight traced from q and k to the output, by mouse, by keyboard, and again after an edit', async () => {
  const { page, context, problems } = await site.load('chapters/3-trainable-weights');
  assert.match(await page.textContent('[data-score-panel]'), /^Click a cell/);
  await page.click(heroCell('weights', 1, 2));
  await page.waitForSelector('[data-score-panel][data-score]');
  // The answer comes into view where the reader is: the panel's heading is on screen after the click, below the
  // sticky navigation (not under it).
  await page.waitForFunction(() => {
    const box = document.querySelector('[data-score-panel] :is(h2, h3)').getBoundingClientRect();
    return box.top >= document.querySelector('nav.chapters').getBoundingClientRect().bottom && box.bottom <= window.innerHeight;
  });
  // the products sum to the score map's cell; divided by √d_k, to the scaled map's
  const score = await panelNumber(page, 'score');
  close(score, await cellValue(page, 'scores', 1, 2), 1e-5, 'score');
  close(await panelNumber(page, 'scaled-score'), await cellValue(page, 'scaled-scores', 1, 2), 1e-5, 'scaled score');
  const products = await tableRows(page, 'products');
  const sum = products.slice(1, -1).reduce((a, r) => a + Number(r[3]), 0);
  close(sum, score, 2e-4, 'the products as printed');
  assert.equal(products.at(-1)[3], score.toFixed(4));
  // It reads first as a short worked sum; the tables wait behind a disclosure.
  const worked = await page.textContent('[data-score-panel] [data-part="sum"]');
  assert.ok(worked.startsWith(`q · k = ${products[1][1]} × ${products[1][2]} + ${products[2][1]} × ${products[2][2]} = ${score.toFixed(4)};`), worked);
  assert.equal(await page.$eval('[data-score-panel] details.trace-tables', (d) => d.open), false);
  // the marked bar is the weight clicked; the output row is the context vector of "journey"
  const bar = await page.$eval('[data-score-panel] g.bar.traced', (e) => Number(e.dataset.value));
  close(bar, await cellValue(page, 'weights', 1, 2), 1e-7, 'weight');
  const z = (await tableRows(page, 'mixing')).at(-1).slice(2).map(Number);
  for (let c = 0; c < z.length; c++) close(z[c], await cellValue(page, 'context', 1, c), 1e-4, `z[${c}]`);
  assert.equal(await page.getAttribute(heroCell('weights', 1, 2), 'aria-pressed'), 'true');
  await page.screenshot({ path: artifactPath('3-trace-one-number.png'), fullPage: true });

  // keyboard: from the focused cell, one to the right, Enter
  await focusForKeys(page, `${hero('weights')} g.cell[tabindex="0"]`);
  assert.equal(await page.evaluate(() => `${document.activeElement.dataset.row},${document.activeElement.dataset.col}`), '1,2',
    'the traced cell keeps the matrix\'s tab stop');
  await page.keyboard.press('ArrowRight');
  await page.keyboard.press('Enter');
  await page.waitForSelector('[data-score-panel][data-key="3"]');
  assert.equal(await page.evaluate(() => document.activeElement.dataset.col), '3', 'the keyboard stays on the cell it traced');
  const keyed = await page.getAttribute('[data-score-panel]', 'data-score');
  close(Number(keyed), await cellValue(page, 'scores', 1, 3), 1e-5, 'score of the cell chosen by keyboard');
  // an edit keeps the traced cell and recomputes it (wait on this cell's score: the first cell's had
  // already changed, so waiting on it read the panel before the edit's redraw)
  await page.fill('[data-editor="inputs"] input[data-row="1"][data-col="0"]', '0.9');
  await page.waitForFunction((old) => document.querySelector('[data-score-panel]').dataset.score !== old, keyed);
  close(await panelNumber(page, 'score'), await cellValue(page, 'scores', 1, 3), 1e-5, 'score after the edit');
  await context.close();
  assertClean(problems);
});

test('chapter 5: a masked cell traced: its score is computed, its weight is 0', async () => {
  const { page, context, problems } = await site.load('chapters/5-masking');
  await page.click(heroCell('masked-scores', 1, 3));
  await page.waitForSelector('[data-score-panel][data-score]');
  assert.match(await page.textContent('[data-score-panel] :is(h2, h3)'), /query “journey”, key “with”, a masked key$/);
  assert.equal(await page.$eval('[data-score-panel] g.bar.traced', (e) => Number(e.dataset.value)), 0);
  // the panel shows the score the mask replaced: finite, where the map shows −∞
  assert.ok(Number.isFinite(await panelNumber(page, 'scaled-score')));
  assert.equal(await cellValue(page, 'masked-scores', 1, 3), -Infinity);
  await context.close();
  assertClean(problems);
});

test('chapter 6: a weight of one head traced through that head; another head chosen traces the same cell in it', async () => {
  const { page, context, problems } = await site.load('chapters/6-multi-head');
  await page.click('[data-figure="grid"] g.thumb[data-head="1"]');
  await page.waitForFunction(() => document.querySelector('[data-figure="pipeline"] g.stage[data-id="weights"] .stage-name').textContent === 'A (head 2)');
  await page.click(heroCell('weights', 4, 1));
  await page.waitForSelector('[data-score-panel][data-score]');
  assert.match(await page.textContent('[data-score-panel] :is(h2, h3)'), /query “on”, key “cat”, head 2$/);
  const bar = await page.$eval('[data-score-panel] g.bar.traced', (e) => Number(e.dataset.value));
  close(bar, await cellValue(page, 'weights', 4, 1), 1e-7, 'weight');
  assert.equal((await tableRows(page, 'products')).length, 1 + 3 + 1, 'd_k = 12 / 4 heads = 3 products');
  await page.click('[data-figure="grid"] g.thumb[data-head="2"]');
  await page.waitForFunction(() => / head 3$/.test(document.querySelector('[data-score-panel] :is(h2, h3)')?.textContent));
  close(await page.$eval('[data-score-panel] g.bar.traced', (e) => Number(e.dataset.value)), await cellValue(page, 'weights', 4, 1), 1e-7, 'head 3\'s weight');
  // fewer heads than the traced one: the panel goes back to its hint
  await page.selectOption('#weights', 'seeded');
  await page.selectOption('#num-heads', '1');
  await page.waitForFunction(() => !document.querySelector('[data-score-panel]').dataset.score);
  await context.close();
  assertClean(problems);
});
