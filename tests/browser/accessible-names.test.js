// Every control of every page has a name in the accessibility tree, read as a screen reader gets it (Playwright's
// ARIA snapshot of the page), not only as axe checks it: the factor slider's <label> once wrapped an <output>, so
// its name carried the value and read as the output's. Controls opened later (menus, disclosures) are named by
// the same markup.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { assertClean, useSite } from './harness.js';

const site = useSite();
const PAGES = ['index', 'chapters/1-why-attention', 'chapters/2-self-attention', 'chapters/3-trainable-weights', 'chapters/4-scaling',
  'chapters/5-masking', 'chapters/6-multi-head', 'chapters/7-language-model', 'chapters/8-your-model', 'chapters/9-induction-heads'];
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
