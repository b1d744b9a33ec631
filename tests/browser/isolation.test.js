// The site on every core from a static host: the service worker gives its pages the headers of cross-origin
// isolation, a first visit reloads once into it, and chapter 8 then trains in its worker on the threaded module
// (attn.threads: 2 on this 2-core machine) with the numbers of one thread, bit for bit; the page's policy stays
// strict. A page the service worker does not serve (here: service workers blocked) trains on one thread.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { test } from 'node:test';

import { assertClean, ready, useSite } from './harness.js';

const site = useSite();

/** Trains a small run in chapter 8's worker and returns its thread count and downloaded checkpoint's tensors. */
async function trainAndDownload(page) {
  await page.fill('#layers', '2');
  await page.fill('#train-heads', '4');
  await page.fill('#embd', '64');
  await page.fill('#iters', '15');
  await page.click('#train');
  await page.waitForSelector('body[data-training="done"]', { timeout: 120000 });
  const threads = Number(await page.getAttribute('#train-status', 'data-threads'));
  const [download] = await Promise.all([page.waitForEvent('download'), page.click('#model-list li:nth-child(2) button.download')]);
  const bytes = readFileSync(await download.path());
  // The tensors' bytes: the header also holds the run's name and time, which differ between the two runs.
  const headerLength = Number(bytes.readBigUInt64LE(0));
  return { threads, tensors: bytes.subarray(8 + headerLength), header: JSON.parse(bytes.subarray(8, 8 + headerLength)) };
}

test('a static host\'s page becomes isolated, and trains on every core with the numbers of one thread', async () => {
  const isolated = await site.load('chapters/7-language-model', undefined, { serviceWorkers: 'allow' });
  let loads = 0;
  isolated.page.on('load', () => loads++);
  await isolated.page.waitForFunction(() => window.crossOriginIsolated, null, { timeout: 30000 });
  await ready(isolated.page);
  // One reload into isolation: before site.load returned (the service worker installs at once, now that it
  // precaches nothing) or after it, but one.
  assert.ok(loads <= 1, `${loads} loads after the first`);
  assert.equal(await isolated.page.evaluate(() => performance.getEntriesByType('navigation')[0].type), 'reload');
  // Still the strict policy of the build (no inline script, no eval), under the new headers.
  const policy = await isolated.page.getAttribute('meta[http-equiv="Content-Security-Policy"]', 'content');
  assert.match(policy, /script-src 'self' 'wasm-unsafe-eval';/);
  const threaded = await trainAndDownload(isolated.page);
  assert.equal(threaded.threads, Math.min(availableParallelism(), 8));
  assert.ok(threaded.threads > 1, 'this test needs a machine with more than one core');

  const plain = await site.load('chapters/7-language-model');
  assert.equal(await plain.page.evaluate(() => window.crossOriginIsolated), false);
  const single = await trainAndDownload(plain.page);
  assert.equal(single.threads, 1);

  assert.deepEqual(Object.keys(threaded.header).sort(), Object.keys(single.header).sort());
  assert.ok(threaded.tensors.length > 100000, 'a model of some size');
  assert.ok(threaded.tensors.equals(single.tensors), 'the same weights, bit for bit');
  assertClean(isolated.problems);
  assertClean(plain.problems);
  await isolated.context.close();
  await plain.context.close();
});
