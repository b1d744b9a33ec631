// Numbers on demand (components/numbers-switch.js): a chapter opens on pictures, not walls of digits — at most 300
// numbers visible at first — a matrix cell shows its number when pointed at or focused, and the switch in the
// navigation shows every number (kept across pages).
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { assertClean, drawn, focusForKeys, hero, heroCell, useSite } from './harness.js';

const site = useSite();

const CHAPTERS = ['1-why-attention', '2-self-attention', '3-trainable-weights', '4-scaling', '5-masking', '6-multi-head',
  'positions', '7-language-model', '8-your-model', 'at-scale', '9-induction-heads'];
const LIMIT = 300;

/** The numbers a reader sees in the chapter's text and figures (hidden text is not in innerText). */
const visibleNumbers = (page) => page.$eval('main', (m) => (m.innerText.match(/(?<![\p{L}\d.])[−-]?\d+(?:\.\d+)?(?:e[−-]?\d+)?/gu) ?? []).length);
const cellTextShown = (page, selector) => page.$eval(selector, (c) => getComputedStyle(c.querySelector('text.value')).visibility === 'visible');

test(`every chapter opens with at most ${LIMIT} numbers in view; the switch shows them all`, async () => {
  const counts = {};
  for (const chapter of CHAPTERS) {
    const { page, context, problems } = await site.load(`chapters/${chapter}`);
    await drawn(page);
    counts[chapter] = await visibleNumbers(page);
    if (chapter === '3-trainable-weights') {
      const cells = await page.$$eval('main g.cell text.value', (t) => t.length);
      await page.click('#numbers');
      await drawn(page);
      const all = await visibleNumbers(page);
      assert.equal(all, counts[chapter] + cells, `with the switch on: ${all}, off: ${counts[chapter]}, cells: ${cells}`);
      assert.equal(await page.getAttribute('#numbers', 'aria-pressed'), 'true');
      // The choice is kept for the next page, as the theme is.
      await page.goto(page.url().replace('3-trainable-weights', '5-masking'));
      await drawn(page);
      assert.equal(await page.getAttribute('#numbers', 'aria-pressed'), 'true');
      assert.ok(await cellTextShown(page, `${hero('masked-scores')} g.cell`));
    }
    await context.close();
    assertClean(problems);
  }
  for (const [chapter, n] of Object.entries(counts)) assert.ok(n <= LIMIT, `${chapter}: ${n} numbers in view at first`);
});

test('a cell shows its number when pointed at, focused, or lit from the hero figure', async () => {
  const { page, context, problems } = await site.load('chapters/3-trainable-weights');
  const cell = '[data-figure="W_query"] g.heatmap-row[data-row="1"] g.cell[data-col="0"]';
  assert.equal(await cellTextShown(page, cell), false);
  await page.hover(cell);
  assert.equal(await cellTextShown(page, cell), true);
  await page.mouse.move(0, 0);
  assert.equal(await cellTextShown(page, heroCell('weights', 0, 0)), false);
  await focusForKeys(page, `${hero('weights')} g.cell[tabindex="0"]`);
  assert.equal(await cellTextShown(page, `${hero('weights')} g.cell[tabindex="0"]`), true);
  await page.evaluate(() => document.activeElement.blur());
  // Pointing at a weight of the hero lights its score row, and the lit cells show their numbers.
  await page.hover(heroCell('weights', 1, 2));
  const lit = await page.$$eval('[data-figure="pipeline"] g.cell.lit text.value', (t) => t.map((e) => getComputedStyle(e).visibility));
  assert.ok(lit.length >= 6 && lit.every((v) => v === 'visible'), JSON.stringify(lit));
  await context.close();
  assertClean(problems);
});
