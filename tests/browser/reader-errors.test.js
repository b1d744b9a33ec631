// What a reader types wrong is answered beside the control, in a sentence about what they did, and a figure that
// no longer matches the input is marked stale, never shown as current (the first promise of the site as a lesson;
// lessons.test.js has the others). A library's own message once reached the page ("WordTokenizer.encode: …",
// "Cannot read properties of undefined"); each test below drives a control the way that happened.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';

import { artifactPath, assertClean, drawn, hero, useSite } from './harness.js';

const DESKTOP = { width: 1280, height: 900 };
const site = useSite();
const load = (path, viewport = DESKTOP, options) => site.load(path, viewport, options);

/** The alert in the control group of `selector`, once it says something. */
async function alertBeside(page, selector) {
  const alert = page.locator(`.field:has(${selector}) [role="alert"]`);
  await alert.waitFor({ state: 'visible' });
  return alert.textContent();
}

/** Every figure on the page is marked stale (or every one is current again). */
async function staleness(page, selector = '[data-figure]') {
  return page.$$eval(selector, (figures) => figures.map((f) => ({
    stale: f.classList.contains('stale'), hidden: f.getAttribute('aria-hidden') === 'true', inert: f.inert,
    note: f.previousElementSibling?.classList.contains('stale-note') && !f.previousElementSibling.hidden ? f.previousElementSibling.textContent : null,
  })));
}

describe('errors appear beside their cause, and figures that no longer match are marked stale', () => {
  test('chapter 3: d_out out of range', async () => {
    const { page, context, problems } = await load('chapters/3-trainable-weights');
    await page.fill('#d-out', '9');
    assert.equal(await alertBeside(page, '#d-out'), 'd_out must be from 1 to 8; got “9”.');
    assert.equal(await page.getAttribute('#d-out', 'aria-invalid'), 'true');
    const stale = await staleness(page);
    assert.ok(stale.length >= 7 && stale.every((f) => f.stale && f.hidden && f.inert), JSON.stringify(stale));
    assert.ok(stale.every((f) => f.note === 'Out of date: fix the input above to redraw.'));
    await page.screenshot({ path: artifactPath('lesson-stale-chapter-3.png'), fullPage: false });
    await page.fill('#d-out', '3');
    await page.waitForSelector('[data-figure="pipeline"]:not(.stale)');
    assert.ok((await staleness(page)).every((f) => !f.stale && !f.hidden && !f.inert && f.note === null));
    assert.equal(await page.locator('.field:has(#d-out) [role="alert"]').isVisible(), false);
    assert.deepEqual(await page.$$eval(`${hero('queries')} g.cell[data-row="0"]`, (c) => c.length), 3);
    await context.close();
    assertClean(problems);
  });

  // A number field holding "1e" reports an empty value: the message quoted what the reader typed as “”.
  test('chapter 1: a score typed half-way ("1e") is named as not a number, not quoted as empty', async () => {
    const { page, context, problems } = await load('chapters/1-why-attention');
    await page.locator('#score-1').pressSequentially('e');
    assert.equal(await page.inputValue('#score-1'), '');
    assert.equal(await alertBeside(page, '#score-1'), 'The score of h₂ must be a number; what is typed there is not a number.');
    await page.fill('#score-1', '2');
    await page.waitForSelector('[data-figure="bahdanau-weights"]:not(.stale)');
    await context.close();
    assertClean(problems);
  });

  test('chapter 2: a cell of the input matrix that is not a number', async () => {
    const { page, context, problems } = await load('chapters/2-self-attention');
    await page.fill('[data-editor="inputs"] input[data-row="2"][data-col="1"]', '');
    assert.equal(await alertBeside(page, 'input[data-row="2"][data-col="1"]'), 'starts, x2 must be a number; the field is empty.');
    assert.ok((await staleness(page)).every((f) => f.stale));
    await page.fill('[data-editor="inputs"] input[data-row="2"][data-col="1"]', '0.85');
    await page.waitForSelector('[data-figure="pipeline"]:not(.stale)');
    await context.close();
    assertClean(problems);
  });

  // The pipeline kept the cell under the pointer across a redraw, and read out a cell the new sentence no longer
  // has: "Could not compute: Cannot read properties of undefined (reading 'toFixed')".
  test('chapter 6: a one-word sentence while the pointer rests on a cell the sentence then loses', async () => {
    const { page, context, problems } = await load('chapters/6-multi-head');
    await page.selectOption('#weights', 'seeded');
    await page.selectOption('#num-heads', '12');
    const far = '[data-figure="pipeline"] g.stage g.cell[data-row="6"][data-col="6"]';
    await page.locator(far).first().hover();
    assert.match(await page.textContent('[data-figure="pipeline"] .pipeline-readout'), /^\S+\[/);
    await page.fill('#sentence', 'cat');
    await page.waitForFunction(() => document.querySelectorAll('[data-figure="pipeline"] g.stage g.cell[data-row="1"]').length === 0);
    await drawn(page);
    assert.equal(await page.isVisible('.status'), false, await page.textContent('.status'));
    assert.doesNotMatch(await page.textContent('main'), /Could not compute/);
    await context.close();
    assertClean(problems);
  });

  test('chapter 6: an empty sentence, and one cut to its word limit', async () => {
    const { page, context, problems } = await load('chapters/6-multi-head');
    await page.fill('#sentence', '   ');
    assert.equal(await alertBeside(page, '#sentence'), 'Type a sentence: at least one word.');
    assert.ok((await staleness(page, '[data-figure="pipeline"], [data-figure="grid"], [data-figure="head-view"]')).every((f) => f.stale && f.hidden));
    const words = Array.from({ length: 20 }, (_, i) => `w${i + 1}`).join(' ');
    await page.fill('#sentence', words);
    await page.waitForSelector('[data-figure="grid"]:not(.stale)');
    await drawn(page);
    assert.equal(await page.textContent('#sentence-note'), 'The sentence has 20 words; the model reads at most 16, so it was cut after “w16”.');
    assert.equal(await page.locator(`${hero('weights')} g.cell[data-col="0"]`).count(), 16);
    await context.close();
    assertClean(problems);
  });

  // The text was refused ("This model does not know the word “My”…", the figures out of date): a learner's sentence
  // is read instead, each word the model never saw as the nearest it knows, and the page says which.
  // "The cats purr. The dogs run." was refused with a sentence that contradicted itself ("does not know the word “The”…
  // Nearest it knows: “the”, “The”"): the second “The” is “ The”, with its space, which the corpus never has.
  test('chapter 8 takes "The cats purr. The dogs run." and a sentence of words it never saw, in the maps and in Generate', async () => {
    const { page, context, problems } = await load('chapters/7-language-model');
    await page.fill('#probe', 'The cats purr. The dogs run.');
    await page.waitForFunction(() => document.querySelector('#probe-replaced').textContent !== '');
    await drawn(page);
    assert.equal(await page.textContent('#probe-replaced'),
      'Words this model never saw are read as the nearest it knows (each word with the space before it): “ The” → “ the”.');
    assert.match(await page.textContent('#probe-next'), /^Next token after “\.”: /);
    assert.equal(await page.getAttribute('#probe', 'aria-invalid'), 'false');
    await page.fill('#prompt', 'Quantum physics explains everything');
    await page.click('#generate');
    await page.waitForFunction(() => document.querySelector('#generated').dataset.state === 'done', null, { timeout: 60000 });
    assert.match(await page.textContent('#prompt-replaced'),
      /^Words this model never saw are read as the nearest it knows \(each word with the space before it\): “Quantum” → “[^”]+”, “ physics” → “[^”]+”, “ explains” → “[^”]+”, “ everything” → “[^”]+”\.$/);
    assert.equal(await page.getAttribute('#prompt', 'aria-invalid'), 'false');
    // The prompt as the model read it, then what it wrote: 60 tokens by default.
    assert.ok((await page.textContent('#generated')).split(/\s+/).length > 20);
    await context.close();
    assertClean(problems);
  });

  test('chapter 8: a word the model never saw is read as the nearest it knows, said under the text; the known words are listed', async () => {
    const { page, context, problems } = await load('chapters/7-language-model');
    await page.fill('#probe', 'My cat,');
    await page.waitForFunction(() => document.querySelector('#probe-replaced').textContent !== '');
    await drawn(page);
    assert.equal(await page.textContent('#probe-replaced'),
      'Words this model never saw are read as the nearest it knows (each word with the space before it): “My” → “ cry”.');
    assert.equal(await page.getAttribute('#probe', 'aria-invalid'), 'false');
    const stale = await staleness(page, '[data-figure="model-attention"], [data-figure="trained-head-view"], #probe-next, #probe-claim');
    assert.ok(stale.every((f) => !f.stale && !f.hidden && !f.inert), JSON.stringify(stale));
    assert.match(await page.textContent('#probe-next'), /^Next token after “,”: /);
    // An empty text is the one thing refused: there is nothing to draw.
    await page.fill('#probe', '');
    assert.equal(await alertBeside(page, '#probe'), 'Type a text: the maps need at least one word.');
    assert.equal(await page.textContent('#probe-replaced'), '');
    assert.equal(await page.textContent('#known-words summary'), 'The 168 words and marks this model can read');
    const known = await page.textContent('#known-words-list');
    for (const word of ['“The”', '“ cats”', '“ purr”', '“,”']) assert.ok(known.includes(word), word);
    await page.fill('#probe', 'The cat,');
    await page.waitForSelector('[data-figure="model-attention"]:not(.stale)');
    assert.equal(await page.locator('[data-figure="model-attention"] g.thumb').count(), 8);
    // Typing a word offers the words the model knows that start with it; choosing one puts it in the text.
    await page.fill('#probe', 'The cats, which sl');
    const offered = await page.$$eval('.word-complete:not([hidden]) button', (b) => b.map((e) => e.textContent));
    assert.deepEqual(offered, ['sleep', 'slept', 'sleeps']);
    await page.click('.word-complete button:text-is("slept")');
    assert.equal(await page.inputValue('#probe'), 'The cats, which slept');
    assert.equal(await page.evaluate(() => document.activeElement.id), 'probe');
    assert.equal(await page.isHidden('.controls:has(#probe) + .word-complete, .field:has(#probe) + .word-complete'), true);
    await context.close();
    assertClean(problems);
  });
});
