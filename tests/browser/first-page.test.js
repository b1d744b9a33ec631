// The first page (notebook 000's example) in a real Chromium, served
// statically under a sub-path with its Content-Security-Policy in force.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';

import { artifactPath, launchBrowser, openPage, serveDist } from './harness.js';

let server, browser;
before(async () => {
  server = await serveDist();
  browser = await launchBrowser();
});
after(async () => {
  await browser?.close();
  server?.close();
});

const rowValues = (page, figure, row) =>
  page.$$eval(`[data-figure="${figure}"] g.heatmap-row[data-row="${row}"] g.cell text`, (els) => els.map((e) => e.textContent));

test('the page shows notebook 000 numbers and recomputes on edits', async () => {
  const { page, context, problems } = await openPage(browser, server.origin);
  await page.goto(server.url);
  await page.waitForSelector('body[data-ready="true"]', { timeout: 20000 });

  // Without trainable weights: the "journey" row (notebook 000, cell 119).
  assert.deepEqual(await rowValues(page, 'weights', 1), ['0.1385', '0.2379', '0.2333', '0.1240', '0.1082', '0.1581']);
  assert.deepEqual(await rowValues(page, 'context', 1), ['0.4419', '0.6515', '0.5683']);
  // With trainable weights, seed 123 (notebook 000 cell 125, 002 cell 408).
  assert.deepEqual(await rowValues(page, 'queries', 1), ['0.4306', '1.4551']);
  assert.deepEqual(await rowValues(page, 'trainable-weights', 1), ['0.1500', '0.2264', '0.2199', '0.1311', '0.0906', '0.1820']);
  await page.screenshot({ path: artifactPath('first-page-desktop.png'), fullPage: true });

  // Editing x^(2)'s first value changes the weights...
  await page.fill('[data-editor="inputs"] input[data-row="1"][data-col="0"]', '0.9');
  const edited = await rowValues(page, 'weights', 1);
  assert.notDeepEqual(edited, ['0.1385', '0.2379', '0.2333', '0.1240', '0.1082', '0.1581']);
  const sum = edited.reduce((s, v) => s + Number(v), 0);
  assert.ok(Math.abs(sum - 1) < 5e-4, `weights still sum to 1, got ${sum}`);
  // ...and a new seed draws new matrices.
  await page.fill('#seed', '7');
  assert.notDeepEqual(await rowValues(page, 'W_query', 0), ['0.2961', '0.5166']);
  // A value that is not a number is flagged, not propagated.
  await page.fill('[data-editor="inputs"] input[data-row="0"][data-col="0"]', '');
  assert.equal(await page.getAttribute('[data-editor="inputs"] input[data-row="0"][data-col="0"]', 'aria-invalid'), 'true');
  assert.deepEqual(await rowValues(page, 'weights', 1), edited);

  await page.screenshot({ path: artifactPath('first-page-edited.png'), fullPage: true });
  await context.close();
  assert.deepEqual(problems.failedResponses, []);
  assert.deepEqual(problems.consoleErrors, []);
  assert.deepEqual(problems.pageErrors, []);
  assert.deepEqual(problems.foreignRequests, []);
});

test('the page is readable on a 375-px phone', async () => {
  const { page, context, problems } = await openPage(browser, server.origin, { width: 375, height: 812 });
  await page.goto(server.url);
  await page.waitForSelector('body[data-ready="true"]', { timeout: 20000 });
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  assert.ok(overflow <= 0, `no horizontal page scroll, got ${overflow}px`);
  await page.screenshot({ path: artifactPath('first-page-phone.png'), fullPage: true });
  await context.close();
  assert.deepEqual(problems.pageErrors, []);
});
