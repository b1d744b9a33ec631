// npm run dev: Vite's dev server serves the chapters from source, serves the
// API reference, and rebuilds the WASM module and reloads the page when a C++
// file changes.
import assert from 'node:assert/strict';
import { utimesSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';

import { createServer } from 'vite';

import { assertClean, launchBrowser, openPage, ready } from './harness.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
let server;
let browser;

before(async () => {
  server = await createServer({ configFile: join(ROOT, 'vite.config.js'), logLevel: 'silent', server: { port: 5199 } });
  await server.listen();
  browser = await launchBrowser();
});
after(async () => {
  await browser?.close();
  await server?.close();
});

test('a chapter runs from source, and a C++ change rebuilds the module and reloads it', async () => {
  const origin = server.resolvedUrls.local[0].replace(/\/$/, '');
  const { page, context, problems } = await openPage(browser, origin);
  await page.goto(`${origin}/chapters/2-self-attention.html`);
  await ready(page, { timeout: 60000 });

  const api = await context.request.get(`${origin}/api/interfaces/Attention.html`);
  assert.equal(api.status(), 200);
  assert.match(await api.text(), /softmaxNaive/);

  await page.evaluate(() => { window.beforeRebuild = true; });
  const reloaded = page.waitForEvent('load', { timeout: 300000 });
  const now = new Date();
  utimesSync(join(ROOT, 'cpp/src/softmax.cpp'), now, now); // a save without an edit
  await reloaded;
  await ready(page, { timeout: 60000 });
  assert.equal(await page.evaluate(() => window.beforeRebuild), undefined, 'the page was reloaded');
  assertClean(problems);
  await context.close();
});
