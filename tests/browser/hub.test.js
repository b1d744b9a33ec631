// Models by Hub id in Chromium (web/lib/hub-cache-browser.js), against the local Hub of tests/fixtures/hub-server.js
// on another origin than the page, its LFS files on a third: a page loads a model by id with PyTorch's numbers, and a
// second time from the Cache API with no request at all; the worker of { worker: true } shares that cache; a gated
// model's token reaches the Hub (its preflight allowing Authorization) and is dropped by the browser at the
// redirect to the file host, as the Fetch standard's HTTP-redirect fetch says; an opaque origin, which has no Cache
// API, downloads each time; strings that are no id are refused as in Node.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';

import { launchBrowser, openPage, serve } from './harness.js';
import { filesIn, startHub } from '../fixtures/hub-server.js';
import { familyReferences } from '../fixtures/torch-cache.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const SINGLE = { name: 'qwen3-hub', family: 'qwen3', n_layer: 2, hidden: 32, heads: 4, kv_heads: 2, head_dim: 16, inner: 48, tie: true,
  theta: 1000000.0, rope_parameters: true };
const SHARDS = { name: 'gemma3-hub-shards', family: 'gemma3_text', n_layer: 3, hidden: 32, heads: 4, kv_heads: 1, head_dim: 16, inner: 40,
  window: 4, pattern: 3, local_theta: 10000.0, theta: 1000000.0, query_pre_attn_scalar: 12, rope_parameters: true, shards: 2, dtype: 'BF16' };

let hub;
let site;
let browser;
let dir;
before(async () => {
  dir = familyReferences([SINGLE, SHARDS]);
  const repo = (spec, extra = {}) => {
    const files = { ...filesIn(join(dir, spec.name)), ...extra };
    delete files['expected.json'];
    return files;
  };
  hub = await startHub();
  hub.addRepo('test-org/qwen3', repo(SINGLE, { 'chat_template.jinja': new TextEncoder().encode('{{ messages[0].content }}') }));
  hub.addRepo('test-org/gemma3', repo(SHARDS), { token: 'hf_gemma' });
  // The package's modules as an unbundled page has them, CORS allowed so that an opaque origin may import them.
  const page = mkdtempSync(join(tmpdir(), 'attn-hub-page-'));
  writeFileSync(join(page, 'index.html'), '<!doctype html><meta charset="utf-8"><title>Models by id</title>');
  symlinkSync(join(ROOT, 'web', 'lib'), join(page, 'lib'));
  site = await serve(page, { headers: { 'access-control-allow-origin': '*' } });
  browser = await launchBrowser();
});
after(async () => {
  await browser?.close();
  site?.close();
  await hub?.close();
});

const expected = (spec) => JSON.parse(readFileSync(join(dir, spec.name, 'expected.json'), 'utf8'));
function sameAsTorch(logits, spec) {
  const e = expected(spec);
  const worst = e.logits.reduce((m, x, i) => Math.max(m, Math.abs(x - logits[i])), 0);
  assert.ok(worst <= 1e-4, `logits differ by ${worst}`);
}

/**
 * In a page (or frame) `where`: loads `id` with `options` (in the worker when `worker`), and answers the logits on the
 * reference's ids, the optional files, the progress seen, and the cache's entries.
 */
const loadIn = (where, args) => where.evaluate(async ({ lib, id, options, ids, worker }) => {
  const { createAttention } = await import(lib);
  const key = worker ? '__attnWorker' : '__attn';
  globalThis[key] ??= await createAttention(worker ? { worker: true } : { threads: 1 });
  const attn = globalThis[key];
  const seen = [];
  const { model, tokenizer, files } = await attn.loadPretrained(id, { ...options, onProgress: (p) => seen.push(p) });
  const { logits } = await model.forward(ids);
  await model.dispose();
  await tokenizer.dispose();
  return { logits: Array.from(logits.data), files, seen, cached: await attn.cachedModels({ hubUrl: options.hubUrl }) };
}, { lib: `${site.url}lib/index.js`, worker: false, ...args });

test('a page loads a model by id from the Hub, then from the Cache API with no request; the worker shares the cache', async () => {
  const { page, problems } = await openPage(browser, site.origin);
  try {
    await page.goto(site.url);
    const ids = expected(SINGLE).ids;
    let mark = hub.log.length;
    const first = await loadIn(page, { id: 'test-org/qwen3', options: { hubUrl: hub.url }, ids });
    sameAsTorch(first.logits, SINGLE);
    assert.deepEqual(first.files, { tokenizerConfig: null, generationConfig: null, chatTemplateJinja: '{{ messages[0].content }}', chatTemplateJson: null });
    const total = first.seen.at(-1).total;
    assert.ok(first.seen.every((p, i) => p.total === total && (i === 0 || p.loaded >= first.seen[i - 1].loaded)));
    assert.equal(first.seen.at(-1).loaded, total);
    const requests = hub.since(mark);
    assert.ok(requests.some((r) => r.server === 'cdn' && r.method === 'GET' && r.origin === 'null'), 'the weights came from the file host, redirected');
    assert.equal(first.cached.length, 1);
    assert.deepEqual({ ...first.cached[0], files: undefined }, { id: 'test-org/qwen3', revision: 'main', commit: first.cached[0].commit,
      files: undefined, size: total, folder: null });
    assert.match(first.cached[0].commit, /^[0-9a-f]{40}$/);

    mark = hub.log.length;
    const second = await loadIn(page, { id: 'test-org/qwen3', options: { hubUrl: hub.url }, ids });
    assert.deepEqual(second.logits, first.logits);
    assert.deepEqual(hub.since(mark), [], 'the second load sent no request');
    assert.deepEqual(second.seen.at(-1), { loaded: total, total });
    const inWorker = await loadIn(page, { id: 'test-org/qwen3', options: { hubUrl: hub.url }, ids, worker: true });
    assert.deepEqual(inWorker.logits, first.logits);
    assert.deepEqual(hub.since(mark), [], "the worker read the page's cache");

    // Removed, the model is asked for again.
    const removed = await page.evaluate((hubUrl) => globalThis.__attn.removeCachedModel('test-org/qwen3', { hubUrl }), hub.url);
    assert.equal(removed, true);
    assert.deepEqual(await page.evaluate((hubUrl) => globalThis.__attn.cachedModels({ hubUrl }), hub.url), []);
    mark = hub.log.length;
    sameAsTorch((await loadIn(page, { id: 'test-org/qwen3', options: { hubUrl: hub.url }, ids })).logits, SINGLE);
    assert.ok(hub.since(mark).length > 0);
    assert.deepEqual(problems.pageErrors, []);
    assert.deepEqual(problems.crashes, []);
  } finally {
    await page.context().close();
  }
});

test("a gated model's token reaches the Hub and not the file host it redirects to (Chromium drops Authorization there)", async () => {
  const { page, problems } = await openPage(browser, site.origin);
  try {
    await page.goto(site.url);
    const refused = await page.evaluate(async ({ lib, hubUrl }) => {
      const { createAttention } = await import(lib);
      const attn = await createAttention({ worker: true });
      return attn.loadPretrained('test-org/gemma3', { hubUrl }).then(() => null, (e) => ({ code: e.code, message: e.message }));
    }, { lib: `${site.url}lib/index.js`, hubUrl: hub.url });
    assert.equal(refused.code, 'ERR_ATTN_HUB_AUTH', refused.message);
    const mark = hub.log.length;
    const loaded = await loadIn(page, { id: 'test-org/gemma3', options: { hubUrl: hub.url, accessToken: 'hf_gemma' }, ids: expected(SHARDS).ids, worker: true });
    sameAsTorch(loaded.logits, SHARDS);
    const requests = hub.since(mark);
    const toHub = requests.filter((r) => r.server === 'hub' && r.method !== 'OPTIONS');
    assert.ok(toHub.length > 0 && toHub.every((r) => r.authorization === 'Bearer hf_gemma'), JSON.stringify(toHub));
    assert.ok(requests.some((r) => r.server === 'hub' && r.method === 'OPTIONS' && /authorization/i.test(r.preflightHeaders)), 'the preflight asked for Authorization');
    const toHost = requests.filter((r) => r.server === 'cdn');
    assert.ok(toHost.length >= 2, 'two shards from the file host');
    assert.deepEqual(toHost.filter((r) => r.authorization !== null || /authorization/i.test(r.preflightHeaders ?? '')), []);
    assert.deepEqual(problems.pageErrors, []);
  } finally {
    await page.context().close();
  }
});

test('an opaque origin has no Cache API: it downloads each time, and loads all the same', async () => {
  const { page, problems } = await openPage(browser, site.origin);
  try {
    await page.goto(site.url);
    await page.setContent('<iframe sandbox="allow-scripts" srcdoc="<!doctype html><title>opaque</title>"></iframe>');
    const frame = page.frames().find((f) => f !== page.mainFrame());
    await frame.waitForLoadState();
    assert.equal(await frame.evaluate(() => origin), 'null');
    const ids = expected(SINGLE).ids;
    for (let i = 0; i < 2; i++) {
      const mark = hub.log.length;
      const loaded = await loadIn(frame, { id: 'test-org/qwen3', options: { hubUrl: hub.url }, ids });
      sameAsTorch(loaded.logits, SINGLE);
      assert.deepEqual(loaded.cached, []);
      assert.ok(hub.since(mark, 'cdn').some((r) => r.method === 'GET'), `load ${i + 1} downloaded the weights`);
    }
    assert.deepEqual(problems.pageErrors, []);
  } finally {
    await page.context().close();
  }
});

test('in a browser a string is a folder address (http(s)://, ./, ../, /) or an id; anything else is refused by name', async () => {
  const { page } = await openPage(browser, site.origin);
  try {
    await page.goto(site.url);
    const outcomes = await page.evaluate(async ({ lib, hubUrl }) => {
      const { createAttention } = await import(lib);
      const attn = await createAttention({ threads: 1 });
      const outcome = (source, options = {}) => attn.loadPretrained(source, { hubUrl, ...options }).then(() => 'loaded', (e) => `${e.code}: ${e.message}`);
      return {
        relativeFolder: await outcome('./no-model/', { hubUrl: undefined }),
        bareFolder: await outcome('no-model/'),
        file: await outcome('file:///tmp/model'),
        script: await outcome('javascript:alert(1)'),
        spaces: await outcome('org/my model'),
        cacheDir: await outcome('org/name', { cacheDir: '/tmp' }),
      };
    }, { lib: `${site.url}lib/index.js`, hubUrl: hub.url });
    assert.match(outcomes.relativeFolder, /^ERR_ATTN_INVALID_FILE: loadPretrained: the model folder has no config\.json .* at http:\/\/127\.0\.0\.1:\d+\/no-model\//);
    const notAnId = (what) => new RegExp(`^ERR_ATTN_INVALID_ARGUMENT: loadPretrained: expected a folder address \\(http\\(s\\)://, \\./, \\.\\./ or /\\) or a Hugging Face Hub id.*; this has ${what}, got the string`);
    // A bare name with a "/" at its end is no folder address in a page (those start ./, ../, / or http): named as an id.
    assert.match(outcomes.bareFolder, notAnId('a "/" at its end'));
    assert.match(outcomes.file, notAnId('more than one "/"'));
    assert.match(outcomes.script, notAnId('the character ":"'));
    assert.match(outcomes.spaces, notAnId('the character " "'));
    assert.match(outcomes.cacheDir, /^ERR_ATTN_INVALID_ARGUMENT: loadPretrained: expected no cacheDir in a browser \(models are kept in its Cache API\), got the string "\/tmp"$/);
  } finally {
    await page.context().close();
  }
});
