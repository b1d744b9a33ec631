// npm run dev: Vite's dev server serves the chapters from source, serves the
// API reference, and rebuilds the WASM module and reloads the page when a C++
// file changes. The change is a header the test adds under cpp/ and removes
// afterwards: no tracked file is touched, and no object file goes out of date,
// so the rebuild compiles nothing and leaves every build as it was.
import assert from 'node:assert/strict';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';

import { createServer } from 'vite';

import { assertClean, launchBrowser, openPage, ready } from './harness.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const ADDED = join(ROOT, 'cpp', 'src', 'dev_server_test_added.hpp');
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
  rmSync(ADDED, { force: true }); // once the watcher is closed, so that its removal rebuilds nothing
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
  writeFileSync(ADDED, '// Added by tests/browser/dev-server.test.js, and removed by it.\n#pragma once\n');
  await reloaded;
  await ready(page, { timeout: 60000 });
  assert.equal(await page.evaluate(() => window.beforeRebuild), undefined, 'the page was reloaded');
  assertClean(problems);
  await context.close();
});
