// Offline, and nothing downloaded unasked (web/site/service-worker.js): a first visit caches only what its page
// fetched; a page once opened works offline, cross-origin isolated; "Keep every chapter offline" on the index
// keeps the whole site, its size said first.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { hero, ready, useSite } from './harness.js';

const site = useSite();

test('a first visit keeps only what it loads; a page once opened works offline; asked, the whole site does', async () => {
  const { page, context } = await site.load('index', undefined, { serviceWorkers: 'allow' });
  // The service worker takes control and the page reloads into isolation (tests/browser/isolation.test.js).
  await page.waitForFunction(() => window.crossOriginIsolated, null, { timeout: 30000 });
  await ready(page);
  // Nothing downloaded unasked: the cache holds what the index fetched (it once precached the whole build, 8.9 MB).
  const cached = () => page.evaluate(async () => {
    let bytes = 0;
    for (const key of await caches.keys()) {
      const cache = await caches.open(key);
      for (const request of await cache.keys()) bytes += (await (await cache.match(request)).arrayBuffer()).byteLength;
    }
    return bytes;
  });
  const first = await cached();
  assert.ok(first < 3e6, `a first visit cached ${first} bytes`);
  // A chapter opened once works offline, cross-origin isolated.
  await page.goto(`${site.server.url}chapters/2-self-attention.html`);
  await ready(page);
  await context.setOffline(true);
  await page.reload();
  await ready(page);
  assert.equal(await page.locator(`${hero('weights')} g.cell`).count(), 36);
  assert.equal(await page.evaluate(() => window.crossOriginIsolated), true);
  // Asked on the index, with its size said first, the service worker keeps every chapter.
  await context.setOffline(false);
  await page.goto(`${site.server.url}index.html`);
  await ready(page);
  await page.waitForSelector('#keep-offline:not([hidden]):not(:disabled)');
  const size = Number(/\((\d+\.\d) MB\)/.exec(await page.textContent('#keep-offline'))[1]);
  await page.click('#keep-offline');
  await page.waitForSelector('#offline-status[data-kept="true"]', { timeout: 60000 });
  assert.ok(Math.abs((await cached()) / 1e6 - size) < 0.2 * size + 1, `kept ${await cached()} bytes, said ${size} MB`);
  await context.setOffline(true);
  // Chapter 11 reads its snapshots from induction/index.json, which the service worker once left out.
  await page.goto(`${site.server.url}chapters/9-induction-heads.html`);
  await ready(page);
  await page.waitForFunction(() => document.querySelector('#snapshot-numbers').dataset.step !== undefined);
  await context.close();
});
