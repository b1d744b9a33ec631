// No internal text ever reaches a reader: every field of every chapter is driven with empty, blank, unknown,
// out-of-range and absurd input, and the page must answer in its own words — never "Could not compute: …" (a
// library's message passed through), a JS error's text, NaN, or an exception in the console. reader-errors.test.js
// checks what the answers say for the cases readers met; this one checks that no field has been missed.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { join } from 'node:path';
import { before } from 'node:test';

import { gpt2References } from '../fixtures/torch-cache.js';
import { assertClean, drawn, twoFrames, useSite } from './harness.js';

const site = useSite();
let folder; // chapter 9's fields show once a model is loaded: a small GPT-2-shaped folder
before(() => {
  folder = gpt2References([{ name: 'gpt2', n_layer: 2, n_head: 4, n_embd: 32, n_positions: 64, dtype: 'F16' }]);
});
const SETUP = {
  '8-your-model': async (page) => {
    await page.setInputFiles('#model-files', ['config.json', 'model.safetensors', 'vocab.json', 'merges.txt'].map((f) => join(folder, 'gpt2', f)));
    await page.waitForFunction(() => document.querySelectorAll('#head-table tbody tr').length > 0, null, { timeout: 30000 });
  },
};
// Chapters whose controls are sliders, switches and choices only: nothing to type wrong (a typed field added later
// fails the count and joins the test).
const NOTHING_TO_TYPE = ['4-scaling', '5-masking'];

const PAGES = ['1-why-attention', '2-self-attention', '3-trainable-weights', '4-scaling', '5-masking', '6-multi-head',
  'positions', '7-language-model', '8-your-model', 'at-scale', '9-induction-heads'];
const INPUTS = ['', '   ', 'zzz', '1e', '-1e999', '1e999', '-7', '0', '123456789012', '0.5', 'the elephants ✨ qqq'];
// What only the program's own machinery writes: a library's "Function.name: expected …", a JS error, a number gone wrong.
const INTERNAL = [/Could not compute/, /Cannot read propert/, /is not a function/, /\bundefined\b/, /\bNaN\b/, /Aborted\(/, /RuntimeError/,
  /ERR_ATTN_/, /\b[A-Za-z]\w*\.[a-z]\w*: /, /got “”/, /\[object Object\]/];

/** The fields a reader can type into: one cell of each matrix editor, every other text or number field. */
const fieldsOf = (page) => page.$$eval('main input, main textarea, .controls input', (elements) => {
  const seen = new Set();
  return elements.filter((e) => {
    if (['checkbox', 'radio', 'file', 'range', 'button', 'submit', 'hidden'].includes(e.type) || e.disabled || e.readOnly) return false;
    if (!e.offsetParent) return false; // not shown
    const editor = e.closest('[data-editor]');
    const key = editor ? `editor:${editor.dataset.editor}` : `#${e.id}`;
    if (!e.id && !editor) return false;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  }).map((e) => (e.id ? `#${e.id}` : `[data-editor="${e.closest('[data-editor]').dataset.editor}"] input >> nth=0`));
});

/** What a reader gets by typing `value`: a number field takes only what a browser lets a person type into one. */
async function type(page, field, value) {
  try {
    await page.fill(field, value);
  } catch {
    await page.fill(field, '');
    await page.locator(field).pressSequentially(value);
  }
}

/** A field that only acts when a button is pressed (chapters 8 and 9's Generate) is tried with its button too. */
async function act(page, field) {
  const button = page.locator(`.controls:has(${field.split(' >> ')[0]}) button:is(#generate, #bring-generate)`);
  if ((await button.count()) === 0 || (await button.isDisabled())) return;
  await button.click();
  await page.waitForFunction((id) => !document.getElementById(id).disabled, await button.getAttribute('id'), { timeout: 60000 });
}

for (const chapter of PAGES) {
  test(`chapter ${chapter.split('-')[0]}: every field answers bad input in the page's own words`, async () => {
    const { page, context, problems } = await site.load(`chapters/${chapter}`);
    await SETUP[chapter]?.(page);
    const fields = await fieldsOf(page);
    assert.equal(fields.length === 0, NOTHING_TO_TYPE.includes(chapter), `fields: ${fields}`);
    const found = [];
    for (const field of fields) {
      const original = await page.inputValue(field);
      for (const value of INPUTS) {
        await type(page, field, value);
        await act(page, field);
        await twoFrames(page);
        await drawn(page);
        const text = await page.$eval('main', (m) => m.innerText);
        // Chapter 2 shows the naive softmax overflowing on purpose, and says why its bars are NaN.
        const explained = text.includes('∞ / ∞ = NaN');
        for (const pattern of INTERNAL.filter((p) => !(explained && p.source === '\\bNaN\\b'))) {
          const at = text.search(pattern);
          if (at >= 0) found.push(`${field} = “${value}”: ${JSON.stringify(text.slice(Math.max(0, at - 60), at + 80))}`);
        }
      }
      await page.fill(field, original);
      await twoFrames(page);
      await drawn(page);
    }
    assert.deepEqual(found, []);
    await context.close();
    assertClean(problems);
  });
}
