// No interaction of the site breaks it, and its heavy work stays off the page's thread: every chapter is driven
// as a reader drives it (typing, sliders, switches, generating, training, loading a GPT-2 folder) and must stay
// clean (no error, no crash, no failed request). That a page never freezes is held structurally: the work whose
// cost grows with a run or a model (training, generating, loading a brought model, measuring over a corpus)
// runs in the chapters' workers, and tests/js/site-threads.test.js fails if a module the page runs calls it;
// a redraw is spread over frames (components/page.js). How long the page's tasks take is a speed: the tasks
// over 50 ms (the browser's long-task measure) are printed here as a diagnostic, never asserted, since on these
// shared machines the same build's tasks vary by 2× between days; `node tools/site_latency.mjs dist` measures
// them (README, Performance).
import { join } from 'node:path';
import { before, test } from 'node:test';

import { assertClean, focusForKeys, openPage, ready, settled, useSite } from './harness.js';
import { gpt2References } from '../fixtures/torch-cache.js';

const site = useSite();
let folder;
before(() => {
  folder = gpt2References([{ name: 'gpt2', n_layer: 4, n_head: 4, n_embd: 64, n_positions: 128 }]);
});

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
    ['the sweep played', async (page) => {
      await page.click('#sweep');
      await page.waitForFunction(() => document.querySelector('#sweep').textContent !== 'Stop', null, { timeout: 30000 });
    }],
  ],
  '5-masking': [
    ['the causal mask switched', async (page) => page.click('#causal')],
    ['a length slid', slide('#length', '3')],
  ],
  '6-multi-head': [
    ['the sentence typed', async (page) => page.fill('#sentence', 'the cat sat on the mat with a hat')],
    ['the heads changed', async (page) => {
      await page.selectOption('#weights', 'seeded');
      await page.selectOption('#num-heads', { index: 2 });
    }],
    ['the seed changed', async (page) => page.fill('#seed', '11')],
  ],
  'positions': [
    ['the words shuffled', async (page) => page.click('#shuffle')],
    ['positions added', async (page) => page.click('#sinusoidal')],
    ['the query moved', slide('#query-position', '40')],
    ['rope_theta changed', async (page) => page.selectOption('#rope-theta', '500000')],
    ['llama3 scaling switched on', async (page) => page.click('#rope-scaling')],
  ],
  'at-scale': [
    ['the token moved', slide('#step', '8')],
    ['another model chosen', async (page) => page.selectOption('#model', 'Llama-3.2-1B')],
    ['the window slid', slide('#window', '2')],
    ['the keys per step slid', slide('#block', '1')],
  ],
  '7-language-model': [
    ['the probe typed', async (page) => page.fill('#probe', 'The dogs, which sat near the cat,')],
    ['a head of the grid chosen', async (page) => page.locator('[data-figure="model-attention"] svg .thumb, [data-figure="model-attention"] svg g[role]').nth(3).click()],
    ['text generated', async (page) => {
      await page.click('#generate');
      await page.waitForFunction(() => document.querySelector('#generated').dataset.state === 'done', null, { timeout: 30000 });
    }],
    ['a model trained for 20 steps, then stopped', async (page) => {
      await page.click('#train');
      await page.waitForFunction(() => document.querySelector('#progress').value * Number(document.querySelector('#iters').value) >= 20,
        null, { timeout: 60000 });
      await page.click('#stop');
      await page.waitForSelector('body[data-training="done"]', { timeout: 60000 });
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

test('every interaction of every chapter leaves the page clean (its long tasks printed)', async (t) => {
  const blocked = [];
  for (const [chapter, steps] of Object.entries(READER)) {
    const { page, context, problems } = await openPage(site.browser, site.server.origin);
    await page.addInitScript(() => {
      window.longTasks = [];
      new PerformanceObserver((list) => window.longTasks.push(...list.getEntries().map((e) => Math.round(e.duration))))
        .observe({ type: 'longtask' });
    });
    await page.goto(`${site.server.url}chapters/${chapter}.html`);
    await ready(page);
    await settled(page);
    for (const [what, act] of steps) {
      await page.evaluate(() => (window.longTasks.length = 0));
      await act(page);
      await settled(page);
      const tasks = await page.evaluate(() => window.longTasks);
      if (tasks.length > 0) blocked.push(`${chapter}, ${what}: ${tasks.join(', ')} ms`);
      assertClean(problems);
    }
    await context.close();
  }
  t.diagnostic(`tasks over 50 ms: ${blocked.length ? blocked.join('; ') : 'none'}`);
});
