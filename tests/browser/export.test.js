// A figure's downloads: its numbers as JSON and CSV equal to what it draws,
// its SVG self-contained and drawn the same when opened on its own, its PNG at
// twice the size.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';

import { artifactPath, assertClean, comparePngs, dataUrl, useSite } from './harness.js';

const site = useSite();

/** Clicks one download of a figure's menu; the file's name and bytes. */
async function download(page, figure, format) {
  const menu = `${figure} > details.figure-export`;
  if (!(await page.$eval(menu, (d) => d.open))) await page.click(`${menu} > summary`);
  const [file] = await Promise.all([page.waitForEvent('download'), page.click(`${menu} button[data-format="${format}"]`)]);
  const path = artifactPath(`export-${file.suggestedFilename()}`);
  await file.saveAs(path);
  return { name: file.suggestedFilename(), bytes: readFileSync(path) };
}

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
  const original = await page.locator(`${figure} svg`).screenshot();
  const box = await page.locator(`${figure} svg`).boundingBox();
  const alone = await context.newPage();
  // at the same fraction of a pixel as on the page, so that edges fall on the same pixels
  await alone.setContent(`<!doctype html><body style="margin:0"><div style="position:absolute;left:${box.x % 1}px;top:${box.y % 1}px">` +
    `${text.replace(/^<\?xml[^>]*>/, '')}</div></body>`);
  const standalone = await alone.locator('svg').screenshot();
  const { differing, sizes } = await comparePngs(page, dataUrl('image/png', original), dataUrl('image/png', standalone));
  assert.deepEqual(sizes[0], sizes[1]);
  assert.ok(differing <= sizes[0][0] * sizes[0][1] * 0.002, `${differing} pixels differ`);
  await alone.close();

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
