// Browser-test harness: serves the built site (dist/) from a plain static
// server under a sub-path, as a project page would be hosted, and drives
// Debian's Chromium headless through playwright-core.
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { mkdirSync, readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { extname, join, normalize } from 'node:path';
import { after, before } from 'node:test';
import { fileURLToPath } from 'node:url';

import { chromium } from 'playwright-core';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const DIST = join(ROOT, 'dist');
export const ARTIFACTS = join(ROOT, 'test-artifacts');
export const SUB_PATH = '/attention-step-by-step/';

const TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript',
  '.mjs': 'text/javascript',
  '.css': 'text/css',
  '.wasm': 'application/wasm',
  '.json': 'application/json',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.safetensors': 'application/octet-stream',
};

/**
 * Serves a folder at http://127.0.0.1:<port><subPath>, with extra response
 * headers (e.g. a Content-Security-Policy): a plain static host. `refuse(path, nth)`
 * true answers the nth request for a path with a 404 instead, for a file that goes missing.
 */
export async function serve(dir, { subPath = '/', headers = {}, refuse = () => false } = {}) {
  const requests = new Map(); // path -> how many times it was asked for, for `refuse(path, nth)` (1 the first time)
  const server = createServer(async (req, res) => {
    const url = new URL(req.url, 'http://localhost');
    const nth = (requests.get(url.pathname) ?? 0) + 1;
    requests.set(url.pathname, nth);
    if (refuse(url.pathname, nth)) {
      res.writeHead(404, { 'cache-control': 'no-store' }).end();
      return;
    }
    if (url.pathname === '/favicon.ico') {
      res.writeHead(204).end(); // what a browser asks every host for; not the page's doing
      return;
    }
    if (!url.pathname.startsWith(subPath)) {
      res.writeHead(404).end();
      return;
    }
    let path = normalize(decodeURIComponent(url.pathname.slice(subPath.length)));
    if (path === '.' || path.endsWith('/')) path = join(path, 'index.html');
    if (path.startsWith('..')) {
      res.writeHead(403).end();
      return;
    }
    try {
      const body = await readFile(join(dir, path));
      res.writeHead(200, { 'content-type': TYPES[extname(path)] ?? 'application/octet-stream', ...headers }).end(body);
    } catch {
      res.writeHead(404).end();
    }
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  return { url: `http://127.0.0.1:${port}${subPath}`, origin: `http://127.0.0.1:${port}`, close: () => server.close() };
}

/** Serves DIST at http://127.0.0.1:<port>/attention-step-by-step/, as a project page is hosted. */
export const serveDist = () => serve(DIST, { subPath: SUB_PATH });

/** The headers that make a page cross-origin isolated (shared memory, so the threaded module), as vite.config.js sends them. */
export const ISOLATION_HEADERS = { 'cross-origin-opener-policy': 'same-origin', 'cross-origin-embedder-policy': 'require-corp' };

export async function launchBrowser() {
  // playwright-core gives every launch a fresh temporary profile.
  return chromium.launch({
    headless: true,
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      // Re-raster whole tiles: a partial raster of a small change (a focus
      // leaving a cell) redraws the rounded corners it cuts with other
      // anti-aliasing, so a page's pixels would depend on its paint history.
      '--disable-partial-raster',
    ],
  });
}

// Each open page's problems, for ready() to report when a page never gets ready.
const recorded = new WeakMap();

/**
 * A page that records console errors, renderer crashes, uncaught exceptions and every request
 * to a host other than `origin`. colorScheme: the system theme the page sees ('light' unless said).
 * serviceWorkers: 'block' unless said, because the site's service worker reloads a page it did not serve
 * once it takes control (to make it cross-origin isolated, page.js), which would cut into a test that reads
 * the page meanwhile; the tests of the service worker itself say 'allow'. contextOptions: more of the context's options
 * (a `proxy` standing in for the Hugging Face Hub, tests/fixtures/hub-proxy.js).
 */
export async function openPage(browser, origin, viewport = { width: 1280, height: 900 },
  { colorScheme = 'light', serviceWorkers = 'block', contextOptions = {} } = {}) {
  const context = await browser.newContext({ viewport, colorScheme, serviceWorkers, ...contextOptions });
  const page = await context.newPage();
  const problems = { consoleErrors: [], pageErrors: [], foreignRequests: [], failedResponses: [], crashes: [] };
  recorded.set(page, problems);
  page.on('crash', () => problems.crashes.push(`the page's renderer crashed at ${page.url()}`));
  page.on('console', (msg) => {
    if (msg.type() === 'error') problems.consoleErrors.push(msg.text());
  });
  page.on('response', (res) => {
    if (res.status() >= 400) problems.failedResponses.push(`${res.status()} ${res.url()}`);
  });
  page.on('pageerror', (err) => problems.pageErrors.push(err.message));
  page.on('request', (req) => {
    const url = req.url();
    // data: and this origin's blob: URLs (a download being made) are not requests to another host
    if (!url.startsWith(origin) && !url.startsWith('data:') && !url.startsWith(`blob:${origin}`)) problems.foreignRequests.push(url);
  });
  return { page, context, problems };
}

/**
 * Serves `dir` (with extra response headers), opens its index page in a fresh
 * context, runs `use(page)` once the page is open (set listeners in `before`),
 * checks the page stayed clean, and closes everything: use's result.
 */
export async function withServedPage(browser, dir, { headers, refuse, before = () => {} } = {}, use) {
  const server = await serve(dir, { headers, refuse });
  const { page, context, problems } = await openPage(browser, server.origin);
  try {
    before(page, problems);
    await page.goto(server.url);
    const result = await use(page, problems);
    assertClean(problems);
    return result;
  } finally {
    await context.close();
    server.close();
  }
}

export function artifactPath(name) {
  mkdirSync(ARTIFACTS, { recursive: true });
  return join(ARTIFACTS, name);
}

/**
 * Waits until the page (opened by openPage) has drawn its figures: <body data-ready="true">. A page whose setup
 * failed (data-ready="error"), or that is not ready in `timeout` ms, fails the test at once with what the page
 * recorded meanwhile (its errors, failed responses, a crashed renderer): a bare selector timeout says none of it.
 */
export async function ready(page, { timeout = 30000 } = {}) {
  let state;
  // A page the service worker reloads into isolation may navigate between finding <body data-ready> and reading
  // it (the worker installs at once): that is read again on the new page, not taken as a failure.
  for (let attempt = 0; ; attempt++) {
    try {
      state = await (await page.waitForSelector('body[data-ready]', { state: 'attached', timeout })).getAttribute('data-ready');
      break;
    } catch (error) {
      if (attempt < 2 && /context was destroyed|navigat/i.test(error.message)) continue;
      state = `not set after ${timeout} ms (${error.message.split('\n')[0]})`;
      break;
    }
  }
  if (state === 'true') return;
  throw new Error(`${page.url()}: data-ready is ${state}; the page recorded ${JSON.stringify(recorded.get(page) ?? 'nothing (not opened by openPage)')}`);
}

/** Opens a page of the site and waits until its figures are drawn. */
export async function load(browser, server, path, viewport, options) {
  const opened = await openPage(browser, server.origin, viewport, options);
  await opened.page.goto(`${server.url}${path}.html`);
  await ready(opened.page);
  return opened;
}

/**
 * Waits until the page has drawn what the latest edit asked for: a redraw may take several frames
 * (components/page.js, perFrame), and <body> has data-drawing until the last.
 */
/** A matrix of a chapter's hero (components/pipeline.js), by the id the chapter gives it: hero('weights'). */
export const hero = (id) => `[data-figure="pipeline"] g.stage[data-id="${id}"]`;
/** One cell of a hero's matrix. */
export const heroCell = (id, row, col) => `${hero(id)} g.cell[data-row="${row}"][data-col="${col}"]`;

export const drawn = (page) => page.waitForSelector('body:not([data-drawing])', { state: 'attached' });

/** Resolves once the page has painted two more frames: what was changed before is drawn. */
export const twoFrames = (page) => page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));

/**
 * Waits until the page is at rest: its fonts loaded, its redraws finished (drawn) and two frames painted since,
 * so that layout and pixels read next are final. What a fixed pause used to wait for, as events.
 */
export async function settled(page) {
  await page.evaluate(() => document.fonts.ready);
  await drawn(page);
  await twoFrames(page);
}

/**
 * Chapter 8 has measured its model's heads (the probe's worker answered) and redrawn what the measurement picks:
 * the head shown in full, the head view's head.
 */
export async function measured(page) {
  await page.waitForSelector('#probe-summary[data-best]');
  await drawn(page);
}

/**
 * Focuses an element for a keyboard check with the pointer parked first on the sticky navigation (the viewport's
 * top-left corner). Focusing scrolls the page, and Chromium then sends pointerover to whatever figure slid under a
 * pointer resting where an earlier click left it; that figure's read-out would race the keyboard's. (CI once read
 * "Layer 1, head 2" from chapter 9's grid after ArrowDown, ArrowRight: the head under the pointer, not the keys'.)
 */
export async function focusForKeys(page, selector) {
  await page.mouse.move(0, 0);
  await page.focus(selector);
}

/** No page error, console error, failed response, request to another host or crash. */
export function assertClean(problems) {
  assert.deepEqual(problems.crashes, []);
  assert.deepEqual(problems.pageErrors, []);
  assert.deepEqual(problems.consoleErrors, []);
  assert.deepEqual(problems.failedResponses, []);
  assert.deepEqual(problems.foreignRequests, []);
}

/**
 * The built site served and Chromium started for the calling test file (in
 * its before/after hooks): {server, browser, load(path, viewport, {colorScheme})}.
 */
export function useSite() {
  const site = { load: (path, viewport, options) => load(site.browser, site.server, path, viewport, options) };
  before(async () => {
    site.server = await serveDist();
    site.browser = await launchBrowser();
  });
  after(async () => {
    await site.browser?.close();
    site.server?.close();
  });
  return site;
}

/** In a page: how many pixels of two PNGs (data URLs) differ by more than `tolerance` in a channel, and their sizes. */
export const comparePngs = (page, a, b, tolerance = 8) => page.evaluate(async ([a, b, tolerance]) => {
  const pixels = async (src) => {
    const image = new Image();
    image.src = src;
    await image.decode();
    const canvas = Object.assign(document.createElement('canvas'), { width: image.width, height: image.height });
    const ctx = canvas.getContext('2d');
    ctx.drawImage(image, 0, 0);
    return { w: image.width, h: image.height, data: ctx.getImageData(0, 0, image.width, image.height).data };
  };
  const [x, y] = [await pixels(a), await pixels(b)];
  let differing = 0;
  for (let k = 0; k < x.data.length; k += 4) {
    if (Math.max(...[0, 1, 2].map((c) => Math.abs(x.data[k + c] - y.data[k + c]))) > tolerance) differing++;
  }
  return { differing, sizes: [[x.w, x.h], [y.w, y.h]] };
}, [a, b, tolerance]);
export const dataUrl = (type, bytes) => `data:${type};base64,${Buffer.from(bytes).toString('base64')}`;

/** Clicks one download (json, csv, svg, png) of the menu of `figure` (a selector); the file's name and bytes, also kept in test-artifacts/. */
export async function download(page, figure, format) {
  const menu = `${figure} > details.figure-export`;
  if (!(await page.$eval(menu, (d) => d.open))) await page.click(`${menu} > summary`);
  const [file] = await Promise.all([page.waitForEvent('download'), page.click(`${menu} button[data-format="${format}"]`)]);
  const path = artifactPath(`export-${file.suggestedFilename()}`);
  await file.saveAs(path);
  return { name: file.suggestedFilename(), bytes: readFileSync(path) };
}

/**
 * An exported SVG file (its text), opened on a page of its own, draws what the figure `selector` of
 * `page` draws: at most 0.2 % of the pixels differ (antialiasing at edges).
 */
export async function assertDrawnAlikeAlone(page, selector, svgText) {
  // the figure as drawn, not as pointed at: the download menu's last click left the pointer over it (a hero then
  // lights the cells under it), and a fading cell must not be caught half-way
  await page.mouse.move(0, 0);
  await page.emulateMedia({ reducedMotion: 'reduce' });
  // the figure without a border around it (the page's frame, not the figure's)
  const original = await page.locator(selector).screenshot({ style: `${selector} { border-width: 0 !important; }` });
  const box = await page.locator(selector).boundingBox();
  const alone = await page.context().newPage();
  // at the same fraction of a pixel as on the page, so that edges fall on the same pixels
  await alone.setContent(`<!doctype html><body style="margin:0"><div style="position:absolute;left:${box.x % 1}px;top:${box.y % 1}px">` +
    `${svgText.replace(/^<\?xml[^>]*>/, '')}</div></body>`);
  const standalone = await alone.locator('svg').first().screenshot();
  const { differing, sizes } = await comparePngs(page, dataUrl('image/png', original), dataUrl('image/png', standalone));
  await alone.close();
  assert.deepEqual(sizes[1], sizes[0], `${selector}: the same size alone`);
  assert.ok(differing <= sizes[0][0] * sizes[0][1] * 0.002, `${selector}: ${differing} pixels differ alone`);
}

/**
 * Makes every IndexedDB open request of `page` stay pending, as a stuck storage backend leaves it: no success, no
 * error, no block. The site's storage deadline (web/site/components/storage-deadline.js) must then draw the page.
 */
export const storageThatNeverAnswers = (page) =>
  page.addInitScript(() => Object.defineProperty(indexedDB, 'open', { value: () => ({}) }));
