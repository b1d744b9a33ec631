// Chapter 9 with real models by their Hugging Face Hub id, in Chromium, against the built site under its own
// Content-Security-Policy. The page asks https://huggingface.co for them and follows the Hub's redirects to
// https://cas-bridge.xethub.hf.co itself; a proxy (tests/fixtures/hub-proxy.js) answers those origins from the local
// Hub of hub-server.js, which holds small random models with the real tokenizers of the ids they are served under
// (tests/fixtures/hub-models.js). Checked: nothing is asked of another host before a click; one click downloads with
// progress, can be cancelled, keeps the model, loads it again with no request and forgets it; a gated model needs its
// token, which is never kept; offline, and with the Hub unreachable, the page says so and kept models load; chat turns
// go through the model's template, whose special tokens are tokens of the maps; Generate works with the site's
// defaults; chapter 10 shows a kept model's sinks from the browser alone. Every number is the library's on the same files.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';

import { createAttention } from '../../web/lib/index.js';
import { HUB_MODELS, megabytes, millions } from '../../web/site/chapters/your-model/hub-models.js';
import { hubModels } from '../fixtures/hub-models.js';
import { FILE_HOST, HUB_HOST, startHubProxy } from '../fixtures/hub-proxy.js';
import { startHub } from '../fixtures/hub-server.js';
import { DIST, openPage, ready, settled, useSite } from './harness.js';

const site = useSite();
const QWEN = 'Qwen/Qwen2.5-0.5B-Instruct';
const LLAMA = 'meta-llama/Llama-3.2-1B-Instruct';
const TOKEN = 'hf_test_token_for_llama';
const TEXT = 'The cat sat on the mat. The cat sat on the';
let hub;
let proxy;
let models; // the repositories' files
let attn; // the library in Node, for what the page must show
before(async () => {
  models = hubModels();
  hub = await startHub();
  hub.addRepo(QWEN, models.qwen);
  hub.addRepo(LLAMA, models.llama, { token: TOKEN });
  proxy = await startHubProxy(hub);
  attn = await createAttention({ threads: 1 });
});
after(async () => {
  await proxy?.close();
  await hub?.close();
});

const total = (files) => Object.values(files).reduce((sum, bytes) => sum + bytes.length, 0);
const isHub = (url) => [HUB_HOST, FILE_HOST].includes(new URL(url).hostname);
/** Chapter `path` in a context whose network reaches the Hub's origins through the proxy (and this site directly). */
async function open(path = 'chapters/8-your-model') {
  const opened = await openPage(site.browser, site.server.origin, undefined,
    { contextOptions: { proxy: { server: proxy.server, bypass: '127.0.0.1' }, ignoreHTTPSErrors: true } });
  await opened.page.goto(`${site.server.url}${path}.html`);
  await ready(opened.page);
  return opened;
}
/**
 * Clean but for the Hub: no page error or crash; requests to other hosts only to the Hub's two origins; failed
 * responses only the Hub's answers for optional files the model lacks (and `allowed` ones), with their console lines.
 */
function hubClean(problems, allowed = []) {
  assert.deepEqual(problems.crashes, []);
  assert.deepEqual(problems.pageErrors, []);
  assert.deepEqual(problems.foreignRequests.filter((url) => !isHub(url)), []);
  const expected = (line) => /\/resolve\/main\/(chat_template\.jinja|chat_template\.json|model\.safetensors\.index\.json)$/.test(line) ||
    allowed.some((a) => a.test(line));
  assert.deepEqual(problems.failedResponses.filter((line) => !expected(line)), []);
  assert.ok(problems.consoleErrors.every((line) => /^Failed to load resource: /.test(line)), JSON.stringify(problems.consoleErrors));
}
const button = (id) => `#hub-models li[data-id="${id}"] .hub-load`;
const loaded = (page, timeout = 60000) => page.waitForFunction(() => document.querySelector('#load-status').textContent.startsWith('Loaded'), null, { timeout });
/** Every text #load-status shows from now on, kept in the page as window.statuses. */
const recordStatuses = (page) => page.evaluate(() => {
  const status = document.querySelector('#load-status');
  window.statuses = [];
  new MutationObserver(() => window.statuses.push(status.textContent)).observe(status, { childList: true, characterData: true, subtree: true });
});
/** What the library computes on a repository's files for `text`: its tokens' pieces and each head's previous-token weight. */
async function expectedOn(files, text) {
  const { model, tokenizer } = await attn.loadPretrained(files);
  try {
    const ids = tokenizer.encode(text);
    const s = attn.summarizeHeads(model, ids, { thumbnailSize: 0 });
    return { pieces: ids.map((id) => tokenizer.pieces[id]), previousToken: Array.from(s.previousToken.data), firstToken: Array.from(s.firstToken.data) };
  } finally {
    model.dispose();
    tokenizer.dispose();
  }
}
const tokensShown = (page) => page.$$eval('#tokens .token', (spans) => spans.map((s) => s.textContent));
const tableColumn = (page, k) => page.$$eval('#head-table tbody tr', (rows, k) => rows.map((r) => r.children[k].textContent), k);

test("the site's policy lets pages fetch from the Hub's origins and nothing else of another host", () => {
  const policy = readFileSync(join(DIST, 'chapters/8-your-model.html'), 'utf8').match(/http-equiv="Content-Security-Policy" content="([^"]+)"/)[1]
    .replaceAll('&#39;', "'");
  const directives = Object.fromEntries(policy.split('; ').map((d) => [d.split(' ')[0], d.split(' ').slice(1)]));
  const [self, ...hosts] = directives['connect-src'];
  assert.equal(self, "'self'");
  assert.ok(hosts.length > 0 && hosts.every((h) => /^https:\/\/(?:[\w*-]+\.)*(?:huggingface\.co|hf\.co)$/.test(h)), hosts.join(' '));
  for (const host of [`https://${HUB_HOST}`, `https://${FILE_HOST}`]) {
    assert.ok(hosts.some((h) => h === host || (h.startsWith('https://*.') && host.endsWith(h.slice('https://*'.length)))), `${host} is allowed`);
  }
  // No other directive names another host.
  for (const [name, values] of Object.entries(directives)) if (name !== 'connect-src') assert.ok(values.every((v) => !v.includes('://')), name);
});

test('one click downloads a real model: its size said first, nothing asked before, progress shown; kept, read again with no request, forgotten', async () => {
  const { page, context, problems } = await open();
  await settled(page);
  // Nothing asked of another host before a click: no connection through the proxy, no request of the page's elsewhere.
  assert.deepEqual(proxy.log, []);
  assert.deepEqual(problems.foreignRequests, []);
  // Each button says its parameters and download before it is pressed (hub-models.js, the one table of them).
  assert.deepEqual(await page.$$eval('#hub-models .hub-load', (b) => b.map((e) => e.textContent)),
    HUB_MODELS.map((m) => `${m.name} ${millions(m.parameters)} parameters, ${megabytes(m.download)} to download`));
  assert.deepEqual(await page.$$eval('#hub-models .hub-forget', (b) => b.map((e) => e.hidden)), HUB_MODELS.map(() => true));

  await recordStatuses(page);
  let mark = proxy.log.length;
  await page.click(button(QWEN));
  await loaded(page);
  const expected = await expectedOn(models.qwen, TEXT);
  assert.match(await page.textContent('#load-status'), new RegExp('^Loaded Qwen2\\.5-0\\.5B \\(Qwen/Qwen2\\.5-0\\.5B-Instruct\\): 2 layers of 4 heads ' +
    '\\(reading 2 key/value heads\\), width 32, 512 rotary positions, 151,936 tokens \\(byte-pair encoding\\)'));
  // Progress in bytes of every file, up to their whole size.
  const progress = (await page.evaluate(() => window.statuses)).filter((s) => s.startsWith('Downloading Qwen2.5-0.5B (Qwen/Qwen2.5-0.5B-Instruct): '));
  assert.ok(progress.length >= 2, JSON.stringify(progress));
  assert.ok(progress.every((s) => s.endsWith(` of ${megabytes(total(models.qwen))}`)), JSON.stringify(progress));
  assert.equal(progress.at(-1), `Downloading Qwen2.5-0.5B (Qwen/Qwen2.5-0.5B-Instruct): ${megabytes(total(models.qwen))} of ${megabytes(total(models.qwen))}`);
  // From the Hub, and its weights from the file host it redirected them to.
  const hosts = new Set(proxy.since(mark).map((r) => r.host));
  assert.deepEqual([...hosts].sort(), [FILE_HOST, HUB_HOST].sort());
  assert.ok(proxy.since(mark).some((r) => r.host === FILE_HOST && r.method === 'GET' && /name=model\.safetensors/.test(r.path)));
  // The page computes what the library computes on the same files.
  await page.fill('#bring-text', TEXT);
  await page.waitForFunction((n) => document.querySelector('#text-note').textContent === `${n} tokens.`, expected.pieces.length);
  await page.waitForFunction(() => document.querySelectorAll('#head-table tbody tr').length === 8);
  assert.deepEqual(await tokensShown(page), expected.pieces.map((p) => p.replace(/\n/g, '↵')));
  assert.deepEqual(await tableColumn(page, 1), expected.previousToken.map((v) => v.toFixed(3)));
  // Kept: the button says so, with what this browser holds, and offers to forget it.
  await page.waitForSelector(`#hub-models li[data-id="${QWEN}"][data-kept="true"]`);
  assert.equal(await page.textContent(button(QWEN)), `Qwen2.5-0.5B 494 M parameters, kept in this browser (${megabytes(total(models.qwen))})`);

  // A second load, after a reload: read from this browser, no request at all.
  await page.reload();
  await ready(page);
  await recordStatuses(page);
  mark = proxy.log.length;
  const served = hub.log.length;
  await page.click(button(QWEN));
  await loaded(page);
  assert.deepEqual(proxy.since(mark), []);
  assert.equal(hub.log.length, served);
  assert.ok((await page.evaluate(() => window.statuses)).some((s) => s.startsWith('Reading Qwen2.5-0.5B (Qwen/Qwen2.5-0.5B-Instruct) from this browser')));
  await page.waitForFunction(() => document.querySelectorAll('#head-table tbody tr').length === 8);

  // Forgotten: the button offers the download again; the model stays in use on this page.
  await page.click(`#hub-models li[data-id="${QWEN}"] .hub-forget`);
  await page.waitForSelector(`#hub-models li[data-id="${QWEN}"][data-kept="false"]`);
  assert.equal(await page.textContent(button(QWEN)), 'Qwen2.5-0.5B 494 M parameters, 990 MB to download');
  assert.equal(await page.textContent('#load-status'), 'Qwen2.5-0.5B is removed from this browser; it stays in use on this page until you leave it.');
  assert.deepEqual(await page.evaluate(async () => {
    const cache = await caches.open('attention-step-by-step-hub');
    return (await cache.keys()).map((r) => r.url);
  }), []);
  // Its link names it; opened in a browser that does not keep it, nothing is downloaded until the reader asks.
  await page.waitForFunction(() => !document.documentElement.hasAttribute('data-link-pending'));
  assert.match(page.url(), /[?&]model=Qwen%2FQwen2\.5-0\.5B-Instruct(&|$)/);
  mark = proxy.log.length;
  await page.goto(page.url());
  await ready(page);
  await settled(page);
  assert.equal(await page.textContent('#load-status'),
    'This link shows the heads of Qwen/Qwen2.5-0.5B-Instruct, which this browser does not keep: press “Load it” to download it (990 MB).');
  assert.equal(await page.inputValue('#hub-id'), QWEN);
  assert.deepEqual(proxy.since(mark), []);
  await context.close();
  hubClean(problems);
});

test('a download can be cancelled: the model in use stays, and nothing of the cancelled one is kept', async () => {
  const { page, context, problems } = await open();
  await page.click('#load-shipped');
  await page.waitForFunction(() => document.querySelector('#load-status').textContent.startsWith('Loaded the site\'s own model'));
  // The weights wait at the file host: the small files are in, the progress says how much of the whole.
  const weights = proxy.hold(({ host, method, path }) => host === FILE_HOST && method === 'GET' && /name=model\.safetensors/.test(path));
  await page.click(button(QWEN));
  await weights.reached;
  await page.waitForFunction(() => / MB of /.test(document.querySelector('#load-status').textContent));
  assert.equal(await page.isVisible('#load-progress'), true);
  await page.click('#cancel-load');
  await page.waitForFunction(() => document.querySelector('#load-status').textContent.startsWith('Loading was cancelled.'));
  weights.release();
  assert.match(await page.textContent('#load-status'), /^Loading was cancelled\. Still using: 2 layers of 4 heads, width 64, 32 positions/);
  assert.equal(await page.isHidden('#load-controls'), true);
  assert.equal(await page.isHidden('#load-error'), true);
  // Nothing of it is kept (its config and tokenizer were): the button still offers the download.
  await page.waitForFunction((id) => document.querySelector(`#hub-models li[data-id="${id}"]`)?.dataset.kept === 'false', QWEN);
  assert.deepEqual(await page.evaluate(async () => (await (await caches.open('attention-step-by-step-hub')).keys()).length), 0);
  // The model in use answers.
  await page.fill('#bring-text', 'The cats, which slept near the dog,');
  await page.waitForFunction(() => document.querySelector('#text-note').textContent === '9 tokens.');
  await context.close();
  hubClean(problems);
});

test('a gated model by its id: refused without a token in one sentence, loaded with one; the token is never kept', async () => {
  const { page, context, problems } = await open();
  await page.fill('#hub-id', LLAMA);
  await page.click('#load-hub-id');
  await page.waitForSelector('#load-error:not([hidden])');
  assert.equal(await page.textContent('#load-error'), `“${LLAMA}” is gated or private: accept its terms on its page on the Hugging Face Hub, ` +
    'then paste an access token above and load it again.');
  await page.fill('#hub-token', TOKEN);
  await page.click('#load-hub-id');
  await loaded(page);
  assert.equal(await page.isHidden('#load-error'), true);
  assert.match(await page.textContent('#load-status'), new RegExp(`^Loaded ${LLAMA}: 2 layers of 4 heads \\(reading 1 key/value head\\)`));
  // Its tokenizer begins every text with <|begin_of_text|>, as transformers' does.
  await page.fill('#bring-text', TEXT);
  const expected = await expectedOn(models.llama, TEXT);
  assert.equal(expected.pieces[0], '<|begin_of_text|>');
  await page.waitForFunction((n) => document.querySelector('#text-note').textContent === `${n} tokens.`, expected.pieces.length);
  assert.deepEqual(await tokensShown(page), expected.pieces);
  // The link names the model, never the token; nothing the page stores holds it; a reload forgets it.
  await page.waitForFunction(() => !document.documentElement.hasAttribute('data-link-pending'));
  assert.match(page.url(), /[?&]model=meta-llama%2FLlama-3\.2-1B-Instruct(&|$)/);
  assert.doesNotMatch(page.url(), new RegExp(TOKEN));
  const stored = await page.evaluate(() => JSON.stringify({ ...localStorage }) + JSON.stringify({ ...sessionStorage }));
  assert.doesNotMatch(stored, new RegExp(TOKEN));
  // The link opens the model from this browser, which keeps it: no request, no token needed.
  const mark = proxy.log.length;
  await page.goto(page.url());
  await ready(page);
  await loaded(page);
  assert.equal(await page.inputValue('#hub-token'), '');
  assert.deepEqual(proxy.since(mark), []);
  await context.close();
  hubClean(problems, [/^401 https:\/\/huggingface\.co\/meta-llama\/Llama-3\.2-1B-Instruct\/resolve\/main\/config\.json$/]);
});

test('chat turns: the template renders them, its special tokens are tokens of the strip and the maps; Generate answers with the model\'s own settings', async () => {
  const { page, context, problems } = await open();
  await page.click(button(QWEN));
  await loaded(page);
  // The model's sampling settings, from its generation_config.json.
  assert.equal(await page.textContent('#generation-defaults'),
    'This model\'s own settings (its generation_config.json, or the library\'s where it has none): temperature 0.7, top-k 20, top-p 0.8.');
  assert.deepEqual(await Promise.all(['#bring-temperature', '#bring-top-k', '#bring-top-p'].map((f) => page.inputValue(f))), ['0.7', '20', '0.8']);
  await page.waitForSelector('#text-form:not([hidden])');
  await page.fill('#bring-text', 'What is attention?');
  await page.check('#text-form input[value="chat"]');
  // The chat starts from the plain text, as the user's turn; a turn is added (the assistant's) and removed.
  assert.equal(await page.inputValue('#chat-turns li:nth-child(1) textarea'), 'What is attention?');
  await page.click('#add-turn');
  assert.equal(await page.inputValue('#chat-turns li:nth-child(2) select'), 'assistant');
  await page.click('#chat-turns li:nth-child(2) button');
  assert.equal(await page.locator('#chat-turns li').count(), 1);
  await page.selectOption('#chat-turns li:nth-child(1) select', 'system');
  await page.fill('#chat-turns li:nth-child(1) textarea', 'Answer in one word.');
  await page.click('#add-turn');
  await page.fill('#chat-turns li:nth-child(2) textarea', 'Hi there');
  const messages = [{ role: 'system', content: 'Answer in one word.' }, { role: 'user', content: 'Hi there' }];
  const { model, tokenizer } = await attn.loadPretrained(models.qwen);
  const ids = tokenizer.applyChatTemplate(messages, { addGenerationPrompt: true });
  const pieces = ids.map((id) => tokenizer.pieces[id].replace(/\n/g, '↵'));
  model.dispose();
  tokenizer.dispose();
  await page.waitForFunction((n) => document.querySelector('#text-note').textContent === `${n} tokens.`, ids.length);
  assert.deepEqual(await tokensShown(page), pieces);
  assert.equal(pieces.filter((p) => p === '<|im_start|>').length, 3);
  assert.ok(pieces.includes('<|im_end|>'));
  // The full map names the template's tokens along its edges.
  await page.waitForFunction((n) => document.querySelector('[data-figure="one-head"] canvas.full-map')?.width === n, ids.length);
  const rows = await page.$$eval('[data-figure="one-head"] .map-labels.rows span', (s) => s.map((e) => e.textContent));
  assert.equal(rows[0], '<|im_start|>');
  // Generate with the page as it is: the assistant's turn, streamed, stopped at the model's end or its token budget.
  await page.waitForFunction(() => document.querySelectorAll('[data-figure="your-sampling"] g.bar').length === 10);
  await page.click('#bring-generate');
  await page.waitForFunction(() => document.querySelector('#bring-generated').dataset.state === 'done', null, { timeout: 60000 });
  assert.ok((await page.textContent('#bring-generated')).length > 0);
  assert.ok(await page.getAttribute('#your-sampling-drawn', 'data-drawn'));
  // Plain text stays: the maps read the text again.
  await page.check('#text-form input[value="plain"]');
  await page.waitForFunction(() => document.querySelector('#text-note').textContent === '4 tokens.');
  await context.close();
  hubClean(problems);
});

test('offline, or with the Hub unreachable, the page says so in one sentence, and a kept model still loads', async () => {
  const { page, context, problems } = await open();
  await page.click(button(QWEN));
  await loaded(page);
  // Offline: the browser says so (navigator.onLine), and no connection reaches the Hub. (Chromium's offline emulation
  // does not reach a dedicated worker's fetches, so the proxy drops them as a network that is gone would.)
  await context.setOffline(true);
  proxy.unreachable = true;
  try {
    await page.waitForSelector('#hub-offline:not([hidden])');
    assert.equal(await page.textContent('#hub-offline'), 'This browser is offline: the models kept in it still load; the others need the Hugging Face Hub.');
    const gpt2 = HUB_MODELS[0].id;
    const unreachable = `The Hugging Face Hub cannot be reached (this browser may be offline), and “${gpt2}” is not kept in this browser; ` +
      'the models kept here still load.';
    await page.click(button(gpt2));
    await page.waitForSelector('#load-error:not([hidden])');
    assert.equal(await page.textContent('#load-error'), unreachable);
    const mark = proxy.log.length;
    await page.click(button(QWEN));
    await loaded(page);
    assert.deepEqual(proxy.since(mark), []);
    assert.equal(await page.isHidden('#load-error'), true);
    // Online, but the Hub's hosts do not answer: the same sentence.
    await context.setOffline(false);
    await page.waitForSelector('#hub-offline[hidden]', { state: 'attached' });
    await page.click(button(gpt2));
    await page.waitForSelector('#load-error:not([hidden])');
    assert.equal(await page.textContent('#load-error'), unreachable);
  } finally {
    proxy.unreachable = false;
  }
  await context.close();
  hubClean(problems);
});

test("chapter 10's attention sinks from a model this browser keeps: read from the browser, each head's weight on the BOS", async () => {
  const { page, context, problems } = await open('chapters/at-scale');
  // No kept model: the chapter says where to get one.
  assert.equal(await page.isVisible('#sinks-none'), true);
  assert.equal(await page.isHidden('#sinks-kept'), true);
  await page.goto(`${site.server.url}chapters/8-your-model.html`);
  await ready(page);
  await page.fill('#hub-id', LLAMA);
  await page.fill('#hub-token', TOKEN);
  await page.click('#load-hub-id');
  await loaded(page);
  await page.goto(`${site.server.url}chapters/at-scale.html`);
  await ready(page);
  assert.deepEqual(await page.$$eval('#sinks-model option', (o) => o.map((e) => e.value)), [LLAMA]);
  const mark = proxy.log.length;
  await page.click('#sinks-load');
  await page.waitForFunction(() => document.querySelector('#sinks-kept-readout').textContent !== '', null, { timeout: 60000 });
  assert.deepEqual(proxy.since(mark), [], 'read from this browser alone');
  const expected = await expectedOn(models.llama, 'The cats, which slept near the dog, purr.');
  const shown = await page.$$eval('[data-figure="sinks-kept"] g.cell', (cells) => cells.map((c) => Number(c.dataset.value)));
  assert.equal(shown.length, expected.firstToken.length);
  shown.forEach((v, k) => assert.ok(Math.abs(v - expected.firstToken[k]) < 1e-6, `head ${k}: ${v} vs ${expected.firstToken[k]}`));
  const top = expected.firstToken.indexOf(Math.max(...expected.firstToken));
  const parked = expected.firstToken.filter((v) => v > 0.5).length;
  assert.equal(await page.textContent('#sinks-kept-readout'), `In ${LLAMA}, ${parked} of its 8 heads put more than half their weight on the first ` +
    `token, “<|begin_of_text|>”; layer ${Math.floor(top / 4) + 1}, head ${(top % 4) + 1} puts ${Math.round(100 * expected.firstToken[top])} % there, ` +
    'on average over the queries after it.');
  await context.close();
  hubClean(problems, [/^401 https:\/\/huggingface\.co\//]);
});
