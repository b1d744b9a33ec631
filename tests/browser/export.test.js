// A figure's downloads: its numbers as JSON and CSV equal to what it draws,
// its SVG self-contained and drawn the same when opened on its own, its PNG at
// twice the size.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';

import { assertClean, assertDrawnAlikeAlone, comparePngs, dataUrl, download, useSite } from './harness.js';

const site = useSite();

test('chapter 5: the masked scores downloaded as JSON, CSV, SVG and PNG', async () => {
  const { page, context, problems } = await site.load('chapters/5-masking');
  const figure = '[data-figure="masked-scores"]';
  const shown = await page.$$eval(`${figure} g.heatmap-row`, (rows) => rows.map((r) => Array.from(r.querySelectorAll('g.cell'), (c) => Number(c.dataset.value))));

  const json = await download(page, figure, 'json');
  assert.equal(json.name, 'masked-scaled-scores.json');
  const parsed = JSON.parse(json.bytes.toString('utf8'));
  assert.deepEqual(parsed.rows, ['Your', 'journey', 'starts', 'with', 'one', 'step']);
  assert.deepEqual(parsed.columns, parsed.rows);
  assert.deepEqual(parsed.values.map((r) => r.map(Number)), shown); // "-Infinity" for masked scores
  assert.equal(parsed.values[0][1], '-Infinity');

  const csv = (await download(page, figure, 'csv')).bytes.toString('utf8').trim().split('\r\n').map((l) => l.split(','));
  assert.deepEqual(csv[0], ['', 'Your', 'journey', 'starts', 'with', 'one', 'step']);
  assert.deepEqual(csv.slice(1).map((r) => r.slice(1).map(Number)), shown);

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

test('chapter 7: a canvas map and the head view download their numbers', async () => {
  const { page, context, problems } = await site.load('chapters/7-language-model');
  await page.waitForSelector('#probe-summary[data-best]');
  const map = '[data-figure="model-attention"] figure[data-layer="1"][data-head="3"]';
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

test('chapter 3: the points of the 2-D and 3-D views and the projections download as SVG and numbers', async () => {
  const { page, context, problems } = await site.load('chapters/3-trainable-weights');
  const rowsOf = (figure) => page.$$eval(`[data-figure="${figure}"] g.heatmap-row`, (rows) =>
    rows.map((r) => Array.from(r.querySelectorAll('g.cell'), (c) => Number(c.dataset.value))));
  const [queries, keys] = [await rowsOf('queries'), await rowsOf('keys')];
  // 2-D: a row per point, named by its set and token, its coordinates those of the Q and K maps
  const points = JSON.parse((await download(page, '[data-figure="space"]', 'json')).bytes.toString('utf8'));
  assert.deepEqual(points.columns, ['d1', 'd2']);
  assert.equal(points.rows[0], 'queries: Your');
  assert.equal(points.rows[6], 'keys: Your');
  assert.deepEqual(points.values, [...queries, ...keys]);
  await assertDrawnAlikeAlone(page, '[data-figure="space"] svg.scatter', (await download(page, '[data-figure="space"]', 'svg')).bytes.toString('utf8'));
  // projections: each key's score, as in the score map's row of the query
  const projections = JSON.parse((await download(page, '[data-figure="projections"]', 'json')).bytes.toString('utf8'));
  assert.deepEqual(projections.columns, ['d1', 'd2', 'k · q̂', 'score q · k']);
  const scores = (await rowsOf('attn-scores'))[1];
  projections.values.forEach((row, j) => assert.ok(Math.abs(row[3] - scores[j]) < 1e-6, `score of key ${j}`));
  await assertDrawnAlikeAlone(page, '[data-figure="projections"] svg.scatter', (await download(page, '[data-figure="projections"]', 'svg')).bytes.toString('utf8'));
  // 3-D: the three.js view as it is turned, in SVG; its numbers three coordinates a point
  await page.fill('#d-out', '3');
  await page.waitForSelector('[data-figure="space"] svg.scatter3d');
  await page.focus('[data-figure="space"] svg.scatter3d');
  await page.keyboard.press('ArrowLeft');
  const view = (await download(page, '[data-figure="space"]', 'svg')).bytes.toString('utf8');
  assert.equal(view.match(/<text/g).length, 3 + 12, 'three axis names and twelve point labels');
  await assertDrawnAlikeAlone(page, '[data-figure="space"] svg.scatter3d', view);
  const points3 = JSON.parse((await download(page, '[data-figure="space"]', 'json')).bytes.toString('utf8'));
  assert.deepEqual(points3.columns, ['d1', 'd2', 'd3']);
  assert.deepEqual(points3.values, [...await rowsOf('queries'), ...await rowsOf('keys')]);
  await context.close();
  assertClean(problems);
});

test('chapter 7: a canvas map downloads as SVG: the same cells in the same colours, the same labels', async () => {
  const { page, context, problems } = await site.load('chapters/7-language-model');
  await page.waitForSelector('#probe-summary[data-best]'); // the maps are drawn again once the measurement arrives
  const map = '[data-figure="model-attention"] figure[data-layer="1"][data-head="3"]';
  const svg = (await download(page, map, 'svg')).bytes.toString('utf8');
  const shown = await page.$eval(`${map} canvas`, (canvas) => {
    const { left, top, cell, rows, cols } = Object.fromEntries(Object.entries(canvas.dataset).map(([k, v]) => [k, Number(v)]));
    const ctx = canvas.getContext('2d');
    const colours = [];
    for (let i = 0; i < rows; i++)
      for (let j = 0; j < cols; j++) {
        const [r, g, b] = ctx.getImageData(left + j * cell + cell / 2, top + i * cell + cell / 2, 1, 1).data;
        colours.push([r, g, b]);
      }
    return { colours, size: [canvas.width, canvas.height] };
  });
  const parsed = await page.evaluate((text) => {
    const doc = new DOMParser().parseFromString(text, 'image/svg+xml');
    const root = doc.documentElement;
    const rgb = (colour) => {
      const probe = document.createElement('span');
      probe.style.color = colour;
      document.body.append(probe);
      const value = getComputedStyle(probe).color.match(/\d+/g).slice(0, 3).map(Number);
      probe.remove();
      return value;
    };
    return {
      error: doc.querySelector('parsererror')?.textContent ?? null,
      size: [Number(root.getAttribute('width')), Number(root.getAttribute('height'))],
      cells: [...root.querySelectorAll('rect')].slice(1).map((r) => rgb(r.getAttribute('fill'))), // the first is the background
      labels: [...root.querySelectorAll('text')].map((t) => t.textContent),
    };
  }, svg);
  assert.equal(parsed.error, null);
  assert.deepEqual(parsed.size, shown.size);
  assert.equal(parsed.cells.length, 81);
  parsed.cells.forEach((c, k) => assert.ok(c.every((v, ch) => Math.abs(v - shown.colours[k][ch]) <= 1), `cell ${k}: ${c} vs ${shown.colours[k]}`));
  const words = ['The', ' cats', ',', ' which', ' slept', ' near', ' the', ' dog', ','];
  assert.deepEqual(parsed.labels, [...words, ...words]);
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
