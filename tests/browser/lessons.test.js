// The site as a lesson: every figure read the right way, on every screen, by
// every reader. Each test checks one promise of the site to a learner (errors beside
// their cause are reader-errors.test.js's; controls' names accessible-names.test.js's; colours, scales and
// masks visual-language.test.js's): prose that follows the model shown, named axes, chapters that show their
// effect, controls that fit, phones, the keyboard and the head view. Every page's
// accessibility (axe-core) and contrast are measured where site.test.js loads
// each page at each width and theme (accessibility.js).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';

import { createAttention } from '../../web/lib/index.js';
import { artifactPath, assertClean, drawn, focusForKeys, hero, heroCell, measured, ready, settled, useSite } from './harness.js';

const CHAPTERS = ['1-why-attention', '2-self-attention', '3-trainable-weights', '4-scaling', '5-masking', '6-multi-head', 'positions', '7-language-model',
  '8-your-model', 'at-scale', '9-induction-heads'];
const DESKTOP = { width: 1280, height: 900 };
const PHONE = { width: 390, height: 844 };
const QUERY_AXIS = 'query (the token attending) →';
const KEY_AXIS = 'key (the token attended to) →';

const site = useSite();
const load = (path, viewport = DESKTOP, options) => site.load(path, viewport, options);

describe('2. descriptions follow the model that is shown', () => {
  test('chapter 8 names the active model, offers the shipped one back, and computes its claims from the active model', async () => {
    // A small model trained here on the agreement corpus: a different model with different heads.
    const attn = await createAttention();
    const trainer = new attn.Trainer({
      model: { nLayer: 1, nHead: 2, nEmbd: 16, nInner: 64, blockSize: 32, bias: false, attentionBias: false, tieEmbeddings: true },
      training: { batchSize: 8, tokenizer: 'word', learningRate: 3e-3 },
      text: attn.agreementCorpus(20000, 3), // every word the probe's sentences use
    });
    for (let i = 0; i < 5; i++) trainer.step();
    const bytes = Buffer.from(trainer.checkpoint());
    trainer.dispose();

    const { page, context, problems } = await load('chapters/7-language-model');
    await measured(page);
    assert.equal(await page.getAttribute('#active-model', 'data-active'), 'shipped');
    assert.match(await page.textContent('#active-model'), /^Active model: the shipped one/);
    const shippedClaim = await page.textContent('#probe-claim');
    const [sl, sh] = (await page.getAttribute('#probe-summary', 'data-best-head')).split(',').map(Number);
    assert.match(shippedClaim, new RegExp(`^In this model, layer ${sl + 1}, head ${sh + 1} is the head that looks hardest at the subject`));

    await page.setInputFiles('#upload', { name: 'tiny.safetensors', mimeType: 'application/octet-stream', buffer: bytes });
    await page.waitForFunction(() => document.querySelector('#active-model').dataset.active !== 'shipped');
    assert.match(await page.textContent('#active-model'), /^Active model: yours, “tiny” \(1 layers, 2 heads, words, trained 5 steps\)/);
    await measured(page);
    const [l, h] = (await page.getAttribute('#probe-summary', 'data-best-head')).split(',').map(Number);
    assert.equal(l, 0);
    assert.match(await page.textContent('#probe-claim'), new RegExp(`^In this model, layer 1, head ${h + 1} is the head`));
    assert.equal(await page.locator('[data-figure="model-attention"] g.thumb').count(), 2);
    // No sentence on the page claims the shipped model's head for this one.
    const text = await page.textContent('main');
    assert.ok(!text.includes(`layer ${sl + 1}, head ${sh + 1} is the head`), 'a claim about the shipped model is shown for the uploaded one');

    await page.reload();
    await ready(page);
    assert.match(await page.textContent('#active-model'), /^Active model: yours, “tiny”/);
    await page.click('#use-shipped');
    await page.waitForFunction(() => document.querySelector('#active-model').dataset.active === 'shipped');
    await drawn(page); // the grid is drawn a frame after the text's figures
    assert.equal(await page.locator('[data-figure="model-attention"] g.thumb').count(), 8);
    await context.close();
    assertClean(problems);
  });
});

describe('3. every attention map says which axis is which', () => {
  // [chapter, the hero's token × token matrices, the chapter's own maps]
  for (const [chapter, hero, maps] of [['2-self-attention', 'Ω, A', []], ['3-trainable-weights', 'Ω, Ω / √d_k, A', []],
    ['5-masking', 'Ω / √d_k, M, Ω + M, A', ['weights-before']], ['6-multi-head', 'A (head 1)', []]]) {
    test(`chapter ${chapter}`, async () => {
      const { page, context, problems } = await load(`chapters/${chapter}`);
      const rowsSum = hero.includes('A') ? '; each row of A sums to 1' : '';
      assert.equal(await page.textContent('[data-figure="pipeline"] .pipeline-axes'),
        `In ${hero}: rows are queries (the token attending), columns are keys (the token attended to)${rowsSum}.`);
      for (const figure of maps) {
        const axes = await page.$$eval(`[data-figure="${figure}"] svg.heatmap`, (svgs) => svgs.map((s) => ({
          rows: s.querySelector('.row-axis')?.textContent, cols: s.querySelector('.col-axis')?.textContent,
          note: s.querySelector('.map-note')?.textContent ?? null, title: s.parentElement.querySelector('.heatmap-title').textContent,
        })));
        assert.ok(axes.length > 0, figure);
        for (const a of axes) {
          assert.equal(a.rows, QUERY_AXIS, `${figure}: ${a.title}`);
          assert.equal(a.cols, KEY_AXIS, `${figure}: ${a.title}`);
          assert.equal(a.note, 'each row sums to 1', `${figure}: ${a.title}`);
        }
      }
      await context.close();
      assertClean(problems);
    });
  }

  test('chapter 8 (every head of the model) and chapter 4 (the transposed convention some write-ups use)', async () => {
    const { page, context, problems } = await load('chapters/7-language-model');
    // The probe's measurement (from its worker) picks the head shown in full; the maps redraw after it.
    await measured(page);
    // The grid names its axes (layers down, heads across) and says how to move; the head shown in full has the
    // axes and the note of every other chapter's maps.
    assert.match(await page.getAttribute('[data-figure="model-attention"] svg', 'aria-label'), /: 2 layers by 4 heads\. Arrow keys move between heads, Enter shows one in full\.$/);
    assert.deepEqual(await page.$$eval('[data-figure="model-attention"] .axis-label', (t) => t.map((e) => e.textContent)), ['h1', 'h2', 'h3', 'h4', 'L1', 'L2']);
    const full = await page.$eval('[data-figure="head-map"] svg.heatmap', (s) => [s.querySelector('.row-axis').textContent, s.querySelector('.col-axis').textContent, s.querySelector('.map-note').textContent]);
    assert.deepEqual(full, [QUERY_AXIS, KEY_AXIS, 'each row sums to 1']);
    await context.close();
    const four = await load('chapters/4-scaling');
    assert.match(await four.page.textContent('main'), /keys as rows\s+and the queries as columns, so their softmax runs “column-wise”/);
    await four.context.close();
    assertClean(problems);
    assertClean(four.problems);
  });
});

test('5. chapter 4: multiplied scores visibly grow against the × 1 outline, the softmax\'s gradient vanishes, and the assumption of Var(q·k) = d_k is stated', async () => {
  const { page, context, problems } = await load('chapters/4-scaling');
  const heights = () => page.$$eval('[data-figure="raw-scores"] svg', ([svg]) => ({
    bars: [...svg.querySelectorAll('g.bar rect')].map((r) => Number(r.getAttribute('height'))),
    ghosts: [...svg.querySelectorAll('.ghost rect')].map((r) => Number(r.getAttribute('height'))),
  }));
  const gradient = () => page.$$eval('[data-figure="softmax-gradient"] g.bar', (b) => b.map((e) => Number(e.dataset.value)));
  const slope1 = await gradient();
  assert.ok(Math.max(...slope1) > 0.1, `at × 1 the softmax still moves: ${slope1}`);
  const at1 = await heights();
  assert.equal(at1.ghosts.length, 8);
  at1.bars.forEach((b, i) => assert.ok(Math.abs(b - at1.ghosts[i]) < 0.01, 'at × 1 the bars are their outlines'));
  await page.locator('#factor').fill('1'); // × 10
  await page.waitForFunction(() => document.querySelector('#factor-value').textContent === '10.0');
  const at10 = await heights();
  const tallest = (xs) => Math.max(...xs);
  assert.ok(tallest(at10.bars) > 8 * tallest(at10.ghosts), `× 10: bars ${tallest(at10.bars)} vs outlines ${tallest(at10.ghosts)}`);
  const softmax = await page.$$eval('[data-figure="scaled-softmax"] g.bar', (b) => b.map((e) => Number(e.dataset.value)));
  assert.ok(Math.max(...softmax) > 0.99, 'the softmax is a step');
  // ... and its derivative p(1 − p) has vanished: every weight is p ≈ 0 or p ≈ 1 (the gradient chapter 4 promises).
  const slope10 = await gradient();
  slope10.forEach((g, i) => assert.ok(Math.abs(g - softmax[i] * (1 - softmax[i])) < 1e-6, 'p(1 − p) of the drawn weights'));
  assert.ok(Math.max(...slope10) < 0.01, `× 10: ${slope10}`);
  assert.match(await page.textContent('main'), /independent with mean 0 and variance 1/);
  await page.locator('.figures').first().screenshot({ path: artifactPath('lesson-scaling-x10.png') });
  await context.close();
  assertClean(problems);
});

test('6. chapter 3: labelled points, named axes, values apart, a labelled 3-D view, and scores as projections', async () => {
  const { page, context, problems } = await load('chapters/3-trainable-weights');
  assert.ok(!(await page.textContent('main')).includes('a key close to'), 'the false caption is gone');
  for (const [figure, points] of [['space', 12], ['value-space', 6]]) {
    const svg = await page.$eval(`[data-figure="${figure}"] svg.scatter`, (s) => ({
      circles: s.querySelectorAll('circle').length, labels: [...s.querySelectorAll('.point-label')].map((t) => t.textContent),
      axes: [...s.querySelectorAll('.axis-title')].map((t) => t.textContent),
    }));
    assert.equal(svg.circles, points);
    assert.equal(svg.labels.length, points);
    assert.deepEqual(svg.axes, ['d1 →', 'd2 →']);
    // No two labels overlap, and none covers an axis title (journey/starts, Your/step used to).
    const overlaps = await page.$eval(`[data-figure="${figure}"] svg.scatter`, (s) => {
      const boxes = [...s.querySelectorAll('.point-label, .axis-title')].map((t) => ({ name: t.textContent, b: t.getBoundingClientRect() }));
      const hit = (a, b) => a.left < b.right - 0.5 && b.left < a.right - 0.5 && a.top < b.bottom - 0.5 && b.top < a.bottom - 0.5;
      const found = [];
      boxes.forEach((p, i) => boxes.slice(i + 1).forEach((q) => { if (hit(p.b, q.b)) found.push(`${p.name} / ${q.name}`); }));
      return found;
    });
    assert.deepEqual(overlaps, []);
  }
  // Projections: the key reaching furthest along the query is the one with the highest score in the map.
  const keys = await page.$$eval('[data-figure="projections"] g.key', (g) => g.map((e) => ({ along: Number(e.dataset.along), score: Number(e.dataset.score), best: e.classList.contains('best') })));
  assert.equal(keys.length, 6);
  const best = keys.findIndex((k) => k.best);
  assert.equal(best, keys.map((k) => k.score).indexOf(Math.max(...keys.map((k) => k.score))));
  const row = await page.$$eval(`${hero('scores')} g.cell[data-row="1"]`, (c) => c.map((e) => Number(e.dataset.value)));
  keys.forEach((k, j) => assert.ok(Math.abs(k.score - row[j]) < 1e-6));
  // The fitted weights (the default): different queries look for different keys. The notebooks' seeded ones: all
  // look for the longest key.
  assert.match(await page.textContent('#projection-readout'), /The highest score goes to 4 different keys across the queries/);
  await page.selectOption('#weights', 'seeded');
  await page.waitForFunction(() => /the same key, “journey”, the longest key/.test(document.querySelector('#projection-readout').textContent));
  await page.selectOption('#weights', 'fitted');
  // Three dimensions: the axes and every point carry their names inside the view.
  await page.fill('#d-out', '3');
  await page.waitForSelector('[data-figure="space"] svg.scatter3d');
  const view = await page.$eval('[data-figure="space"] svg.scatter3d', (svg) => {
    const box = svg.getBoundingClientRect();
    const texts = [...svg.querySelectorAll('text')].map((t) => ({ text: t.textContent, box: t.getBoundingClientRect() }));
    return { texts: texts.map((t) => t.text), inside: texts.every((t) => t.box.left >= box.left && t.box.right <= box.right && t.box.top >= box.top && t.box.bottom <= box.bottom) };
  });
  for (const name of ['d1', 'd2', 'd3', 'Your', 'journey', 'step']) assert.ok(view.texts.includes(name), name);
  assert.equal(view.texts.length, 3 + 12);
  assert.ok(view.inside, 'every 3-D label is inside the view');
  await page.locator('[data-figure="space"]').screenshot({ path: artifactPath('lesson-qk-3d.png') });
  await context.close();
  assertClean(problems);
});

test('7. controls fit their content', async () => {
  const sizes = {};
  for (const [chapter, selector] of [['6-multi-head', '#sentence'], ['7-language-model', '#probe'], ['7-language-model', '#prompt'],
    ['7-language-model', '#data-file'], ['5-masking', '#causal'], ['6-multi-head', '#causal']]) {
    const { page, context } = await load(`chapters/${chapter}`);
    sizes[`${chapter} ${selector}`] = await page.$eval(selector, (el) => {
      const box = el.getBoundingClientRect();
      const label = el.closest('label').getBoundingClientRect();
      return { width: box.width, scroll: el.scrollWidth - el.clientWidth, sameLine: box.top >= label.top - 2 && box.bottom <= label.bottom + 2 };
    });
    await context.close();
  }
  for (const key of ['6-multi-head #sentence', '7-language-model #probe', '7-language-model #prompt']) assert.ok(sizes[key].width >= 250, `${key}: ${sizes[key].width}px`);
  assert.ok(sizes['7-language-model #data-file'].width >= 180 && sizes['7-language-model #data-file'].scroll <= 0, JSON.stringify(sizes['7-language-model #data-file']));
  for (const key of ['5-masking #causal', '6-multi-head #causal']) assert.ok(sizes[key].width < 30 && sizes[key].sameLine, `${key}: ${JSON.stringify(sizes[key])}`);
});

describe('8. phones (390 px): no text in a figure below 11 px, no formula cut off, the controls stay near their figures', () => {
  for (const chapter of CHAPTERS) {
    test(chapter, async () => {
      const { page, context, problems } = await load(`chapters/${chapter}`, PHONE);
      await settled(page);
      const report = await page.evaluate(() => {
        const small = [];
        for (const t of document.querySelectorAll('main svg text')) {
          if (!t.getBBox().width || t.closest('.katex')) continue;
          const m = t.getScreenCTM();
          const size = parseFloat(getComputedStyle(t).fontSize) * Math.hypot(m.a, m.b);
          if (size < 10.99) small.push(`${t.textContent} (${size.toFixed(1)}px)`);
        }
        for (const c of document.querySelectorAll('main canvas')) {
          if (c.clientWidth < c.width - 0.5) small.push(`a canvas shrunk to ${(c.clientWidth / c.width).toFixed(2)}`);
        }
        for (const el of document.querySelectorAll('main figure *:not(svg *):not(.katex *)')) {
          if (el.childNodes.length && [...el.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim()) && parseFloat(getComputedStyle(el).fontSize) < 10.99) small.push(el.textContent);
        }
        const cut = [...document.querySelectorAll('.katex-display, main figure')].filter((k) => k.scrollWidth > k.clientWidth + 1)
          .map((k) => `${k.tagName} ${k.dataset.figure ?? ''} ${k.textContent.slice(0, 40)}`);
        const sticky = [...document.querySelectorAll('.controls.sticky')].map((c) => getComputedStyle(c).position);
        return { small, cut, sticky };
      });
      assert.deepEqual(report.small, [], `text below 11 px: ${report.small.slice(0, 5)}`);
      assert.deepEqual(report.cut, [], 'formulas or figures cut off (scrolling sideways)');
      if (['2-self-attention', '3-trainable-weights', '4-scaling', '5-masking', '6-multi-head', 'positions', '7-language-model'].includes(chapter)) {
        assert.ok(report.sticky.length > 0 && report.sticky.every((p) => p === 'sticky'), `controls: ${report.sticky}`);
      }
      await context.close();
      assertClean(problems);
    });
  }
});

test('the index sells each chapter: a picture, its title and what the reader will be able to do, in the navigation\'s order', async () => {
  for (const viewport of [DESKTOP, PHONE]) {
    const { page, context, problems } = await load('index', viewport);
    const items = await page.$$eval('#toc li', (lis) => lis.map((li) => ({
      title: li.querySelector('.card-title').textContent, lesson: li.querySelector('.lesson')?.textContent ?? '',
      href: li.querySelector('a').getAttribute('href'), shapes: li.querySelectorAll('svg.chapter-picture *').length,
      box: li.getBoundingClientRect().toJSON(),
    })));
    assert.equal(items.length, CHAPTERS.length);
    items.forEach(({ title, lesson, href, shapes }, k) => {
      assert.ok(lesson.length > 40 && lesson.endsWith('.'), `${title}: “${lesson}”`);
      assert.equal(href, `./chapters/${CHAPTERS[k]}.html`);
      assert.ok(shapes >= 5, `${title}: a picture of ${shapes} shapes`);
    });
    assert.equal(items[CHAPTERS.indexOf('8-your-model')].title, 'A model you bring');
    assert.equal(items[CHAPTERS.indexOf('positions')].title, 'Where order comes from');
    // Cards side by side on a wide screen, one under another on a phone; none leaves the page.
    const columns = new Set(items.map((i) => Math.round(i.box.left))).size;
    assert.ok(viewport === PHONE ? columns === 1 : columns >= 2, `${columns} columns at ${viewport.width}px`);
    assert.ok(items.every((i) => i.box.right <= viewport.width), 'a card leaves the page');
    await page.screenshot({ path: artifactPath(`index-${viewport.width}.png`), fullPage: true });
    await context.close();
    assertClean(problems);
  }
});

test('8. phones: the chapter navigation is one line that stays at the top, and opens to every chapter', async () => {
  const { page, context, problems } = await load('chapters/4-scaling', PHONE);
  const nav = await page.$eval('nav.chapters', (n) => n.getBoundingClientRect().height);
  assert.ok(nav <= 48, `the navigation is ${nav}px tall`);
  assert.equal(await page.textContent('nav .chapter-menu > summary'), `Chapter 4 of ${CHAPTERS.length}`);
  await page.evaluate(() => window.scrollTo(0, 2000));
  assert.equal(await page.$eval('nav.chapters', (n) => Math.round(n.getBoundingClientRect().top)), 0, 'it stays at the top');
  await page.click('nav .chapter-menu > summary');
  await page.click('nav .chapter-menu a[href="./5-masking.html"]');
  await page.waitForURL(/5-masking\.html/);
  await context.close();
  assertClean(problems);
});

describe('9. the keyboard', () => {
  test('the mask is one tab stop: arrows move, Enter toggles and keeps focus; a skip link comes first', async () => {
    const { page, context, problems } = await load('chapters/5-masking');
    await page.keyboard.press('Tab');
    assert.equal(await page.evaluate(() => document.activeElement.textContent), 'Skip to the content');
    await page.keyboard.press('Enter');
    assert.equal(await page.evaluate(() => document.activeElement.tagName), 'MAIN');
    assert.equal(await page.locator(`${hero('mask')} g.cell[tabindex="0"]`).count(), 1);
    assert.equal(await page.locator(`${hero('mask')} g.cell[tabindex="-1"]`).count(), 35);
    await focusForKeys(page, `${hero('mask')} g.cell[tabindex="0"]`);
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('ArrowRight');
    const at = () => page.evaluate(() => [document.activeElement.dataset.row, document.activeElement.dataset.col, document.activeElement.getAttribute('aria-pressed')]);
    assert.deepEqual(await at(), ['2', '1', 'false']);
    assert.match(await page.getAttribute(`${hero('mask')} g.cell[data-row="2"][data-col="1"]`, 'aria-label'), /^M, query starts, key journey: 0 \(attends\)$/);
    await page.keyboard.press('Enter');
    await page.waitForFunction((sel) => document.querySelector(sel).dataset.value === '0', heroCell('weights', 2, 1));
    assert.deepEqual(await at(), ['2', '1', 'true'], 'focus stays on the toggled cell');
    assert.equal(await page.locator(`${hero('mask')} g.cell[tabindex="0"]`).count(), 1);
    await page.keyboard.press(' ');
    await page.waitForFunction((sel) => document.querySelector(sel).dataset.value !== '0', heroCell('weights', 2, 1));
    assert.deepEqual(await at(), ['2', '1', 'false']);
    await context.close();
    assertClean(problems);
  });

  test('head-view tokens are named buttons', async () => {
    const { page, context, problems } = await load('chapters/6-multi-head');
    const tokens = await page.$$eval('svg.head-view g.tokens text', (t) => t.map((e) => [e.getAttribute('role'), e.getAttribute('aria-label'), e.getAttribute('tabindex')]));
    assert.equal(tokens.length, 16);
    assert.deepEqual(tokens[0], ['button', 'query “the”: show only its lines', '0']);
    assert.deepEqual(tokens[9], ['button', 'key “cat”: show only its lines', '0']);
    await context.close();
    assertClean(problems);
  });
});

describe('10. the head view teaches', () => {
  test('chapter 6: one head at first, others by choice, each its own colour; both sides highlight', async () => {
    const { page, context, problems } = await load('chapters/6-multi-head');
    const heads = () => page.$$eval('svg.head-view line', (l) => [...new Set(l.map((e) => e.dataset.head))]);
    assert.deepEqual(await heads(), ['0']);
    assert.deepEqual(await page.$$eval('svg.head-view .side-heading', (t) => t.map((e) => e.textContent)), ['query (attending)', 'key (attended to)']);
    assert.match(await page.textContent('main'), /untrained module: then the patterns\s+are random/);
    await page.selectOption('#weights', 'seeded');
    await page.selectOption('#num-heads', '12');
    await page.waitForFunction(() => document.querySelectorAll('.head-picker button').length === 12);
    for (let h = 1; h < 12; h++) await page.click(`.head-picker button[data-head="${h}"]`);
    assert.equal((await heads()).length, 12);
    const colours = await page.$$eval('svg.head-view line', (l) => [...new Set(l.map((e) => getComputedStyle(e).stroke))]);
    assert.equal(colours.length, 12, `colours: ${colours}`);
    // Hovering a key (right) keeps the lines into it; hovering a query (left) the lines out of it.
    await page.hover('svg.head-view .key-tokens text >> nth=2');
    const intoKey = await page.$$eval('svg.head-view line', (l) => [...new Set(l.map((e) => e.dataset.key))]);
    assert.deepEqual(intoKey, ['2']);
    await page.hover('svg.head-view .query-tokens text >> nth=4');
    assert.deepEqual(await page.$$eval('svg.head-view line', (l) => [...new Set(l.map((e) => e.dataset.query))]), ['4']);
    assert.ok(await page.$eval('svg.head-view', (s) => s.getBoundingClientRect().width >= 480));
    await page.locator('[data-figure="head-view"]').screenshot({ path: artifactPath('lesson-head-view-12.png') });
    await context.close();
    assertClean(problems);
  });

  test('chapter 8: a head view of the trained model, its subject head first', async () => {
    const { page, context, problems } = await load('chapters/7-language-model');
    await measured(page);
    const [l, h] = (await page.getAttribute('#probe-summary', 'data-best-head')).split(',');
    await page.waitForFunction((layer) => document.querySelector('#head-view-layer').value === layer, l);
    const shown = await page.$$eval('[data-figure="trained-head-view"] svg.head-view line', (lines) => [...new Set(lines.map((e) => e.dataset.head))]);
    assert.deepEqual(shown, [h]);
    // The comma at the end looks back at " cats" through the subject head.
    const fromLast = await page.$$eval('[data-figure="trained-head-view"] svg.head-view line', (lines) => lines
      .filter((e) => e.dataset.query === '8').map((e) => [Number(e.dataset.key), Number(e.dataset.weight)]));
    assert.equal(fromLast.sort((a, b) => b[1] - a[1])[0][0], 1);
    await page.locator('[data-figure="trained-head-view"]').screenshot({ path: artifactPath('lesson-trained-head-view.png') });
    await context.close();
    assertClean(problems);
  });
});

describe('the lesser points', () => {
  test('chapter 2: a naive softmax of NaN says why (e^149.5 = ∞, ∞ / ∞ = NaN)', async () => {
    const { page, context, problems } = await load('chapters/2-self-attention');
    assert.match(await page.textContent('#overflow-note'), /^The largest scaled score is 1\.5 \(“journey”\): e\^1\.5 still fits in float32/);
    await page.locator('#factor').fill('2'); // × 100: the slider moves in powers of ten
    await page.waitForFunction(() => document.querySelector('#overflow-note').textContent.startsWith('The naive softmax is NaN'));
    assert.match(await page.textContent('#overflow-note'), /the largest scaled score, 149\.5 for “journey”, gives e\^149\.5 = ∞ in float32 .* ∞ \/ ∞ = NaN/);
    await context.close();
    assertClean(problems);
  });

  test('chapter 8: the architecture has arrows, residual paths and the mask inside attention; the loss chart waits for a run', async () => {
    const { page, context, problems } = await load('chapters/7-language-model');
    const diagram = await page.$eval('.architecture svg', (svg) => ({
      arrows: svg.querySelectorAll('[marker-end]').length,
      residuals: svg.querySelectorAll('path.residual').length,
      attention: [...svg.querySelectorAll('text')].filter((t) => /causal|mask/i.test(t.textContent)).map((t) => t.textContent),
      overflow: [...svg.querySelectorAll('g.box')].filter((g) => {
        const r = g.querySelector('rect').getBBox();
        return [...g.querySelectorAll('text')].some((t) => { const b = t.getBBox(); return b.x < r.x || b.x + b.width > r.x + r.width; });
      }).map((g) => g.textContent),
    }));
    assert.ok(diagram.arrows >= 12, `${diagram.arrows} arrows`);
    assert.equal(diagram.residuals, 2);
    assert.deepEqual(diagram.attention, ['causal multi-head attention', 'softmax(QKᵀ/√dₖ + M) V, M: mask']);
    assert.deepEqual(diagram.overflow, []);
    // Before any run the loss chart is a sentence, not axes around nothing (its axes are checked once a run has
    // drawn them, in site.test.js).
    assert.equal(await page.locator('[data-figure="loss-chart"] svg').count(), 0);
    assert.match(await page.textContent('[data-figure="loss-chart"] .empty-state'), /train a model below to see its loss fall here/i);
    await context.close();
    assertClean(problems);
  });

  test('chapter 6 shows Q cut into heads and the heads joined back, column for column', async () => {
    const { page, context, problems } = await load('chapters/6-multi-head');
    const matrix = (id) => page.$eval(hero(id), (g) => ({
      rules: g.querySelectorAll('.group-rule').length,
      rows: new Set([...g.querySelectorAll('g.cell')].map((c) => c.dataset.row)).size,
      cells: g.querySelectorAll('g.cell').length,
      title: g.querySelector('.stage-title').textContent,
    }));
    const q = await matrix('queries');
    const concat = await matrix('concat');
    // 4 heads of d_k = 3 over d_model 12: three rules between the heads' column blocks, in both matrices.
    assert.equal(q.rules, 3);
    assert.equal(concat.rules, 3);
    assert.equal(q.cells, q.rows * 12);
    assert.equal(concat.cells, q.cells);
    assert.equal(q.title, 'X W_q, cut into 4 heads of d_k = 3');
    // A weight of head 2 lights head 2's columns of Q and K only.
    await page.click('[data-figure="grid"] g.thumb[data-head="1"]');
    await page.waitForFunction((sel) => document.querySelector(sel).textContent === 'A (head 2)', `${hero('weights')} .stage-name`);
    await page.hover(heroCell('weights', 3, 1));
    const litColumns = (id) => page.$$eval(`${hero(id)} g.cell.lit`, (c) => [...new Set(c.map((e) => Number(e.dataset.col)))].sort((a, b) => a - b));
    assert.deepEqual(await litColumns('queries'), [3, 4, 5]);
    assert.deepEqual(await litColumns('keys'), [3, 4, 5]);
    await page.selectOption('#weights', 'seeded');
    await page.selectOption('#num-heads', '6');
    await page.waitForFunction((sel) => document.querySelectorAll(`${sel} .group-rule`).length === 5, hero('queries'));
    await context.close();
    assertClean(problems);
  });

  test('chapter 5 starts with the causal mask on; one notation across chapters', async () => {
    const five = await load('chapters/5-masking');
    assert.equal(await five.page.isChecked('#causal'), true);
    const before = await five.page.$$eval('[data-figure="weights-before"] g.cell', (c) => c.map((e) => e.dataset.value));
    const afterMask = await five.page.$$eval(`${hero('weights')} g.cell`, (c) => c.map((e) => e.dataset.value));
    assert.notDeepEqual(before, afterMask);
    await five.context.close();
    const three = await load('chapters/3-trainable-weights');
    // The page's own text: the PyTorch script (the notebooks' code, verbatim) says W_query throughout.
    const text = await three.page.$eval('main', (m) => {
      const copy = m.cloneNode(true);
      copy.querySelector('[data-pytorch]')?.remove();
      return copy.textContent;
    });
    assert.equal(text.match(/W_query/g).length, 2, 'W_query named in the prose and in its figure title only'); // "calls them W_query" + "the notebook's W_query"
    assert.ok(text.includes("d_k = d_\\text{out}"), "d_k = d_out is stated");
    assert.deepEqual(await three.page.$$eval('[data-figure^="W_"] .heatmap-title', (t) => t.map((e) => e.textContent)),
      ["W_q (the notebook's W_query)", "W_k (the notebook's W_key)", "W_v (the notebook's W_value)"]);
    await three.context.close();
    const two = await load('chapters/2-self-attention');
    assert.deepEqual(await two.page.$$eval('[data-figure="pipeline"] .stage-name', (t) => t.map((e) => e.textContent)), ['X', 'Ω', 'A', 'Z']);
    await two.context.close();
    for (const p of [five, three, two]) assertClean(p.problems);
  });
});
