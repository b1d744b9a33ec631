// One visual language (docs/site.md, components/colour-scales.js), checked on the pages: attention weights on
// one 0-1 scale everywhere, signed values on a scale centred on 0 shared by the matrices drawn side by side, the
// mask as the formula adds it (0 or −∞), one hatching for masked cells, one colour per head with a key.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { artifactPath, assertClean, hero, heroCell, measured, settled, useSite } from './harness.js';

const DESKTOP = { width: 1280, height: 900 };
const PHONE = { width: 390, height: 844 };
const site = useSite();
const load = (path, viewport = DESKTOP, options) => site.load(path, viewport, options);

test('4. the −1e9 mask view: compact labels that fit, a colour scale of the unmasked scores, hatched masked cells', async () => {
  const { page, context, problems } = await load('chapters/5-masking');
  await page.selectOption('#fill', '-1e9');
  const stage = hero('masked-scores');
  await page.waitForFunction((sel) => document.querySelector(`${sel} g.cell.masked text`)?.textContent === '−1e9', stage);
  const cells = await page.$$eval(`${stage} g.cell`, (els) => els.map((g) => ({
    masked: g.classList.contains('masked'), value: Number(g.dataset.value), text: g.querySelector('text').textContent,
    textWidth: g.querySelector('text').getBBox().width, cellWidth: Number(g.querySelector('rect').getAttribute('width')),
    fill: g.querySelector('rect').getAttribute('fill'),
  })));
  const masked = cells.filter((c) => c.masked);
  assert.equal(masked.length, 15); // the causal mask's upper triangle
  for (const c of masked) {
    assert.equal(c.text, '−1e9');
    assert.equal(c.value, -1e9);
    assert.ok(c.textWidth < c.cellWidth - 4, `label ${c.textWidth}px in a ${c.cellWidth}px cell`);
    assert.match(c.fill, /^url\(#pipeline-hatch-/);
  }
  const unmasked = cells.filter((c) => !c.masked).map((c) => c.value);
  const legend = await page.$$eval(`${stage} .legend text`, (t) => t.map((e) => e.textContent));
  // Scores are signed: a scale centred on 0 that reaches the largest unmasked score either way (colour-scales.js).
  const reach = Math.max(...unmasked.map(Math.abs));
  assert.deepEqual(legend, [(-reach).toFixed(2), reach.toFixed(2), '0', 'masked (−1e9)']);
  // Every unmasked cell takes its own colour from the scale: the lowest and the highest differ.
  const fills = new Set(cells.filter((c) => !c.masked).map((c) => c.fill));
  assert.ok(fills.size > 10, `${fills.size} colours for ${unmasked.length} unmasked scores`);
  await page.locator('[data-figure="pipeline"]').screenshot({ path: artifactPath('lesson-mask-1e9.png') });
  await context.close();
  assertClean(problems);
});

test('weights share the 0-1 colour scale; ω/Σω shares the softmax axis; chapter 1 shows its context vector and keeps lines off its labels', async () => {
  for (const [chapter, figures] of [['2-self-attention', [hero('weights')]], ['3-trainable-weights', [hero('weights')]],
    ['5-masking', ['[data-figure="weights-before"]', hero('weights')]], ['6-multi-head', [hero('weights')]]]) {
    const { page, context } = await load(`chapters/${chapter}`);
    for (const figure of figures) {
      const legends = await page.$$eval(`${figure} .legend`, (l) => l.map((g) => [...g.querySelectorAll('text')].map((t) => Number(t.textContent))));
      assert.ok(legends.length > 0, `${chapter} ${figure}`);
      for (const legend of legends) assert.deepEqual(legend.slice(0, 2), [0, 1], `${chapter} ${figure}`);
    }
    if (chapter === '2-self-attention') {
      const domains = await page.$$eval('[data-figure="sum-normalised"] svg, [data-figure="naive-softmax"] svg, [data-figure="softmax"] svg', (s) => s.map((e) => e.dataset.domain));
      assert.deepEqual(domains, ['0,1', '0,1', '0,1']);
    }
    await context.close();
  }
  const { page, context, problems } = await load('chapters/1-why-attention');
  const weights = await page.$$eval('[data-figure="bahdanau-weights"] g.bar', (b) => b.map((e) => Number(e.dataset.value)));
  const states = await page.$$eval('[data-figure="encoder-states"] g.cell', (c) => c.map((e) => Number(e.dataset.value)));
  const z = await page.$$eval('[data-figure="context-vector"] g.cell', (c) => c.map((e) => Number(e.dataset.value)));
  for (let d = 0; d < 3; d++) {
    const expected = weights.reduce((sum, w, j) => sum + w * states[j * 3 + d], 0);
    assert.ok(Math.abs(z[d] - expected) < 1e-5, `z[${d}] ${z[d]} vs ${expected}`);
  }
  for (const viewport of [DESKTOP, PHONE]) {
    await page.setViewportSize(viewport);
    await settled(page);
    const crossings = await page.$eval('[data-figure="bottleneck"] svg', (svg) => {
      const labels = [...svg.querySelectorAll('text')].map((t) => ({ text: t.textContent, box: t.getBBox() }));
      const hits = [];
      for (const path of svg.querySelectorAll('.attention-lines path')) {
        for (let s = 0; s <= path.getTotalLength(); s += 2) {
          const p = path.getPointAtLength(s);
          for (const { text, box } of labels) {
            if (p.x > box.x && p.x < box.x + box.width && p.y > box.y && p.y < box.y + box.height) hits.push(text);
          }
        }
      }
      return [...new Set(hits)];
    });
    assert.deepEqual(crossings, [], `${viewport.width}px: lines cross ${crossings}`);
  }
  await context.close();
  assertClean(problems);
});

test('chapter 3: the scores and the scaled scores share one colour scale, so that √d_k shows as fading', async () => {
  const { page, context, problems } = await load('chapters/3-trainable-weights');
  await page.fill('#d-out', '8');
  await page.waitForFunction((sel) => document.querySelector(sel)?.textContent === '÷ √8', `${hero('scaled-scores')} .stage-title`);
  const maps = await Promise.all(['scores', 'scaled-scores'].map((id) => page.$eval(hero(id), (g) => ({
    legend: [...g.querySelectorAll('.legend text')].map((t) => t.textContent),
    cells: [...g.querySelectorAll('g.cell')].map((c) => ({ v: Number(c.dataset.value), fill: c.querySelector('rect').getAttribute('fill') })),
  }))));
  assert.deepEqual(maps[0].legend, maps[1].legend);
  // Signed scores: centred on 0, reaching the largest score of either map either way.
  const reach = Math.max(...[...maps[0].cells, ...maps[1].cells].map((c) => Math.abs(c.v)));
  assert.deepEqual(maps[0].legend, [(-reach).toFixed(2), reach.toFixed(2), '0']);
  // The scaled map's largest cell is not the scale's top colour, as it was when each map had its own scale.
  const top = maps[0].cells.reduce((a, b) => (b.v > a.v ? b : a));
  const scaledTop = maps[1].cells.reduce((a, b) => (b.v > a.v ? b : a));
  assert.notEqual(scaledTop.fill, top.fill);
  await context.close();
  assertClean(problems);
});

test('chapter 5 draws the mask as the formula adds it: 0 to attend, −∞ hatched, a two-swatch key', async () => {
  const { page, context, problems } = await load('chapters/5-masking');
  const cells = await page.$$eval(`${hero('mask')} g.cell`, (c) => c.map((e) => [e.classList.contains('masked'), e.querySelector('text').textContent, Number(e.dataset.value)]));
  assert.equal(cells.length, 36);
  for (const [masked, text, value] of cells) assert.deepEqual([text, value], masked ? ['−∞', -Infinity] : ['0', 0]);
  assert.equal(cells.filter(([masked]) => masked).length, 15); // the causal mask's upper triangle
  assert.deepEqual(await page.$$eval(`${hero('mask')} .legend text`, (t) => t.map((e) => e.textContent)), ['attend (0)', 'masked (−∞)']);
  assert.match(await page.getAttribute(heroCell('mask', 0, 1), 'aria-label'), /: −∞ \(masked\)$/);
  await context.close();
  assertClean(problems);
});

test('chapter 8: a head wears one colour in the flow figure, its key and the head view', async () => {
  const { page, context, problems } = await load('chapters/7-language-model');
  await measured(page);
  const key = await page.$$eval('[data-figure="flow"] .head-legend li', (li) => li.map((e) => [e.textContent, e.querySelector('.swatch').style.background]));
  assert.equal(key.length, 8);
  assert.deepEqual(key[7], ['layer 2, head 4', 'var(--head-8)']);
  // Layer 2's head view colours its heads from the same places in the model.
  await page.selectOption('#head-view-layer', '1');
  await page.waitForFunction(() => [...document.querySelectorAll('[data-figure="trained-head-view"] .head-picker .swatch')]
    .map((e) => e.style.background).join() === 'var(--head-5),var(--head-6),var(--head-7),var(--head-8)');
  await context.close();
  assertClean(problems);
});
