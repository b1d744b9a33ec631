// The site's logic that needs no page: how a link's fields are read and
// written (components/link-state.js), how a long training curve is thinned
// to its pixels (components/line-chart.js), and the table of every setting
// (chapters/settings.js). The browser tests use both through
// the pages; these pin their edges.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { describe, test } from 'node:test';

import * as d3 from 'd3';

import { thinned } from '../../web/site/components/line-chart.js';
import { float32Text, kinds } from '../../web/site/components/link-state.js';
import * as settings from '../../web/site/chapters/settings.js';
import { readAsKnown, replacedSentence, splitPieces } from '../../web/site/chapters/language-model/unknown-word.js';
import { createAttention } from './helpers.js';
import { latestOnly, SKIPPED } from '../../web/site/chapters/your-model/latest.js';
import { topTokens } from '../../web/site/chapters/your-model/next-tokens.js';
import { keptWhole } from '../../web/site/chapters/your-model/hub-models.js';
import { loadFailure, withoutCaller } from '../../web/site/chapters/your-model/sentences.js';
import { idFromTyped } from '../../web/site/chapters/your-model/choose.js';

describe('link fields', () => {
  test('float32Text wrote a float32 that needs 9 digits (104830.766) as its whole double, 104830.765625: now the shortest decimal that reads back', () => {
    assert.equal(float32Text(104830.765625), '104830.766');
    assert.equal(float32Text(Math.fround(0.9)), '0.9');
    assert.equal(float32Text(Math.fround(0.1)), '0.1');
    assert.equal(float32Text(-0.3), '-0.3');
    assert.equal(float32Text(0), '0');
    let seed = 7;
    const random = () => ((seed = (seed * 48271) % 2147483647) / 2147483647);
    const values = [3.4028234663852886e38, -3.4028234663852886e38, 1.401298464324817e-45, 1.1754943508222875e-38];
    for (let k = 0; k < 2000; k++) values.push((random() - 0.5) * 10 ** Math.round(random() * 20 - 10));
    for (const v of values) {
      const text = float32Text(v);
      assert.equal(Math.fround(Number(text)), Math.fround(v), `${v} written as ${text}`);
      const significant = text.replace(/^-|e.*$|\./g, '').replace(/^0+|0+$/g, '');
      assert.ok(significant.length <= 9, `${text}: at most 9 significant digits`);
    }
  });

  test('a matrix (float32s): its count, numbers only, float32 range; written back as read', () => {
    const kind = kinds.float32s({ count: 3 });
    assert.deepEqual(kind.parse('0.43,-1e-3,2'), Float32Array.from([0.43, -0.001, 2]));
    assert.equal(kind.format(kind.parse('0.43,-1e-3,2')), '0.43,-0.001,2');
    assert.throws(() => kind.parse('1,2'), /must be 3 numbers separated by commas \(it has 2\)/);
    assert.throws(() => kind.parse('1,,2'), /must be 3 numbers/);
    assert.throws(() => kind.parse('1,NaN,2'), /must be 3 numbers/);
    assert.throws(() => kind.parse('1,Infinity,2'), /must be 3 numbers/);
    assert.throws(() => kind.parse('1,1e39,2'), /fit a float32/);
  });

  test('whole numbers, numbers, booleans, choices and text keep to their range', () => {
    const integer = kinds.integer({ min: 1, max: 8 });
    assert.equal(integer.parse('8'), 8);
    assert.throws(() => integer.parse('9'), /must be from 1 to 8/);
    assert.throws(() => integer.parse('2.5'), /must be a whole number/);
    assert.throws(() => integer.parse(' '), /must be a whole number/);
    assert.throws(() => integer.parse('0x10'), /must be from 1 to 8/); // Number('0x10') is 16
    assert.equal(kinds.number({ min: -1, max: 2 }).parse('-1'), -1);
    assert.throws(() => kinds.number({ min: -1, max: 2 }).parse('2.01'), /from -1 to 2/);
    assert.equal(kinds.boolean().parse('0'), false);
    assert.throws(() => kinds.boolean().parse('true'), /must be 1 or 0/);
    assert.equal(kinds.named(['Your', 'journey']).parse('journey'), 1);
    assert.equal(kinds.named(['Your', 'journey']).format(0), 'Your');
    assert.throws(() => kinds.named(['Your', 'journey']).parse('<b>'), /must be one of Your, journey/);
    assert.throws(() => kinds.text({ maxLength: 4 }).parse('hello'), /at most 4 characters long \(it has 5\)/);
  });

  test('index tuples are 1-based in the link, 0-based in the page, each position below its maximum', () => {
    const cells = kinds.tuples({ size: 2, max: [6, 6], count: 3 });
    assert.deepEqual(cells.parse('2.4,1.1'), [[1, 3], [0, 0]]);
    assert.equal(cells.format([[1, 3], [0, 0]]), '2.4,1.1');
    assert.deepEqual(cells.parse(''), []);
    assert.throws(() => cells.parse('0.1'), /positions from 1 to 6/);
    assert.throws(() => cells.parse('7.1'), /positions from 1 to 6/);
    assert.throws(() => cells.parse('1.1.1'), /2 whole numbers joined by dots/);
    assert.throws(() => cells.parse('1.1,1.2,1.3,1.4'), /at most 3/);
    const one = kinds.tuple({ size: 3, max: [2, 4, 8] });
    assert.equal(one.parse(''), null);
    assert.equal(one.format(null), '');
    assert.deepEqual(one.parse('2.4.8'), [1, 3, 7]);
    assert.throws(() => one.parse('1.1.1,1.1.1'), /at most 1/);
  });
});

describe('a long training curve, thinned to its pixels', () => {
  const curve = (n) => Array.from({ length: n }, (_, i) => ({ x: i, y: Math.sin(i / 37) * Math.exp(-i / n) + ((i * 7919) % 13) / 100 }));

  test('a curve with few points per pixel is drawn whole', () => {
    const points = curve(2000);
    const px = d3.scaleLinear().domain([0, 1999]).range([0, 500]);
    assert.equal(thinned(points, px, 500), points);
  });

  test('100,000 points over 500 pixels: at most four per pixel column, each column\'s first, last, lowest and highest', () => {
    const points = curve(100_000);
    const px = d3.scaleLinear().domain([0, 99_999]).range([0, 500]);
    const kept = thinned(points, px, 500);
    assert.ok(kept.length <= 4 * 501, `${kept.length} points kept`);
    assert.ok(kept.length >= 2 * 501, `${kept.length} points kept: every column has its extremes`);
    assert.equal(kept[0], points[0]);
    assert.equal(kept.at(-1), points.at(-1));
    for (let k = 1; k < kept.length; k++) assert.ok(kept[k].x > kept[k - 1].x, 'in order, none twice');
    const columns = d3.group(points, (p) => Math.round(px(p.x)));
    const keptColumns = d3.group(kept, (p) => Math.round(px(p.x)));
    assert.equal(keptColumns.size, columns.size);
    for (const [column, all] of columns) {
      const mine = keptColumns.get(column);
      assert.equal(d3.min(mine, (p) => p.y), d3.min(all, (p) => p.y), `column ${column}: its lowest point`);
      assert.equal(d3.max(mine, (p) => p.y), d3.max(all, (p) => p.y), `column ${column}: its highest point`);
      assert.equal(mine[0], all[0]);
      assert.equal(mine.at(-1), all.at(-1));
    }
  });
});

describe('the site\'s settings, stated once (chapters/settings.js)', () => {
  const tables = {
    2: [settings.CHAPTER_2], 3: [settings.CHAPTER_3], 4: [settings.CHAPTER_4], 5: [settings.CHAPTER_5], 6: [settings.CHAPTER_6],
    7: [settings.POSITIONS], 8: [settings.INPUT, settings.GENERATION, settings.TRAINING], 10: [settings.AT_SCALE], 11: [settings.CHAPTER_9],
  };
  test('every default is a value its own setting accepts', () => {
    for (const [chapter, list] of Object.entries(tables)) {
      for (const table of list) {
        for (const [name, s] of Object.entries(table)) {
          const where = `chapter ${chapter}, ${name}`;
          if (s.kind === 'integer' || s.kind === 'number') {
            assert.ok(s.default >= (s.min ?? -Infinity) && s.default <= (s.max ?? Infinity), where);
            if (s.kind === 'integer') assert.ok(Number.isInteger(s.default), where);
          } else if (s.kind === 'choice') {
            assert.ok(s.choices.some((c) => (Array.isArray(c) ? c[0] : c) === s.default), where);
          } else if (s.kind === 'text') {
            assert.ok(s.default.length <= s.maxLength, where);
          } else {
            assert.equal(s.kind, 'boolean', where);
          }
          assert.match(s.control, /^#[a-z-]+$/, where);
        }
      }
    }
  });
  test('docs/links.md lists every setting under its link name, with its default', () => {
    const doc = readFileSync(new URL('../../docs/links.md', import.meta.url), 'utf8');
    for (const [chapter, list] of Object.entries(tables)) {
      for (const table of list) {
        for (const [name, s] of Object.entries(table)) {
          if (s.linked === false) continue;
          const row = doc.split('\n').find((line) => line.startsWith(`| ${chapter} |`) && line.includes(`\`${name}\``));
          assert.ok(row, `docs/links.md has no row for chapter ${chapter}'s ${name}`);
          const shown = s.kind === 'boolean' ? (s.default ? '1' : '0') : String(s.default);
          assert.ok(row.includes(`\`${shown}\``), `docs/links.md gives chapter ${chapter}'s ${name} a default other than ${shown}: ${row}`);
        }
      }
    }
  });
  test('chapter 8\'s default run: the recipe\'s corpus shapes, warm-up, decay and measurement cadence', () => {
    const defaults = Object.fromEntries(Object.entries(settings.TRAINING).map(([name, s]) => [name, s.default]));
    const { model, training, ...cadence } = settings.trainingRun(defaults, false);
    assert.deepEqual(cadence, { iters: 1200, evalEvery: 120, sampleEvery: 240, probeEvery: 50 });
    assert.deepEqual(model, { ...settings.RECIPE.model, nLayer: 2, nHead: 4, nEmbd: 64, nInner: 256, blockSize: 32 });
    assert.deepEqual(training, { ...settings.RECIPE.training, batchSize: 32, warmupIters: 100, lrDecayIters: 1200, tokenizer: 'word' });
    // A short run on a text file: its own block and batch, no head probes, a warm-up shorter than the run, a
    // decay no shorter than 101 steps, and evaluations and samples no more often than every 10 steps.
    const short = settings.trainingRun({ ...defaults, max_iters: 30, tokenizer: 'char' }, true);
    assert.deepEqual([short.evalEvery, short.sampleEvery, short.probeEvery], [10, 10, 0]);
    assert.deepEqual([short.model.blockSize, short.training.batchSize], [64, 16]);
    assert.deepEqual([short.training.warmupIters, short.training.lrDecayIters, short.training.tokenizer], [29, 101, 'char']);
  });
  test('the training worker\'s samples use the page\'s generation default', () => {
    assert.equal(settings.RECIPE.sampleTemperature, settings.GENERATION.temperature.default);
  });
});

describe("the toy model reads any sentence: a word it never saw is read as the nearest it knows", () => {
  const withShipped = async (use) => {
    const attn = await createAttention({ threads: 1 });
    const { model, tokenizer } = await attn.loadDefaultModel();
    try {
      return await use(attn, tokenizer);
    } finally {
      model.dispose();
      tokenizer.dispose();
    }
  };
  test("the page cuts a text into the pieces the library's word and character tokenizers cut it into", async () => {
    await withShipped(async (attn) => {
      const texts = [attn.agreementCorpus(500), 'Naïve façade — “quoted”, 3.5 × 2 ÷ x\t\ttabs  two spaces ,comma ,\n\n end ',
        'émoji 🐈‍⬛ and 中文字 and Ωmega\u00a0nbsp', ' leading space', 'trailing '];
      for (const text of texts) {
        for (const kind of ['word', 'char']) {
          // A tokenizer built from the text knows every piece of it: its ids name the pieces it cut.
          const own = kind === 'word' ? new attn.WordTokenizer(text) : new attn.CharTokenizer(text);
          try {
            assert.deepEqual(splitPieces(kind, text), own.encode(text).map((id) => own.pieces[id]), `${kind}: ${JSON.stringify(text.slice(0, 40))}`);
          } finally {
            own.dispose();
          }
        }
      }
    });
  });
  // The page said "This model does not know the word “The”… Nearest it knows: “the”, “The”": the second “The” is
  // “ The”, with the space before it, which the corpus never has (its sentences begin lines).
  test('"The cats purr. The dogs run." reads the second “The” as “ the”, and says so without contradicting itself', async () => {
    await withShipped(async (attn, tokenizer) => {
      const { ids, replaced } = readAsKnown('The cats purr. The dogs run.', tokenizer);
      assert.deepEqual(ids.map((id) => tokenizer.pieces[id]), ['The', ' cats', ' purr', '.', ' the', ' dogs', ' run', '.']);
      assert.deepEqual(replaced, [{ at: 4, from: ' The', to: ' the' }]);
      assert.equal(replacedSentence(replaced), 'Words this model never saw are read as the nearest it knows (each word with the ' +
        'space before it): “ The” → “ the”.');
      // What it knows is never replaced: the same ids as the tokenizer's own.
      assert.deepEqual(readAsKnown('The cats purr.', tokenizer), { ids: tokenizer.encode('The cats purr.'), replaced: [] });
    });
  });
  // "The cats " × 40 listed "“ The” → “ the”" eight times, "and 8 more".
  test('a word the text repeats is named once among the replacements, and the count of more is of other words', () => {
    const replaced = Array.from({ length: 12 }, (_, k) => ({ at: 2 * k, from: ' The', to: ' the' }));
    assert.equal(replacedSentence(replaced), 'Words this model never saw are read as the nearest it knows (each word with the ' +
      'space before it): “ The” → “ the”.');
    const many = Array.from({ length: 10 }, (_, k) => ({ at: k, from: ` w${k}`, to: ' the' }));
    assert.match(replacedSentence([...many, ...many]), /“ w7” → “ the”, and 2 more\.$/);
  });
  test('a sentence of words it never saw: every word read as a known one, nearest in spelling, marks as marks', async () => {
    await withShipped(async (attn, tokenizer) => {
      const { ids, replaced } = readAsKnown('Quantum physics explains everything!', tokenizer);
      const pieces = ids.map((id) => tokenizer.pieces[id]);
      assert.equal(ids.length, 5);
      assert.ok(ids.every((id) => Number.isInteger(id) && id >= 0 && id < tokenizer.vocabSize), JSON.stringify(ids));
      assert.deepEqual(replaced.map((r) => r.from), ['Quantum', ' physics', ' explains', ' everything', '!']);
      assert.ok(pieces.slice(0, 4).every((p) => /^ ?[a-z]+$/i.test(p)), JSON.stringify(pieces));
      assert.ok(['.', ',', '\n'].includes(pieces[4]), pieces[4]);
      // "the" opening a text is "The" (the corpus's sentences begin with it), "elephants" the known word closest in spelling.
      assert.deepEqual(readAsKnown('the elephants', tokenizer).ids.map((id) => tokenizer.pieces[id]), ['The', ' eats']);
    });
  });
});

describe("chapter 9's requests to the package's worker, and what it says", () => {
  test('only the latest request of a kind is sent once the one before settles; those it replaced are never computed', async () => {
    const run = latestOnly();
    const computed = [];
    let finish;
    const first = run('analyse', () => new Promise((resolve) => {
      computed.push(1);
      finish = resolve;
    }).then(() => 'one'));
    // While the first computes, three more of its kind arrive, and one of another kind, which does not wait for them.
    const replaced = [2, 3].map((n) => run('analyse', () => computed.push(n)));
    const latest = run('analyse', () => {
      computed.push(4);
      return 'four';
    });
    const other = await run('head', () => 'head');
    assert.equal(other, 'head');
    assert.deepEqual(computed, [1]);
    finish();
    assert.equal(await first, 'one');
    assert.deepEqual(await Promise.all(replaced), [SKIPPED, SKIPPED]);
    assert.equal(await latest, 'four');
    assert.deepEqual(computed, [1, 4]);
    // A request that fails rejects, and the next is sent all the same.
    await assert.rejects(run('analyse', () => Promise.reject(new Error('no'))), /no/);
    assert.equal(await run('analyse', () => 'after'), 'after');
  });
  test('the next-token guess is the k likeliest of the logits, as a stable sort of the whole vocabulary orders them', () => {
    const logits = Float32Array.from({ length: 5000 }, (_, i) => Math.round(10 * Math.sin(i * 12.9898) * 43758.5453 % 7) / 2);
    const sorted = Array.from(logits.keys()).sort((a, b) => logits[b] - logits[a]).slice(0, 10);
    const top = topTokens(logits);
    assert.deepEqual(top.map((t) => t.id), sorted);
    const max = Math.max(...logits);
    const sum = logits.reduce((s, v) => s + Math.exp(v - max), 0);
    top.forEach((t) => assert.ok(Math.abs(t.p - Math.exp(logits[t.id] - max) / sum) < 1e-12));
    assert.deepEqual(topTokens(Float32Array.from([1, 3, 2]), 10).map((t) => t.id), [1, 2, 0]);
  });
  test('a model kept in the browser is whole only with its config, a tokenizer and all its weights', () => {
    const whole = ['config.json', 'model.safetensors', 'tokenizer.json'];
    assert.equal(keptWhole({ files: whole }), true);
    assert.equal(keptWhole({ files: ['config.json', 'tokenizer.json'] }), false, 'a download cancelled before its weights');
    assert.equal(keptWhole({ files: ['config.json', 'merges.txt', 'model.safetensors', 'vocab.json'] }), true);
    const shards = ['config.json', 'model-00001-of-00002.safetensors', 'model.safetensors.index.json', 'tokenizer.json'];
    assert.equal(keptWhole({ files: shards }), false);
    assert.equal(keptWhole({ files: [...shards, 'model-00002-of-00002.safetensors'] }), true);
  });
  test("what the reader types in the id field: an id, or a model's page on the Hub; no other address is ever fetched", () => {
    assert.equal(idFromTyped('  HuggingFaceTB/SmolLM2-135M-Instruct '), 'HuggingFaceTB/SmolLM2-135M-Instruct');
    assert.equal(idFromTyped('gpt2'), 'gpt2');
    assert.equal(idFromTyped('https://huggingface.co/Qwen/Qwen2.5-0.5B-Instruct/tree/main'), 'Qwen/Qwen2.5-0.5B-Instruct');
    assert.equal(idFromTyped('https://huggingface.co/unsloth/gemma-3-270m-it?x=1'), 'unsloth/gemma-3-270m-it');
    for (const address of ['https://example.com/org/name', 'http://huggingface.co.evil/org/name', './model/', '/model', '../m',
      'javascript:alert(1)', 'file:///tmp/model', 'data:text/plain,x']) {
      assert.equal(idFromTyped(address), null, address);
    }
    assert.equal(idFromTyped('   '), '');
  });
  test("a load's failure is a sentence chosen by the library's code, without a function's name", () => {
    const error = (code, message) => Object.assign(new Error(message), { code });
    assert.equal(withoutCaller('loadPretrained: config.json: model_type is "bert"'), 'config.json: model_type is "bert"');
    assert.equal(withoutCaller('GPT.forward: expected ids'), 'expected ids');
    const gated = error('ERR_ATTN_HUB_AUTH', 'loadPretrained: a gated model');
    assert.match(loadFailure(gated, { id: 'org/name' }), /^“org\/name” is gated or private: accept its terms/);
    assert.match(loadFailure(gated, { id: 'org/name', token: true }), /^The Hugging Face Hub refused this access token/);
    assert.match(loadFailure(error('ERR_ATTN_NOT_FOUND', 'x'), { id: 'org/name' }), /^The Hugging Face Hub has no model “org\/name”/);
    const unreachable = /^The Hugging Face Hub cannot be reached \(this browser may be offline\), and “org\/name” is not kept in this browser/;
    assert.match(loadFailure(error('ERR_ATTN_OFFLINE', 'x'), { id: 'org/name' }), unreachable);
    assert.match(loadFailure(error('ERR_ATTN_LOAD_FAILED', "loadPretrained: Failed to fetch, and config.json is not in this browser's cache"),
      { id: 'org/name' }), unreachable);
    assert.equal(loadFailure(new DOMException('stop', 'AbortError')), 'Loading was cancelled.');
    assert.equal(loadFailure(error('ERR_ATTN_INVALID_FILE', 'loadPretrained: config.json: model_type is "bert"')),
      'These files cannot be read as a model: config.json: model_type is "bert"');
    for (const code of ['ERR_ATTN_HUB_AUTH', 'ERR_ATTN_NOT_FOUND', 'ERR_ATTN_OFFLINE', 'ERR_ATTN_LOAD_FAILED', 'ERR_ATTN_OUT_OF_MEMORY',
      'ERR_ATTN_WORKER', 'ERR_ATTN_INVALID_ARGUMENT', 'ERR_ATTN_INVALID_FILE', 'ERR_ATTN_INTERNAL']) {
      const sentence = loadFailure(error(code, 'loadPretrained: something'), { id: 'org/name' });
      assert.doesNotMatch(sentence, /ERR_ATTN|loadPretrained|\bat \w+ \(/, `${code}: ${sentence}`);
    }
  });
});

// The lessons were written for maintainers: "notebook 000/004", "PyTorch 1.13", "this project's 2-core test
// machine", npm commands. A reader meets the ideas, not the project's bookkeeping.
test("the chapters' prose names no notebook number, version, test machine or npm command", () => {
  const dir = new URL('../../web/site/chapters/', import.meta.url);
  const found = [];
  for (const file of readdirSync(dir).filter((f) => f.endsWith('.html'))) {
    const text = readFileSync(new URL(file, dir), 'utf8').replace(/<[^>]+>/g, ' ');
    for (const [phrase] of text.matchAll(/notebooks? 00\d|PyTorch 1\.\d+|test machine|npm run \S+/gi)) found.push(`${file}: ${phrase}`);
  }
  assert.deepEqual(found, []);
});

test('every chapter ends with its sources: the notebooks\' public originals and the papers, as links', () => {
  const dir = new URL('../../web/site/chapters/', import.meta.url);
  for (const file of readdirSync(dir).filter((f) => /^\d-.*\.html$/.test(f))) {
    const html = readFileSync(new URL(file, dir), 'utf8');
    const section = /<section class="sources"[^>]*>([^]*?)<\/section>/.exec(html)?.[1];
    assert.ok(section, `${file} has a Sources section`);
    const links = [...section.matchAll(/<a href="(https:\/\/[^"]+)">/g)].map((m) => m[1]);
    assert.ok(links.length >= 2, `${file}: ${links.length} sources`);
  }
});
