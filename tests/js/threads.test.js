// createAttention({ threads }): the threaded WebAssembly module gives, bit for bit, the numbers of the
// single-threaded one on 1, 2 and 3 threads (attention, the model, training, generation); attn.threads says
// what was got and why; bad counts are named Errors; a threaded module that cannot start falls back to one
// thread with a warning, never a hang; and a Node program that never disposes it still exits.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath, pathToFileURL } from 'node:url';

import { createAttention } from '../../web/lib/index.js';
import { startThreadedModule } from '../../web/lib/threaded-module.js';
import { AUTO_THREADS, MAX_THREADS } from '../../web/lib/threads.js';
import { fullTier } from './helpers.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const TEXT = Array.from({ length: 200 }, (_, i) =>
  ['The cat, which sat on the mat, purrs.', 'The cats, which sat on the mats, purr.', 'The dog barks.', 'The dogs bark.'][i % 4],
).join('\n');
// Large enough that every kernel splits: 512 rows of width 128, 32 attention slices.
const MODEL = { nLayer: 2, nHead: 4, nEmbd: 128, blockSize: 64, bias: true };

/** Everything a run computes, as one Float32Array, on the API `attn`. */
function compute(attn) {
  const out = [];
  const keep = (t) => out.push(Float32Array.from(t.data ?? t));
  attn.manualSeed(7);
  // One long causal sequence (its blocks of queries split) and a batch of heads (the slices split).
  const long = [attn.randn(1, 1, 700, 64), attn.randn(1, 1, 700, 64), attn.randn(1, 1, 700, 64)];
  keep(attn.attention(...long, { causal: true }));
  const heads = [attn.randn(3, 4, 200, 16), attn.randn(3, 4, 200, 16), attn.randn(3, 4, 200, 16)];
  keep(attn.scaledDotProductAttention(...heads, { causal: true }).weights);
  const mha = new attn.MultiHeadAttention(64, 4);
  const x = attn.randn(2, 300, 64);
  keep(mha.forward(x, { causal: true, trace: false }).output);
  keep(mha.forward(x, { causal: true }).weights);
  mha.dispose();
  const trainer = new attn.Trainer({ model: MODEL, training: { batchSize: 8, seed: 3 }, text: TEXT });
  for (let i = 0; i < 3; i++) keep([trainer.step().loss]);
  const model = trainer.snapshot();
  trainer.dispose();
  for (const name of model.parameterNames()) keep(model.parameter(name));
  const ids = Array.from({ length: 8 }, (_, b) => Array.from({ length: 64 }, (_, i) => (i * 7 + b) % model.config.vocabSize));
  keep(model.forward(ids).logits);
  attn.manualSeed(11);
  keep(Float32Array.from(model.generate([[1, 2, 3]], { maxNewTokens: 20, temperature: 1, topK: 5 }).data));
  model.dispose();
  const all = new Float32Array(out.reduce((n, a) => n + a.length, 0));
  out.reduce((at, a) => (all.set(a, at), at + a.length), 0);
  return all;
}

// The quick tier builds the single-threaded module only.
const THREADED = fullTier('the threaded module');

const sameBits = (a, b) => a.length === b.length && Buffer.compare(Buffer.from(a.buffer), Buffer.from(b.buffer)) === 0;

describe('bit-identical on any thread count', THREADED, () => {
  let single;
  before(async () => {
    single = compute(await createAttention({ threads: 1 }));
  });

  for (const threads of [2, 3]) {
    test(`${threads} threads give the single-threaded module's numbers`, async () => {
      const attn = await createAttention({ threads });
      assert.equal(attn.threads.count, threads);
      assert.ok(sameBits(compute(attn), single));
    });
  }

  test('in a worker, with threads', async () => {
    const remote = await createAttention({ worker: true, threads: 2 });
    try {
      assert.deepEqual(remote.threads, { count: 2, requested: 2, reason: '2 threads were asked for' });
      await remote.manualSeed(7);
      const [q, k, v] = [await remote.randn(1, 1, 700, 64), await remote.randn(1, 1, 700, 64), await remote.randn(1, 1, 700, 64)];
      const here = await createAttention({ threads: 1 });
      here.manualSeed(7);
      const expected = here.attention(here.randn(1, 1, 700, 64), here.randn(1, 1, 700, 64), here.randn(1, 1, 700, 64), { causal: true });
      assert.ok(sameBits((await remote.attention(q, k, v, { causal: true })).data, expected.data));
    } finally {
      await remote.dispose();
    }
  });
});

describe('text crosses whole, the same in both modules', THREADED, () => {
  // Text crosses as UTF-8 in one copy each way (convert.hpp's text_from_js, text_to_js). Through embind's
  // std::string, a decoded text over 16 bytes lost a leading U+FEFF (its TextDecoder dropped it as a byte order mark).
  const TEXT_WITH_EDGES = '\uFEFFthe start, a NUL \0 inside, 😀 outside the BMP, ü, and the end';
  for (const threads of [1, 2]) {
    test(`on ${threads} thread(s): a leading U+FEFF, a NUL and a character outside the BMP survive encode, decode and vocabulary`, async () => {
      const attn = await createAttention({ threads });
      const tok = new attn.CharTokenizer(TEXT_WITH_EDGES);
      try {
        assert.equal(tok.decode(tok.encode(TEXT_WITH_EDGES)), TEXT_WITH_EDGES);
        assert.deepEqual([...tok.vocabulary].sort(), [...new Set(TEXT_WITH_EDGES)].sort());
        assert.equal(tok.vocabSize, new Set(TEXT_WITH_EDGES).size);
      } finally {
        tok.dispose();
      }
    });
  }

  test('the agreement corpus and a trainer\'s vocabulary are the same strings from both modules', async () => {
    const [one, two] = [await createAttention({ threads: 1 }), await createAttention({ threads: 2 })];
    const corpus = one.agreementCorpus(500, 5);
    assert.equal(two.agreementCorpus(500, 5), corpus);
    assert.match(corpus, /^The \w+, (which|who) /);
    const vocabularies = [one, two].map((attn) => {
      const trainer = new attn.Trainer({ model: MODEL, training: { batchSize: 2, seed: 1, tokenizer: 'word' }, text: corpus });
      try {
        return trainer.vocabulary;
      } finally {
        trainer.dispose();
      }
    });
    assert.equal(vocabularies[1], vocabularies[0]);
    assert.ok(vocabularies[0].includes(' cats'), 'the word vocabulary holds the corpus\'s words with their leading space');
  });
});

describe('attn.threads', THREADED, () => {
  test("'auto' takes the machine's cores, at most AUTO_THREADS; a number is taken as it is", async () => {
    const auto = Math.min(availableParallelism(), AUTO_THREADS);
    const attn = await createAttention();
    assert.deepEqual(attn.threads, {
      count: auto,
      requested: 'auto',
      reason: auto === 1 ? 'this machine has one core' : `${auto} of this machine's ${availableParallelism()} cores`,
    });
    assert.ok(Object.isFrozen(attn.threads));
    assert.deepEqual((await createAttention({ threads: 1 })).threads, { count: 1, requested: 1, reason: 'one thread was asked for' });
  });

  test('wasmBinary and wasmUrl name the single-threaded module', async () => {
    const attn = await createAttention({ threads: 2, wasmUrl: new URL('../../web/lib/wasm/attention_wasm.wasm', import.meta.url) });
    assert.equal(attn.threads.count, 1);
    assert.match(attn.threads.reason, /^wasmBinary and wasmUrl name the single-threaded module/);
  });

  test("MAX_THREADS is the C++ library's kMaxThreads, and that many threads run", async () => {
    const M = await startThreadedModule(2, console.warn, 'test');
    assert.equal(M.maxThreads(), MAX_THREADS);
    assert.equal(M.defaultMaxThreads(), AUTO_THREADS, "'auto' takes as many as attn-train's and the native default");
    assert.match(M.setThreads(MAX_THREADS + 1).message, new RegExp(`^createAttention: expected a thread count from 1 to ${MAX_THREADS}, got ${MAX_THREADS + 1}$`));
    const attn = await createAttention({ threads: MAX_THREADS });
    assert.equal(attn.threads.count, MAX_THREADS);
    attn.manualSeed(1);
    const x = attn.randn(1, 1, 2000, 32);
    assert.deepEqual(attn.attention(x, x, x).shape, [1, 1, 2000, 32]);
  });
});

describe('bad thread counts', () => {
  for (const [threads, got] of [[0, 'number 0'], [-1, 'number -1'], [1.5, 'number 1.5'], ['2', 'the string "2"'],
    [MAX_THREADS + 1, `number ${MAX_THREADS + 1}`], [null, 'null'], [Number.NaN, 'number NaN']]) {
    test(`threads: ${String(threads)}`, async () => {
      for (const worker of [false, true]) {
        await assert.rejects(createAttention({ threads, worker }),
          { message: `createAttention: expected threads as 'auto' or an integer from 1 to ${MAX_THREADS}, got ${got}` });
      }
    });
  }
});

describe('a threaded module that cannot start', THREADED, () => {
  let copy;
  before(() => {
    copy = mkdtempSync(join(tmpdir(), 'attn-threads-'));
    cpSync(join(ROOT, 'web/lib'), copy, { recursive: true });
    rmSync(join(copy, 'wasm/attention_wasm_threads.worker.js'));
  });
  after(() => rmSync(copy, { recursive: true, force: true }));

  test('falls back to one thread with a warning, and computes', async () => {
    const { createAttention: create } = await import(pathToFileURL(join(copy, 'index.js')).href);
    const warnings = [];
    const warn = console.warn;
    console.warn = (text) => warnings.push(String(text));
    let attn;
    try {
      attn = await create({ threads: 2 });
    } finally {
      console.warn = warn;
    }
    assert.equal(attn.threads.count, 1);
    assert.match(attn.threads.reason, /^the threaded module did not start: a worker did not start/);
    assert.ok(warnings.some((w) => w.startsWith('createAttention: running on one thread; the threaded module did not start')), warnings.join('\n'));
    attn.manualSeed(123);
    assert.equal(attn.rand(3).data.length, 3);
  });
});

test('a Node program that uses threads and never disposes exits', THREADED, () => {
  const program = `import { createAttention } from ${JSON.stringify(pathToFileURL(join(ROOT, 'web/lib/index.js')).href)};
    const attn = await createAttention({ threads: 2 });
    attn.manualSeed(1);
    const x = attn.randn(1, 1, 300, 32);
    console.log(attn.threads.count, attn.attention(x, x, x).shape.join('x'));`;
  const run = spawnSync(process.execPath, ['--input-type=module', '-e', program], { encoding: 'utf8', timeout: 60000 });
  assert.equal(run.status, 0, run.stderr);
  assert.equal(run.stdout.trim(), '2 1x1x300x32');
});
