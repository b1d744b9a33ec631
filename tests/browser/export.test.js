// A figure's downloads: its numbers as JSON and CSV equal to what it draws,
// its SVG self-contained and drawn the same when opened on its own, its PNG at
// twice the size.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';

import { assertClean, assertDrawnAlikeAlone, comparePngs, dataUrl, download, measured, useSite } from './harness.js';

const site = useSite();

test('chapter 5: the hero downloaded as JSON, CSV, SVG and PNG: every matrix, the masked scores among them', async () => {
  const { page, context, problems } = await site.load('chapters/5-masking');
  const figure = '[data-figure="pipeline"]';
  const stage = `${figure} g.stage[data-id="masked-scores"]`;
  const shown = await page.$$eval(`${stage} g.cell`, (cells) => {
    const rows = [];
    for (const c of cells) (rows[Number(c.dataset.row)] ??= []).push(Number(c.dataset.value));
    return rows;
  });

  const json = await download(page, figure, 'json');
  assert.match(json.name, /^the-whole-computation-q-k-scaled-scores-mask-softmax.*\.json$/);
  const matrices = JSON.parse(json.bytes.toString('utf8'));
  assert.deepEqual(matrices.map((m) => m.title.split(':')[0]), ['Q', 'K', 'Ω / √d_k', 'M', 'Ω + M', 'A', 'V', 'Z']);
  const parsed = matrices[4];
  assert.deepEqual(parsed.rows, ['Your', 'journey', 'starts', 'with', 'one', 'step']);
  assert.deepEqual(parsed.columns, parsed.rows);
  assert.deepEqual(parsed.values.map((r) => r.map(Number)), shown); // "-Infinity" for masked scores
  assert.equal(parsed.values[0][1], '-Infinity');

  // CSV: the matrices one after another, each under its title.
  const csv = (await download(page, figure, 'csv')).bytes.toString('utf8').split('\r\n');
  const at = csv.findIndex((l) => l.startsWith('Ω + M:'));
  assert.deepEqual(csv[at + 1].split(','), ['', 'Your', 'journey', 'starts', 'with', 'one', 'step']);
  assert.deepEqual(csv.slice(at + 2, at + 8).map((l) => l.split(',').slice(1).map(Number)), shown);

  // The SVG on its own page draws what the figure draws.
  const svg = await download(page, figure, 'svg');
  const text = svg.bytes.toString('utf8');
  assert.match(text, /^<\?xml/);
  assert.doesNotMatch(text, /<link|@import|url\(["']?http/, 'nothing outside the file');
  assert.match(text, /<text[^>]*style="fill:rgb[^"]*font-family:/, 'styles written on the elements');
  await assertDrawnAlikeAlone(page, `${figure} svg`, text);

  // The PNG: twice the figure's size.
  const pngFile = await download(page, figure, 'png');
  const [w, h] = await page.$eval(`${figure} svg`, (s) => [s.width.baseVal.value, s.height.baseVal.value]);
  const png = await comparePngs(page, dataUrl('image/png', pngFile.bytes), dataUrl('image/png', pngFile.bytes));
  assert.deepEqual(png.sizes[0], [Math.round(2 * w), Math.round(2 * h)]);
  await context.close();
  assertClean(problems);
});

test('chapter 8: the head shown in full and the head view download their numbers', async () => {
  const { page, context, problems } = await site.load('chapters/7-language-model');
  await measured(page);
  const map = '[data-figure="head-map"]';
  assert.equal(await page.textContent(`${map} .heatmap-title`), 'Layer 2, head 4'); // the measured subject head, at first
  const parsed = JSON.parse((await download(page, map, 'json')).bytes.toString('utf8'));
  assert.equal(parsed.values.length, 9);
  parsed.values.forEach((row) => assert.ok(Math.abs(row.reduce((a, b) => a + b, 0) - 1) < 1e-5, 'each row of weights sums to 1'));
  const focus = Number(await page.getAttribute('#probe-heads li:nth-child(8)', 'data-focus'));
  const last = parsed.values.at(-1);
  assert.equal(last.indexOf(Math.max(...last)), focus);
  assert.equal((await download(page, map, 'png')).bytes.subarray(1, 4).toString(), 'PNG');
  const view = JSON.parse((await download(page, '[data-figure="trained-head-view"]', 'json')).bytes.toString('utf8'));
  assert.equal(view.rows.length, 4 * 9);
  assert.equal(view.rows[3 * 9 + 8], 'head 4, ,');
  await context.close();
  assertClean(problems);
});

test('chapter 8: the layers × heads grid downloads as SVG and PNG: one picture per head, its axes named', async () => {
  const { page, context, problems } = await site.load('chapters/7-language-model');
  await measured(page);
  const grid = '[data-figure="model-attention"]';
  const svg = (await download(page, grid, 'svg')).bytes.toString('utf8');
  const parsed = await page.evaluate((text) => {
    const doc = new DOMParser().parseFromString(text, 'image/svg+xml');
    return {
      error: doc.querySelector('parsererror')?.textContent ?? null,
      images: [...doc.querySelectorAll('image')].map((i) => i.getAttribute('href').slice(0, 22)),
      labels: [...doc.querySelectorAll('text')].map((t) => t.textContent),
    };
  }, svg);
  assert.equal(parsed.error, null);
  assert.deepEqual(parsed.images, Array(8).fill('data:image/png;base64,'));
  assert.deepEqual(parsed.labels, ['h1', 'h2', 'h3', 'h4', 'L1', 'L2']);
  // Each picture is its head's map: the subject head's last row is brightest where the list says it looks.
  const brightest = await page.$eval(`${grid} g.thumb[data-layer="1"][data-head="3"] image`, async (image) => {
    const img = new Image();
    img.src = image.getAttribute('href');
    await img.decode();
    const canvas = Object.assign(document.createElement('canvas'), { width: img.width, height: img.height });
    const ctx = canvas.getContext('2d');
    ctx.drawImage(img, 0, 0);
    const row = ctx.getImageData(0, img.height - 1, img.width, 1).data;
    const light = Array.from({ length: img.width }, (_, j) => row[4 * j] + row[4 * j + 1]); // viridis grows in red and green
    return light.indexOf(Math.max(...light));
  });
  assert.equal(brightest, Number(await page.getAttribute('#probe-heads li:nth-child(8)', 'data-focus')));
  assert.equal((await download(page, grid, 'png')).bytes.subarray(1, 4).toString(), 'PNG');
  await context.close();
  assertClean(problems);
});

test('chapter 1: the diagram\'s download menu stays open when it makes the page taller (it was redrawn away), and downloads the weights its lines are drawn with', async () => {
  const { page, context, problems } = await site.load('chapters/1-why-attention');
  const figure = '[data-figure="bottleneck"] .diagram-holder';
  const weights = await page.$$eval('[data-figure="bahdanau-weights"] g.bar', (b) => b.map((e) => Number(e.dataset.value)));
  const parsed = JSON.parse((await download(page, figure, 'json')).bytes.toString('utf8'));
  assert.deepEqual(parsed.columns, ['Your', 'journey', 'starts', 'with', 'one', 'step']);
  assert.deepEqual(parsed.values, [weights]);
  await assertDrawnAlikeAlone(page, `${figure} svg`, (await download(page, figure, 'svg')).bytes.toString('utf8'));
  await context.close();
  assertClean(problems);
});

test('a figure has one menu, out of sight until the figure is pointed at or focused; its link opens the page at that figure', async () => {
  const { page, context, problems } = await site.load('chapters/3-trainable-weights');
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: site.server.origin });
  const figure = '[data-figure="W_value"]';
  const menu = `${figure} > details.figure-export`;
  assert.equal(await page.locator(menu).count(), 1);
  const opacity = () => page.$eval(menu, (d) => getComputedStyle(d).opacity);
  await page.mouse.move(0, 0);
  assert.equal(await opacity(), '0');
  await page.hover(`${figure} svg`);
  await page.waitForFunction((m) => getComputedStyle(document.querySelector(m)).opacity === '1', menu);
  await page.mouse.move(0, 0);
  await page.focus(`${menu} > summary`); // the keyboard reaches it, and it shows
  await page.waitForFunction((m) => getComputedStyle(document.querySelector(m)).opacity === '1', menu);
  await page.click(`${menu} > summary`);
  await page.click(`${menu} button[data-format="link"]`);
  const link = await page.evaluate(() => navigator.clipboard.readText());
  assert.match(link, /chapters\/3-trainable-weights\.html(\?[^#]*)?#figure-w-value$/);
  // Opened, the page draws its figures and then goes to this one.
  await page.goto('about:blank');
  await page.goto(link);
  await page.waitForSelector('body[data-ready="true"]');
  await page.waitForFunction((f) => Math.abs(document.querySelector(f).getBoundingClientRect().top) < 120, figure);
  await context.close();
  assertClean(problems);
});
