// "Copy as PyTorch" (chapters 2-6): after the reader changes what a chapter
// shows, the script the page offers runs with real PyTorch (Debian's
// python3-torch) and prints, tensor for tensor, the numbers in the figures.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { test } from 'node:test';

import { artifactPath, assertClean, hero, heroCell, openPage, ready, useSite } from './harness.js';
import { torchStdout } from '../fixtures/torch-cache.js';

const site = useSite();

/** The tensors a script printed as `name = tensor(...)`, each as a flat list of numbers. */
function printed(stdout) {
  const tensors = {};
  for (const [, name, body] of stdout.matchAll(/^(\w+) = tensor\(([\s\S]*?)\)$/gm)) {
    tensors[name] = [...body.matchAll(/-?inf|nan|-?(?:\d+(?:\.\d*)?|\.\d+)(?:e[+-]?\d+)?/g)].map(([v]) =>
      v === 'nan' ? NaN : v === 'inf' ? Infinity : v === '-inf' ? -Infinity : Number(v));
  }
  return tensors;
}

/**
 * The numbers a figure draws, row by row: a heatmap's cells, a bar chart's bars, a matrix of the hero ("hero:id"),
 * or chapter 6's hero's weights once head h is chosen in the grid ("head:h").
 */
async function figureValues(page, figure) {
  if (figure.startsWith('head:')) {
    const h = Number(figure.slice(5));
    await page.click(`[data-figure="grid"] g.thumb[data-head="${h}"]`);
    await page.waitForFunction(([sel, name]) => document.querySelector(sel)?.textContent === name, [`${hero('weights')} .stage-name`, `A (head ${h + 1})`]);
    return figureValues(page, 'hero:weights');
  }
  const selector = figure.startsWith('hero:') ? hero(figure.slice(5)) : `[data-figure="${figure}"]`;
  return page.$$eval(`${selector} g.cell, ${selector} g.bar`, (els) => els.map((e) => Number(e.dataset.value)));
}

/** Runs the page's script with PyTorch and compares every printed tensor with its figure (1e-4, as printed). */
async function checkScript(page, what) {
  await page.waitForSelector('[data-pytorch][data-prints]');
  const code = await page.textContent('[data-pytorch] pre code');
  const prints = JSON.parse(await page.getAttribute('[data-pytorch]', 'data-prints'));
  const file = artifactPath(`pytorch-${what.replace(/\W+/g, '-')}.py`); // kept, beside the screenshots
  writeFileSync(file, code);
  const tensors = printed(torchStdout([file], { inputs: [file] }));
  assert.deepEqual(Object.keys(tensors).sort(), Object.keys(prints).sort(), `${what}: the names printed`);
  for (const [name, figure] of Object.entries(prints)) {
    const shown = await figureValues(page, figure);
    const py = tensors[name];
    assert.equal(py.length, shown.length, `${what}: ${name} has ${py.length} numbers, figure ${figure} ${shown.length}`);
    py.forEach((v, i) => {
      const ok = Object.is(v, shown[i]) || Math.abs(v - shown[i]) <= 1e-4 * Math.max(1, Math.abs(shown[i]));
      assert.ok(ok, `${what}: ${name}[${i}] is ${v} in PyTorch, ${shown[i]} in figure ${figure}`);
    });
  }
  return code;
}

/** Opens a chapter (the clipboard allowed), runs use(page), and checks the page stayed clean. */
async function onChapter(path, use) {
  const { page, context, problems } = await openPage(site.browser, site.server.origin);
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: site.server.origin });
  await page.goto(`${site.server.url}${path}.html`);
  await ready(page);
  await use(page);
  await context.close();
  assertClean(problems);
}

const setRange = (page, sel, value) => page.$eval(sel, (el, v) => {
  el.value = v;
  el.dispatchEvent(new Event('input', { bubbles: true }));
}, String(value));

test('chapter 2: the reader\'s inputs, query and factor; the button copies the script; none while an input is bad', () => onChapter('chapters/2-self-attention', async (page) => {
  await page.fill('[data-editor="inputs"] input[data-row="1"][data-col="0"]', '0.9');
  await page.selectOption('#query', '2');
  await page.locator('#factor').fill('0.48'); // × 3.02: the slider moves in powers of ten
  await page.waitForFunction(() => document.querySelector('[data-pytorch] pre code').textContent.includes('* 3.02\n'));
  const code = await checkScript(page, 'chapter 2');
  assert.match(code, /\[0\.9, 0\.87, 0\.66\],\s+# journey/);
  await page.click('[data-pytorch] button');
  await page.waitForFunction(() => document.querySelector('[data-pytorch] [role="status"]').textContent.startsWith('Copied'));
  assert.equal(await page.evaluate(() => navigator.clipboard.readText()), code);
  // an overflowing factor: the naive softmax is NaN in both
  await page.locator('#factor').fill('2');
  await page.waitForFunction(() => document.querySelector('[data-pytorch] pre code').textContent.includes('* 100\n'));
  await checkScript(page, 'chapter 2, factor 100');
  await page.fill('[data-editor="inputs"] input[data-row="0"][data-col="0"]', '');
  await page.waitForSelector('[data-pytorch] button:disabled');
  assert.equal(await page.textContent('[data-pytorch] [role="status"]'), 'Fix the input above to get the script.');
}));

test('chapter 3: another seed, d_out and input', () => onChapter('chapters/3-trainable-weights', async (page) => {
  await page.fill('#seed', '7');
  await page.fill('#d-out', '3');
  await page.fill('[data-editor="inputs"] input[data-row="4"][data-col="2"]', '-0.5');
  await page.waitForFunction(() => document.querySelector('[data-pytorch] pre code').textContent.includes('torch.manual_seed(7)'));
  await page.waitForFunction(() => document.querySelector('[data-pytorch] pre code').textContent.includes('d_in, d_out = 3, 3'));
  await checkScript(page, 'chapter 3');
}));

test('chapter 3: the fitted weights it opens on, loaded with load_state_dict', () => onChapter('chapters/3-trainable-weights', async (page) => {
  await page.waitForFunction(() => document.querySelector('[data-pytorch] pre code').textContent.includes('sa_v1.load_state_dict({'));
  await checkScript(page, 'chapter 3, fitted');
}));

test('chapter 4: another factor and d_k', () => onChapter('chapters/4-scaling', async (page) => {
  await setRange(page, '#factor', 1.3);
  await setRange(page, '#dk', 3);
  await page.waitForFunction(() => document.querySelector('[data-pytorch] pre code').textContent.includes('torch.randn(1, 8)'));
  await checkScript(page, 'chapter 4');
}));

test('chapter 5: causal, padding and a clicked cell with -1e9; every key masked with -inf', () => onChapter('chapters/5-masking', async (page) => {
  await setRange(page, '#length', 4);
  await page.selectOption('#fill', '-1e9');
  await page.click(heroCell('mask', 5, 1));
  await page.waitForFunction(() => document.querySelector('[data-pytorch] pre code').textContent.includes('mask[5, 1] = 0'));
  const code = await checkScript(page, 'chapter 5');
  assert.match(code, /mask = torch\.tril\(mask\)/);
  assert.match(code, /mask\[:, 4:\] = 0/);
  await setRange(page, '#length', 0);
  await page.selectOption('#fill', '-inf');
  await page.waitForFunction(() => document.querySelector('[data-pytorch] pre code').textContent.includes('nan_to_num'));
  await checkScript(page, 'chapter 5, every key masked');
}));

test('chapter 6: the fitted heads it opens on, causal', () => onChapter('chapters/6-multi-head', async (page) => {
  await page.check('#causal');
  await page.waitForFunction(() => document.querySelector('[data-pytorch] pre code').textContent.includes('torch.tril'));
  assert.match(await page.textContent('[data-pytorch] pre code'), /mha\.load_state_dict\(\{/);
  await checkScript(page, 'chapter 6, fitted');
}));

test('chapter 6: the reader\'s sentence, heads, seed and causal mask', () => onChapter('chapters/6-multi-head', async (page) => {
  await page.fill('#sentence', 'the dog saw the cat "quoted" \\ here');
  await page.selectOption('#weights', 'seeded');
  await page.selectOption('#num-heads', '3');
  await page.fill('#seed', '5');
  await page.check('#causal');
  await page.waitForFunction(() => document.querySelector('[data-pytorch] pre code').textContent.includes('MultiHeadAttention(12, 3)'));
  await page.waitForFunction(() => document.querySelector('[data-pytorch] pre code').textContent.includes('torch.manual_seed(5)'));
  await checkScript(page, 'chapter 6');
}));

test('chapter 7, where order comes from: positions added, Llama 3\'s theta with llama3 scaling, shifted far', () => onChapter('chapters/positions', async (page) => {
  await page.check('#sinusoidal');
  await page.selectOption('#rope-theta', '500000');
  await page.check('#rope-scaling');
  await page.fill('#shift', '3000');
  await page.waitForFunction(() => document.querySelector('[data-pytorch] pre code').textContent.includes('score(3005, 3002)'));
  const code = await checkScript(page, 'chapter 7, positions');
  assert.match(code, /x = x \+ sinusoidal_positions\(len\(ws\), 8\)/);
  assert.match(code, /f = inv_freq\(16, 500000, \(8, 1, 4, 8192\)\)/);
}));
