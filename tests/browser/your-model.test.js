// Chapter 9 with a model the reader brings: a small GPT-2-shaped Hugging Face folder (tools/gpt2_reference.py,
// float16) chosen in the file picker, loaded in the page's worker, and every view checked against the JS API
// run here in Node on the same files; the folder kept in the browser across a reload until removed; a bad
// folder refused with its message; a link that restores the view and asks for the model.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { before, test } from 'node:test';

import { createAttention } from '../../web/lib/index.js';
import { artifactPath, assertClean, download, focusForKeys, openPage, ready, storageThatNeverAnswers, useSite } from './harness.js';
import { familyReferences, gpt2References } from '../fixtures/torch-cache.js';
import { readdirSync } from 'node:fs';

const site = useSite();
const TEXT = 'The cat sat on the mat. The cat sat on the';
let dir;
let files;
let expected; // what the JS API computes on the same folder and text
before(async () => {
  dir = gpt2References([{ name: 'gpt2', n_layer: 2, n_head: 4, n_embd: 32, n_positions: 64, dtype: 'F16' },
    { name: 'wide', n_layer: 4, n_head: 4, n_embd: 384, n_positions: 64 }]);
  files = ['config.json', 'model.safetensors', 'vocab.json', 'merges.txt'].map((f) => join(dir, 'gpt2', f));
  const attn = await createAttention();
  const { model, tokenizer } = await attn.loadPretrained(join(dir, 'gpt2'));
  const ids = tokenizer.encode(TEXT);
  const s = attn.summarizeHeads(model, ids);
  const greedy = model.generate([ids], { maxNewTokens: 5, temperature: 0 });
  // The worker measures prefix matching once per model, on 4 random repeated sequences of min(blockSize, 64) tokens.
  const prefix = attn.headScores(model, { batchSize: 4, length: 64, ablation: false });
  expected = { tokens: ids.length, previousToken: Array.from(s.previousToken.data), prefixMatching: Array.from(prefix.prefixMatching.data),
    greedy: tokenizer.decode(Array.from(greedy.data).slice(-5)) };
  model.dispose();
  tokenizer.dispose();
});

const loadModel = async (page) => {
  await page.setInputFiles('#model-files', files);
  await page.waitForFunction(() => document.querySelector('#load-status').textContent.startsWith('Loaded:'), null, { timeout: 30000 });
  await page.waitForFunction(() => document.querySelectorAll('#head-table tbody tr').length > 0);
};

test('a GPT-2 folder chosen in the page: every view shows what the library computes, and the browser keeps it', async () => {
  const { page, context, problems } = await site.load('chapters/8-your-model');
  // What the note on keeping the files says, and whether "Remove" is offered, at each change while the folder loads.
  await page.evaluate(() => {
    const note = document.querySelector('#kept-note');
    window.keptStates = [];
    new MutationObserver(() => window.keptStates.push([note.textContent, document.querySelector('#forget-model').hidden]))
      .observe(note, { childList: true, characterData: true, subtree: true });
  });
  await loadModel(page);
  await page.waitForFunction(() => document.querySelector('#kept-note').textContent.startsWith('Kept in this browser since'));
  // While the files are written, the page says so and offers nothing to remove (a removal then would be queued
  // behind the write, under a note about the folder being replaced).
  const states = await page.evaluate(() => window.keptStates);
  const kind = (text) => (text.startsWith('Keeping the files in this browser') ? 'keeping' : text.startsWith('Kept in this browser since') ? 'kept' : text);
  assert.deepEqual(states.map(([text, forgetHidden]) => [kind(text), forgetHidden]), [['keeping', true], ['kept', false]]);
  await page.fill('#bring-text', TEXT);
  assert.match(await page.textContent('#load-status'), /^Loaded: 2 layers of 4 heads, width 32, 64 positions, 50,257 tokens \(byte-pair encoding\)/);
  await page.waitForFunction((n) => document.querySelectorAll('#tokens .token').length === n, expected.tokens);
  assert.equal(await page.locator('#model-view .thumb').count(), 8);
  assert.equal(await page.locator('[data-figure="next-tokens"] svg.bars rect').count() >= 10, true);

  // The table's numbers are the library's (3 decimals), in layer-head order until sorted.
  const cells = await page.$$eval('#head-table tbody tr', (rows) => rows.map((r) => r.children[1].textContent));
  assert.deepEqual(cells, expected.previousToken.map((v) => v.toFixed(3)));
  const prefixCells = await page.$$eval('#head-table tbody tr', (rows) => rows.map((r) => r.children[6].textContent));
  assert.deepEqual(prefixCells, expected.prefixMatching.map((v) => v.toFixed(3)));
  await page.click('#head-table [data-sort="previousToken"]');
  const sorted = await page.$$eval('#head-table tbody tr', (rows) => rows.map((r) => Number(r.children[1].textContent)));
  assert.deepEqual(sorted, [...sorted].sort((a, b) => b - a));
  assert.equal(await page.getAttribute('#head-table th:has([data-sort="previousToken"])', 'aria-sort'), 'descending');
  // The sort is seen, not only announced: the sorted column's header shows its direction, the others that they sort.
  const marks = await page.$$eval('#head-table thead button', (bs) => bs.map((b) => getComputedStyle(b, '::after').content));
  assert.equal(marks[1], '" ▼"');
  assert.ok(marks.filter((m, k) => k !== 1).every((m) => m === '" ↕"'), JSON.stringify(marks));

  // The grid is one tab stop: arrows move from head to head, its read-out names what the table says of each.
  await focusForKeys(page, '#model-view g.thumb[tabindex="0"]');
  await page.keyboard.press('ArrowDown');
  await page.keyboard.press('ArrowRight');
  assert.match(await page.textContent('#grid-readout'), new RegExp(`^Layer 2, head 2: ${expected.previousToken[5].toFixed(2)} of its attention on the previous token`));
  // One head in full, from its thumbnail; the readout follows the keyboard.
  await page.click('#model-view .thumb[aria-label^="Layer 2, head 3"]');
  await page.waitForFunction(() => document.querySelector('[data-figure="one-head"] figcaption')?.textContent.startsWith('Layer 2, head 3'));
  assert.equal(await page.getAttribute('#model-view .thumb[aria-label^="Layer 2, head 3"]', 'aria-selected'), 'true');
  // Its tokens along both edges, its masked triangle unlike a weight of 0, and a cursor in view once focused.
  const map = await page.$eval('[data-figure="one-head"]', (f) => {
    const canvas = f.querySelector('canvas.full-map');
    const T = canvas.width;
    const pixel = (x, y) => Array.from(canvas.getContext('2d').getImageData(x, y, 1, 1).data.slice(0, 3));
    return { T, rows: [...f.querySelectorAll('.map-labels.rows span')].map((e) => e.textContent),
      columns: f.querySelectorAll('.map-labels.columns span').length, masked: pixel(T - 1, 0), firstWeight: pixel(0, 0) };
  });
  assert.equal(map.T, expected.tokens);
  assert.equal(map.rows.length, map.T, 'every token labelled at this size');
  assert.equal(map.columns, map.T);
  assert.equal(map.rows[0], 'The');
  assert.notDeepEqual(map.masked, [68, 1, 84], 'a masked cell is not painted as a weight of 0 (viridis at 0)');
  await focusForKeys(page, 'canvas.full-map');
  const cursor = await page.$eval('[data-figure="one-head"] .map-cursor', (c) => {
    const box = c.getBoundingClientRect();
    return { inView: box.top >= 0 && box.bottom <= innerHeight && box.width > 0, border: getComputedStyle(c).borderTopWidth };
  });
  assert.deepEqual(cursor, { inView: true, border: '2px' });
  await page.keyboard.press('ArrowLeft');
  assert.match(await page.textContent('#cell-readout'), new RegExp(`^Query ${expected.tokens} ".*" gives key ${expected.tokens - 1} ".*" a weight of 0\\.\\d{4}\\.$`));
  // Enter takes that weight apart, with the library's explanation (its weight is the map's).
  await page.keyboard.press('Enter');
  await page.waitForFunction(() => document.querySelector('[data-score-panel] h3')?.textContent.startsWith('One number traced'));
  assert.equal(await page.getAttribute('[data-score-panel]', 'data-query'), String(expected.tokens - 1));
  assert.equal(await page.getAttribute('[data-score-panel]', 'data-key'), String(expected.tokens - 2));
  assert.match(await page.textContent('[data-score-panel] h3'), /layer 2, head 3$/);
  // The full map downloads with its numbers.
  const json = JSON.parse((await download(page, '[data-figure="one-head"]', 'json')).bytes);
  assert.equal(json.values.length, expected.tokens);
  assert.ok(json.values.every((row) => Math.abs(row.reduce((a, b) => a + b, 0) - 1) < 1e-5), 'each row sums to 1');
  // The head view draws layer 1's first head as lines over the text's tokens.
  await page.waitForSelector('[data-figure="your-head-view"] svg.head-view');
  assert.ok(await page.locator('[data-figure="your-head-view"] svg.head-view line, [data-figure="your-head-view"] svg.head-view path').count() > 0);
  await page.screenshot({ path: artifactPath('8-your-model-loaded.png'), fullPage: true });

  // A head switched off: the next-token figure says so and keeps the distribution with every head as outlines.
  await page.uncheck('#head-table input[aria-label="Layer 1, head 2 in use"]');
  await page.waitForFunction(() => document.querySelector('[data-figure="next-tokens"]').textContent.includes('1 head switched off'));
  // Its row says "off" where it showed the statistics of a head with no weights (entropy 0.00).
  const offRow = page.locator('#head-table tr', { has: page.locator('input[aria-label="Layer 1, head 2 in use"]') });
  assert.deepEqual(await offRow.locator('td').evaluateAll((tds) => tds.slice(0, 5).map((td) => td.textContent)), Array(5).fill('off'));
  assert.ok(await page.locator('[data-figure="next-tokens"] g.ghost rect').count() > 0);
  await page.waitForURL(/off=1\.2/);

  // Greedy generation streams the library's tokens.
  await page.click('#all-heads-on');
  await page.fill('#bring-temperature', '0');
  await page.fill('#bring-max-new', '5');
  await page.click('#bring-generate');
  await page.waitForFunction(() => !document.querySelector('#bring-generate').disabled && document.querySelector('#bring-generated').textContent.length > 0);
  assert.equal(await page.textContent('#bring-generated'), expected.greedy.replace(/\uFFFD+$/, ''));

  // The table as CSV.
  const [csv] = await Promise.all([page.waitForEvent('download'), page.click('#download-table')]);
  const lines = readFileSync(await csv.path(), 'utf8').trim().split('\n');
  // Numbered from 0, as the API numbers them (it said "layer,head" and counted from 1, as the page does).
  assert.equal(lines[0], 'layer_index,head_index,previous_token,first_token,mean_distance,entropy,prefix_matching,in_use');
  assert.equal(lines.length, 9);
  assert.deepEqual(lines.slice(1).map((l) => l.split(',').slice(0, 2).join('.')).sort(),
    ['0.0', '0.1', '0.2', '0.3', '1.0', '1.1', '1.2', '1.3']);

  // A reload reads the folder the browser kept; removing it means the next reload asks again.
  await page.reload();
  await page.waitForFunction(() => document.querySelector('#load-status').textContent.startsWith('Loaded:'), null, { timeout: 30000 });
  assert.match(await page.textContent('#kept-note'), /^Kept in this browser since/);
  await page.click('#forget-model');
  await page.locator('#kept').waitFor({ state: 'hidden' });
  assert.equal(await page.isHidden('#load-controls'), true);
  await page.reload();
  await ready(page);
  assert.equal(await page.isHidden('#model-views'), true);
  await context.close();
  assertClean(problems);
});

test("a Gemma 3 folder in shards (grouped key/value heads, sliding windows, RoPE, tokenizer.json): the table is the library's, " +
  'the grid groups the heads by key/value head and marks the sliding layers', async () => {
  const gemma = { name: 'gemma3', family: 'gemma3_text', n_layer: 3, hidden: 32, heads: 4, kv_heads: 1, head_dim: 16,
    inner: 40, window: 4, pattern: 3, local_theta: 10000.0, theta: 1000000.0, query_pre_attn_scalar: 12, shards: 2, dtype: 'BF16' };
  const folder = join(familyReferences([gemma]), 'gemma3');
  const attn = await createAttention();
  const { model, tokenizer } = await attn.loadPretrained(folder);
  const ids = tokenizer.encode(TEXT);
  const summary = attn.summarizeHeads(model, ids);
  const previousToken = Array.from(summary.previousToken.data);
  model.dispose();
  tokenizer.dispose();
  const { page, context, problems } = await site.load('chapters/8-your-model');
  await page.setInputFiles('#model-files', readdirSync(folder).filter((f) => f !== 'expected.json').map((f) => join(folder, f)));
  await page.waitForFunction(() => document.querySelector('#load-status').textContent.startsWith('Loaded:'), null, { timeout: 30000 });
  assert.match(await page.textContent('#load-status'),
    /^Loaded: 3 layers of 4 heads \(reading 1 key\/value head\), width 32, 64 rotary positions, windows of 4 tokens, 320 tokens \(byte-pair encoding\)/);
  await page.fill('#bring-text', TEXT);
  await page.waitForFunction((n) => document.querySelectorAll('#tokens .token').length === n, ids.length);
  await page.waitForFunction((n) => document.querySelectorAll('#head-table tbody tr').length === n, 12);
  const cells = await page.$$eval('#head-table tbody tr', (rows) => rows.map((r) => r.children[1].textContent));
  assert.deepEqual(cells, previousToken.map((v) => v.toFixed(3)));
  assert.equal(await page.locator('#model-view .thumb').count(), 12);
  // Today's families in the grid: one bracket over the query heads that share a key/value head (all four: MQA),
  // and the sliding layers (two local to one global) marked with their window.
  assert.deepEqual(await page.$$eval('#model-view .kv-groups text', (t) => t.map((e) => e.textContent)), ['kv1']);
  assert.deepEqual(await page.$$eval('#model-view .window-mark', (t) => t.map((e) => e.textContent)), ['w 4', 'w 4']);
  assert.deepEqual(Array.from(summary.layerWindow.data), [4, 4, 0]);
  // Each row's weight by distance, the library's (the rows in layer-head order).
  const P = summary.distanceProfile.shape[2];
  const profiles = await page.$$eval('#head-table tbody tr', (rows) => rows.map((r) => [...r.querySelectorAll('svg.profile rect')].map((e) => Number(e.dataset.value))));
  profiles.forEach((row, k) => assert.deepEqual(row, Array.from(summary.distanceProfile.data.subarray(k * P, (k + 1) * P)), `head ${k}`));
  await context.close();
  assertClean(problems);
});

test('a folder of a model the library does not read is refused with its message, and the page keeps working', async () => {
  const { page, context, problems } = await site.load('chapters/8-your-model');
  const llama = mkdtempSync(join(tmpdir(), 'attn-llama-'));
  writeFileSync(join(llama, 'config.json'), JSON.stringify({ model_type: 'falcon', hidden_size: 4096 }));
  await page.setInputFiles('#model-files', [join(llama, 'config.json'), ...files.slice(1)]);
  await page.waitForSelector('#load-error:not([hidden])');
  // A sentence, without the name of the function that refused it (it read "loadPretrained: config.json: …").
  assert.equal(await page.textContent('#load-error'), 'These files cannot be read as a model: config.json: model_type is "falcon"; ' +
    'this library reads "gpt2", "llama", "mistral", "qwen2", "qwen3", "gemma3_text" and "gemma3" models');
  rmSync(llama, { recursive: true });
  await loadModel(page);
  await context.close();
  assertClean(problems);
});

test("a link keeps the view but not the model: it names the files it needs", async () => {
  const { page, context, problems } = await openPage(site.browser, site.server.origin);
  await page.goto(`${site.server.url}chapters/8-your-model.html?v=1&head=2.3&off=1.2`);
  await ready(page);
  assert.match(await page.textContent('#load-status'), /^This link shows a model's heads; choose that model's files to see them: config\.json, model\.safetensors/);
  await loadModel(page);
  await page.waitForFunction(() => document.querySelector('[data-figure="one-head"] figcaption')?.textContent.startsWith('Layer 2, head 3'));
  assert.equal(await page.isChecked('#head-table input[aria-label="Layer 1, head 2 in use"]'), false);
  await context.close();
  assertClean(problems);
});

test('files dropped on the page load like chosen ones; Cancel stops a load and keeps the model in use', async () => {
  const { page, context, problems } = await site.load('chapters/8-your-model');
  // A drop: the same files, as a DataTransfer made in the page.
  const contents = files.map((f) => ({ name: f.split('/').pop(), base64: readFileSync(f).toString('base64') }));
  const dataTransfer = await page.evaluateHandle((list) => {
    const dt = new DataTransfer();
    for (const { name, base64 } of list) dt.items.add(new File([Uint8Array.from(atob(base64), (c) => c.charCodeAt(0))], name));
    return dt;
  }, contents);
  await page.dispatchEvent('#drop-zone', 'drop', { dataTransfer });
  await page.waitForFunction(() => document.querySelector('#load-status').textContent.startsWith('Loaded: 2 layers'), null, { timeout: 30000 });
  // A larger model (77 MB of embeddings, read 16 MiB at a time), cancelled once its first piece is in.
  const wide = ['config.json', 'model.safetensors', 'vocab.json', 'merges.txt'].map((f) => join(dir, 'wide', f));
  // Cancel is pressed in the page in the frame the first progress shows: a click from here (its round trips, and its
  // wait for the button to hold still over two frames) came after the last piece on a fast machine.
  const cancelled = page.evaluate(() => new Promise((resolve) => {
    const press = () => {
      // (The status reads "Loaded: …" until this load's first piece is in.)
      if (document.querySelector('#load-status').textContent.startsWith('Reading the files:')) resolve(document.querySelector('#cancel-load').click());
      else requestAnimationFrame(press);
    };
    press();
  }));
  await page.setInputFiles('#model-files', wide);
  await cancelled;
  await page.waitForFunction(() => document.querySelector('#load-status').textContent.startsWith('Loading was cancelled.'));
  assert.match(await page.textContent('#load-status'), /Still using: 2 layers of 4 heads, width 32/);
  assert.equal(await page.isHidden('#load-error'), true);
  await page.fill('#bring-text', 'Still here, still working');
  await page.waitForFunction(() => document.querySelector('#text-note').textContent === '5 tokens.');
  await context.close();
  assertClean(problems);
});

test('a browser whose IndexedDB never answers still draws chapter 9, loads a folder and says the files are not kept', async () => {
  const { page, context, problems } = await openPage(site.browser, site.server.origin);
  await storageThatNeverAnswers(page);
  await page.goto(`${site.server.url}chapters/8-your-model.html`);
  // The read of the kept folder gives up after 10 s (components/storage-deadline.js): the page is drawn then.
  await ready(page);
  assert.equal(await page.textContent('#load-status'), '');
  await loadModel(page);
  // Keeping the files fails at once after that read timed out; the views were drawn without waiting for it.
  assert.equal(await page.textContent('#kept-note'), "This browser would not keep the files (This browser's storage (IndexedDB) " +
    'did not return the model folder kept in 10 s.); you will be asked for them again.');
  assert.equal(await page.isHidden('#forget-model'), true);
  await context.close();
  assertClean(problems);
});

test('no folder at hand: one click shows the site\'s own model in every view, with a text it can read, sampled as the model says', async () => {
  const { page, context, problems } = await site.load('chapters/8-your-model');
  await page.click('#load-shipped');
  await page.waitForFunction(() => document.querySelector('#load-status').textContent.startsWith('Loaded the site\'s own model:'));
  assert.match(await page.textContent('#load-status'), /2 layers of 4 heads, width 64, .* \(words and marks\)/);
  await page.waitForFunction(() => document.querySelectorAll('#head-table tbody tr').length === 8);
  assert.equal(await page.inputValue('#bring-text'), 'The cats, which slept near the dog,');
  assert.equal(await page.isVisible('#load-error'), false);
  assert.equal(await page.locator('#model-view g.thumb').count(), 8);
  // Its sampling settings are the model's own (the library's: it has no generation_config.json), said as such.
  assert.deepEqual(await Promise.all(['#bring-temperature', '#bring-top-k', '#bring-top-p'].map((f) => page.inputValue(f))), ['1', '0', '1']);
  // Sampling made visible: the next token's bars are the library's distribution at those settings, over the model's
  // 10 likeliest; Generate at temperature 0 draws, and marks, the first.
  const attn = await createAttention();
  const { model, tokenizer } = await attn.loadDefaultModel();
  const ids = tokenizer.encode('The cats, which slept near the dog,');
  const V = model.config.vocabSize;
  const last = { data: model.forward([ids]).logits.data.slice((ids.length - 1) * V, ids.length * V), shape: [V] };
  const own = attn.samplingDistribution(last).data;
  const after = attn.samplingDistribution(last, { temperature: 1, topK: 0, topP: 1 }).data;
  const top = Array.from(own.keys()).sort((a, b) => own[b] - own[a]).slice(0, 10);
  model.dispose();
  tokenizer.dispose();
  await page.waitForFunction(() => document.querySelectorAll('[data-figure="your-sampling"] g.bar').length === 10);
  const shown = await page.$$eval('[data-figure="your-sampling"] g.bar', (g) => g.map((e) => Number(e.dataset.value)));
  shown.forEach((p, k) => assert.ok(Math.abs(p - after[top[k]]) < 1e-6, `bar ${k}: ${p} vs ${after[top[k]]}`));
  await page.fill('#bring-temperature', '0');
  await page.waitForFunction(() => document.querySelector('[data-figure="your-sampling"]').dataset.temperature === '0');
  await page.fill('#bring-max-new', '3');
  await page.click('#bring-generate');
  await page.waitForFunction(() => document.querySelector('#your-sampling-drawn').dataset.drawn !== undefined);
  assert.equal(await page.getAttribute('#your-sampling-drawn', 'data-drawn'), String(top[0]));
  assert.equal(await page.locator('[data-figure="your-sampling"] g.bar.drawn[data-index="0"]').count(), 1);
  await context.close();
  assertClean(problems);
});

// Generate with the page's defaults refused the site's own model ("Tokens must be from 1 to 31; got “40”": the number of
// tokens was held to the model's 32-token context); a generation runs past it, keeping the last 32 tokens as nanoGPT does.
test("the site's own model generates with the page's defaults, past its 32-token context", async () => {
  const { page, context, problems } = await site.load('chapters/8-your-model');
  await page.click('#load-shipped');
  await page.waitForFunction(() => document.querySelectorAll('[data-figure="your-sampling"] g.bar').length === 10);
  assert.equal(await page.inputValue('#bring-max-new'), '40');
  await page.click('#bring-generate');
  await page.waitForFunction(() => document.querySelector('#bring-generated').dataset.state === 'done', null, { timeout: 60000 });
  assert.equal(await page.getAttribute('#bring-max-new', 'aria-invalid'), 'false');
  const text = await page.textContent('#bring-generated');
  const attn = await createAttention();
  const { model, tokenizer } = await attn.loadDefaultModel();
  // The tokens after the prompt (its pieces join back as they were made: a word with its space, a mark, a newline).
  const prompt = 'The cats, which slept near the dog,';
  const count = (generated) => tokenizer.encode(prompt + generated).length - tokenizer.encode(prompt).length;
  assert.equal(count(text), 40, JSON.stringify(text));
  // Stop stops a long generation where it is: the stream from the worker is aborted between two tokens.
  await page.fill('#bring-max-new', '2000');
  await page.click('#bring-generate');
  await page.waitForFunction(() => document.querySelector('#bring-generated').textContent.length > 0);
  await page.click('#bring-stop');
  await page.waitForFunction(() => document.querySelector('#bring-generated').dataset.state === 'done');
  const stopped = await page.textContent('#bring-generated');
  assert.ok(count(stopped) > 0 && count(stopped) < 2000, `${count(stopped)} tokens`);
  assert.doesNotMatch(stopped, /\[/, 'no error said');
  model.dispose();
  tokenizer.dispose();
  assert.equal(await page.isDisabled('#bring-stop'), true);
  await context.close();
  assertClean(problems);
});

// Chapter 9 refused a sentence of the site's own model as chapter 8 did ("does not know the word “The”… Nearest it
// knows: “the”, “The”"): it reads every sentence now, words it never saw as the nearest it knows.
test("the site's own model reads any sentence: the words it never saw are read as the nearest it knows, and marked", async () => {
  const { page, context, problems } = await site.load('chapters/8-your-model');
  await page.click('#load-shipped');
  await page.waitForFunction(() => document.querySelectorAll('#head-table tbody tr').length === 8);
  await page.fill('#bring-text', 'The cats purr. The dogs run.');
  await page.waitForFunction(() => document.querySelector('#text-note').textContent.startsWith('8 tokens.'));
  assert.equal(await page.textContent('#text-note'), '8 tokens. Words this model never saw are read as the nearest it knows ' +
    '(each word with the space before it): “ The” → “ the”.');
  assert.deepEqual(await page.$$eval('#tokens .token', (t) => t.map((e) => [e.textContent, e.classList.contains('replaced')])),
    [['The', false], [' cats', false], [' purr', false], ['.', false], [' the', true], [' dogs', false], [' run', false], ['.', false]]);
  await page.fill('#bring-text', 'Quantum physics explains everything');
  await page.waitForFunction(() => document.querySelector('#text-note').textContent.startsWith('4 tokens.'));
  assert.match(await page.textContent('#text-note'), /: “Quantum” → “[^”]+”, “ physics” → “[^”]+”, “ explains” → “[^”]+”, “ everything” → “[^”]+”\.$/);
  await page.waitForFunction(() => document.querySelector('[data-figure="one-head"] canvas.full-map')?.width === 4);
  await context.close();
  assertClean(problems);
});
