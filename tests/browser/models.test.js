// Chapter 8 never loses a reader's work: each training run and each upload is
// a model of its own in a named list kept in the browser, with its loss curve
// and samples; replacing or deleting one is asked first; a refused input is
// reported beside its field and changes nothing.
import assert from 'node:assert/strict';
import { before, test } from 'node:test';

import { createAttention } from '../../web/lib/index.js';
import { artifactPath, assertClean, openPage, ready, storageThatNeverAnswers, useSite } from './harness.js';

const site = useSite();
let checkpoint; // a small word-level model's safetensors bytes, trained in Node
before(async () => {
  const attn = await createAttention();
  const trainer = new attn.Trainer({
    model: { nLayer: 1, nHead: 2, nEmbd: 16, nInner: 32, blockSize: 16 },
    training: { batchSize: 4, tokenizer: 'word' },
    text: attn.agreementCorpus(500, 9),
  });
  trainer.step();
  checkpoint = Buffer.from(trainer.checkpoint());
  trainer.dispose();
});
const load = () => site.load('chapters/7-language-model');
const names = (page) => page.$$eval('#model-list li label', (labels) => labels.map((l) => l.childNodes[1].textContent.trim()));
const fieldAlert = async (page, selector) => {
  const alert = page.locator(`.field:has(${selector}) [role="alert"]`);
  await alert.waitFor({ state: 'visible' });
  return alert.textContent();
};

/** Trains a small model in the page's worker until the run is saved. */
async function train(page, steps) {
  await page.fill('#layers', '1');
  await page.fill('#train-heads', '2');
  await page.fill('#embd', '16');
  await page.fill('#iters', String(steps));
  await page.click('#train');
  await page.waitForSelector('body[data-training="done"]', { timeout: 120000 });
  await page.evaluate(() => { document.body.dataset.training = 'idle'; });
}

test('each run is a model of its own, with its loss curve and samples, after a reload too', async () => {
  const { page, context, problems } = await load();
  assert.deepEqual(await names(page), ['The shipped model']);
  // A run is named for the time it started, to the second: the page's clock says when, so the two differ.
  await page.clock.setFixedTime(new Date(2026, 0, 2, 10, 0, 0));
  await train(page, 20);
  const [, first] = await names(page);
  assert.match(first, /^Run of /);
  const firstSamples = await page.$$eval('#samples li', (li) => li.map((e) => e.textContent));
  assert.ok(firstSamples.length > 0);
  await page.clock.setFixedTime(new Date(2026, 0, 2, 10, 0, 5));
  await train(page, 30);
  const list = await names(page);
  assert.equal(list.length, 3);
  assert.equal(list[1], first, 'the first run is still there, unchanged');
  assert.match(await page.textContent('#active-model'), /trained 30 steps/);

  await page.reload();
  await ready(page);
  assert.deepEqual(await names(page), list);
  await page.check('#model-list li:nth-child(2) input[type="radio"]');
  await page.waitForFunction((name) => document.querySelector('#curve-heading').textContent === `Loss and samples of “${name}”`, first);
  assert.deepEqual(await page.$$eval('#samples li', (li) => li.map((e) => e.textContent)), firstSamples);
  assert.match(await page.textContent('#active-model'), /trained 20 steps/);
  await page.screenshot({ path: artifactPath('7-language-model-models.png'), fullPage: false });
  await context.close();
  assertClean(problems);
});

test('refused inputs are reported beside their field and change nothing', async () => {
  const { page, context, problems } = await load();
  await train(page, 10);
  const before = { names: await names(page), samples: await page.$$eval('#samples li', (li) => li.map((e) => e.textContent)) };
  for (const [selector, value, message] of [
    ['#iters', '0', 'Steps must be from 1 to 100000; got “0”.'],
    ['#iters', '', 'Steps must be a number; the field is empty.'],
    ['#layers', '1000', 'Layers must be from 1 to 6; got “1000”.'],
    // the library's rule, in the library's words (nanoGPTConfig checks it on the page)
    ['#embd', '30', 'nEmbd must be divisible by nHead, got nEmbd=30 and nHead=4.'],
  ]) {
    await page.fill('#layers', '2');
    await page.fill('#train-heads', '4');
    await page.fill('#embd', '64');
    await page.fill('#iters', '100');
    await page.fill(selector, value);
    await page.click('#train');
    assert.equal(await fieldAlert(page, selector), message);
    assert.notEqual(await page.getAttribute('body', 'data-training'), 'running');
  }
  // A configuration only the library can refuse: a text too short for the block size.
  await page.fill('#embd', '64');
  await page.selectOption('#data-choice', 'file');
  await page.setInputFiles('#data-file', { name: 'tiny.txt', mimeType: 'text/plain', buffer: Buffer.from('ab ab ab') });
  await page.click('#train');
  await page.waitForSelector('#train-error:not([hidden])');
  assert.match(await page.textContent('#train-error'), /^This run could not start: Trainer: .* Nothing was changed\.$/);
  assert.deepEqual({ names: await names(page), samples: await page.$$eval('#samples li', (li) => li.map((e) => e.textContent)) }, before);
  // Generation settings: letters, or nothing, are refused, not replaced by a default.
  const generated = await page.textContent('#generated');
  await page.fill('#temperature', '');
  await page.click('#generate');
  assert.equal(await fieldAlert(page, '#temperature'), 'Temperature must be a number; the field is empty.');
  await page.fill('#temperature', '0.8');
  await page.fill('#max-new', '5000');
  await page.click('#generate');
  assert.equal(await fieldAlert(page, '#max-new'), 'Tokens must be from 1 to 2000; got “5000”.');
  assert.equal(await page.textContent('#generated'), generated);
  // A prompt with a word the model never saw: it was refused; now it is read as the nearest known word, said under
  // the prompt, and generated from.
  await page.fill('#max-new', '20');
  await page.fill('#prompt', 'The elephants');
  await page.click('#generate');
  await page.waitForFunction(() => document.querySelector('#generated').dataset.state === 'done');
  assert.equal(await page.textContent('#prompt-replaced'),
    'Words this model never saw are read as the nearest it knows (each word with the space before it): “ elephants” → “ eats”.');
  assert.equal(await page.getAttribute('#prompt', 'aria-invalid'), 'false');
  assert.match(await page.textContent('#generated'), /^The eats/);
  await context.close();
  assertClean(problems);
});

test('uploading a model of a saved name and deleting one are asked first', async () => {
  const { page, context, problems } = await load();
  const upload = () => page.setInputFiles('#upload', { name: 'mine.safetensors', mimeType: 'application/octet-stream', buffer: checkpoint });
  const answer = async (expected, button) => {
    const dialog = page.locator('dialog.confirm');
    await dialog.waitFor({ state: 'visible' });
    assert.equal(await dialog.locator('p').textContent(), expected);
    await dialog.getByRole('button', { name: button }).click();
    await dialog.waitFor({ state: 'detached' });
  };
  await upload();
  await page.waitForFunction(() => document.querySelectorAll('#model-list li').length === 2);
  assert.match(await page.textContent('#active-model'), /^Active model: yours, “mine”/);
  await upload();
  await answer('A model named “mine” is already saved. Replace it with this file?', 'Keep both');
  await page.waitForFunction(() => document.querySelectorAll('#model-list li').length === 3);
  assert.deepEqual(await names(page), ['The shipped model', 'mine', 'mine (2)']);
  await upload();
  await answer('A model named “mine” is already saved. Replace it with this file?', 'Replace it');
  await page.waitForFunction(() => document.querySelector('#active-model').textContent.includes('“mine”'));
  assert.deepEqual(await names(page), ['The shipped model', 'mine', 'mine (2)']);

  await page.click('#model-list li:nth-child(3) button.delete');
  await answer('Delete “mine (2)” from this browser? Its checkpoint, loss curve and samples go with it.', 'Keep it');
  assert.deepEqual(await names(page), ['The shipped model', 'mine', 'mine (2)']);
  await page.click('#model-list li:nth-child(3) button.delete');
  await answer('Delete “mine (2)” from this browser? Its checkpoint, loss curve and samples go with it.', 'Delete');
  await page.waitForFunction(() => document.querySelectorAll('#model-list li').length === 2);
  assert.deepEqual(await names(page), ['The shipped model', 'mine']);
  await context.close();
  assertClean(problems);
});

test('two tabs uploading the same file at once keep two models of two names (they made two entries of one name)', async () => {
  const { page, context, problems } = await load();
  const second = await context.newPage(); // the same browser profile: the same IndexedDB
  await second.goto(page.url());
  await ready(second);
  const file = { name: 'shared.safetensors', mimeType: 'application/octet-stream', buffer: checkpoint };
  // Each tab's list is empty of "shared", so neither asks; the store names the second one.
  await Promise.all([page.setInputFiles('#upload', file), second.setInputFiles('#upload', file)]);
  for (const tab of [page, second]) await tab.waitForFunction(() => document.querySelector('#active-model').textContent.includes('shared'));
  await page.reload();
  await ready(page);
  assert.deepEqual((await names(page)).sort(), ['The shipped model', 'shared', 'shared (2)'].sort());
  await context.close();
  assertClean(problems);
});

test('the model of the old single slot joins the list instead of being lost', async () => {
  const { page, context, problems } = await load();
  // What earlier versions stored: idb-keyval's default store, one key.
  await page.evaluate((bytes) => new Promise((resolve, reject) => {
    const open = indexedDB.open('keyval-store');
    open.onupgradeneeded = () => open.result.createObjectStore('keyval');
    open.onsuccess = () => {
      const tx = open.result.transaction('keyval', 'readwrite');
      tx.objectStore('keyval').put(new Uint8Array(bytes), 'attention-step-by-step/trained-checkpoint');
      tx.oncomplete = resolve;
      tx.onerror = reject;
    };
  }), [...checkpoint]);
  await page.reload();
  await ready(page);
  assert.deepEqual(await names(page), ['The shipped model', 'Saved before models had names']);
  await context.close();
  assertClean(problems);
});

test('a browser whose IndexedDB never answers still draws chapters 8 and 11, and chapter 8 says why its list is empty', async () => {
  const { page, context, problems } = await openPage(site.browser, site.server.origin);
  await storageThatNeverAnswers(page);
  // The first request gives up after 10 s and the later ones at once (components/storage-deadline.js): the pages
  // are drawn then, not never.
  await page.goto(`${site.server.url}chapters/7-language-model.html`);
  await ready(page);
  assert.deepEqual(await names(page), ['The shipped model']);
  assert.equal(await page.textContent('#model-list .storage-problem'), 'Your saved models could not be read: ' +
    "This browser's storage (IndexedDB) did not return the model saved before models had names in 10 s.");
  await page.goto(`${site.server.url}chapters/9-induction-heads.html`);
  await ready(page);
  // No kept run is offered: the status stays as drawn, empty.
  assert.equal(await page.textContent('#train-status'), '');
  assert.equal(await page.getAttribute('#train-status', 'data-kept'), null);
  await context.close();
  assertClean(problems);
});
