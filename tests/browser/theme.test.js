// The colour theme: the site follows the system's light or dark preference;
// the reader's choice in the navigation overrides it and is kept across pages
// and visits; figures drawn by script (the 3-D view) redraw in the
// new colours, and a downloaded SVG carries the theme it was drawn in.
// (Contrast in both themes is measured with the rest of accessibility, in
// lessons.test.js.)
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { artifactPath, assertClean, download, measured, ready, useSite } from './harness.js';

const site = useSite();
const LIGHT_PAPER = 'rgb(251, 251, 248)';
const DARK_PAPER = 'rgb(21, 22, 28)';

/** The theme switch's pressed button: 'system', 'light' or 'dark'. */
const chosen = (page) => page.$eval('#theme button[aria-pressed="true"]', (b) => b.dataset.theme);
const choose = (page, theme) => page.click(`#theme button[data-theme="${theme}"]`);
const paper = (page) => page.evaluate(() => getComputedStyle(document.documentElement).backgroundColor);
/** The colour three.js cleared the 3-D view with (its SVGRenderer paints the background of its <svg>). */
const viewBackground = (page) => page.$eval('[data-figure="space"] svg.scatter3d', (svg) => getComputedStyle(svg).backgroundColor);

test('the system theme, then the reader\'s choice: kept across pages and visits, figures redrawn', async () => {
  const { page, context, problems } = await site.load('chapters/3-trainable-weights', undefined, { colorScheme: 'dark' });
  assert.equal(await page.getAttribute('html', 'data-theme'), 'dark');
  assert.equal(await paper(page), DARK_PAPER);
  assert.equal(await chosen(page), 'system');
  await page.fill('#d-out', '3');
  await page.waitForSelector('[data-figure="space"] svg.scatter3d');
  assert.equal(await viewBackground(page), DARK_PAPER);
  const svg = (await download(page, '[data-figure="W_query"]', 'svg')).bytes.toString('utf8');
  assert.match(svg, /<rect width="100%" height="100%" fill="rgb\(21, 22, 28\)"/, 'a dark figure downloads on its dark page');
  await page.screenshot({ path: artifactPath('theme-dark-3-trainable-weights.png'), fullPage: true });

  // The reader picks light: the page and the 3-D view turn light at once, and stay light after a reload.
  await choose(page, 'light');
  assert.equal(await page.getAttribute('html', 'data-theme'), 'light');
  assert.equal(await paper(page), LIGHT_PAPER);
  await page.waitForFunction((light) => getComputedStyle(document.querySelector('[data-figure="space"] svg.scatter3d')).backgroundColor === light, LIGHT_PAPER);
  await page.reload();
  await ready(page);
  assert.equal(await page.getAttribute('html', 'data-theme'), 'light');
  assert.equal(await chosen(page), 'light');

  // Another chapter opens light too; its maps' labels follow the theme at once.
  await page.goto(`${site.server.url}chapters/7-language-model.html`);
  await measured(page);
  assert.equal(await paper(page), LIGHT_PAPER);
  const label = () => page.$eval('[data-figure="head-map"] .row-label', (t) => getComputedStyle(t).fill);
  assert.equal(await label(), 'rgb(29, 29, 36)');
  await choose(page, 'dark');
  assert.equal(await label(), 'rgb(228, 228, 236)');
  await page.screenshot({ path: artifactPath('theme-dark-7-language-model.png'), fullPage: true });

  // Back to the system's theme (dark here): the choice is forgotten.
  await choose(page, 'system');
  await page.reload();
  await ready(page);
  assert.equal(await page.getAttribute('html', 'data-theme'), 'dark');
  assert.equal(await page.evaluate(() => localStorage.length), 0);
  await context.close();
  assertClean(problems);
});

test('a system that changes its theme changes the page\'s, unless the reader chose one', async () => {
  const { page, context, problems } = await site.load('index');
  assert.equal(await page.getAttribute('html', 'data-theme'), 'light');
  await page.emulateMedia({ colorScheme: 'dark' });
  await page.waitForFunction(() => document.documentElement.dataset.theme === 'dark');
  await choose(page, 'light');
  await page.emulateMedia({ colorScheme: 'light' });
  await page.emulateMedia({ colorScheme: 'dark' });
  assert.equal(await page.getAttribute('html', 'data-theme'), 'light');
  await context.close();
  assertClean(problems);
});
