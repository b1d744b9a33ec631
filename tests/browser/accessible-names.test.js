// Every control of every page has a name in the accessibility tree, read as a screen reader gets it (Playwright's
// ARIA snapshot of the page), not only as axe checks it: the factor slider's <label> once wrapped an <output>, so
// its name carried the value and read as the output's. Controls opened later (menus, disclosures) are named by
// the same markup.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { assertClean, useSite } from './harness.js';

const site = useSite();
const PAGES = ['index', 'chapters/1-why-attention', 'chapters/2-self-attention', 'chapters/3-trainable-weights', 'chapters/4-scaling',
  'chapters/5-masking', 'chapters/6-multi-head', 'chapters/positions', 'chapters/7-language-model', 'chapters/8-your-model', 'chapters/at-scale',
  'chapters/9-induction-heads'];
const CONTROL = /^\s*- (button|textbox|slider|combobox|checkbox|spinbutton|radio|switch|searchbox|link)\b(?: "([^"]*)")?/gm;

test('every control of every page has an accessible name', async () => {
  const unnamed = [];
  for (const path of PAGES) {
    const { page, context, problems } = await site.load(path);
    const tree = await page.locator('body').ariaSnapshot();
    const controls = [...tree.matchAll(CONTROL)];
    assert.ok(controls.length >= 3, `${path}: ${controls.length} controls in its tree`);
    for (const [line, , name] of controls) if (!name?.trim()) unnamed.push(`${path}: ${line.trim()}`);
    await context.close();
    assertClean(problems);
  }
  assert.deepEqual(unnamed, []);
});

// The factor slider was linear from 0 to 100 (× 1 to × 10 squeezed into a tenth of it), and its <label> wrapped
// an <output>, so its accessible name was the label's text with the value, and d_k's the same.
test('chapters 2, 4 and 5: the sliders are named by their labels and announce the value they stand for', async () => {
  for (const [chapter, name, exponent, said] of [['2-self-attention', 'Scores ×', '1', '× 10'], ['4-scaling', 'Scores ×', '1', '× 10.0'],
    ['4-scaling', 'd_k', '3', '8'], ['5-masking', 'Keys kept (padding)', null, null]]) {
    const { page, context, problems } = await site.load(`chapters/${chapter}`);
    const slider = page.getByRole('slider', { name, exact: true });
    assert.equal(await slider.count(), 1, `${chapter}: one slider named ${name}`);
    if (exponent !== null) {
      await slider.fill(exponent);
      await page.waitForFunction(([el, text]) => document.querySelector(el).getAttribute('aria-valuetext') === text,
        [name === 'd_k' ? '#dk' : '#factor', said]);
    }
    await context.close();
    assertClean(problems);
  }
});
