// createAttention({ worker: true }): the same API in a worker_thread, every call a Promise. The numbers equal
// those of the API on this thread, objects live in the worker behind proxies, generation streams as an async
// iterator that a break or an AbortSignal stops, and every misuse is a named Error, never a hang.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { pathToFileURL } from 'node:url';

import { WORKER_TIMEOUT_MS } from '../../web/lib/remote.js';
import { gpt2References } from '../fixtures/torch-cache.js';
import { attn, createAttention, fullTier, own, QUICK, useAttention } from './helpers.js';

useAttention();

const PROMPT = 'The cats, which slept near the dog,';
let remote;
before(async () => {
  remote = await createAttention({ worker: true });
});
after(() => remote.dispose());

/**
 * Resolves once `check()`, a round trip to the worker, holds. The worker frees what an aborted call leaves
 * behind when that call's late reply arrives here, after the call has settled; it handles messages in order,
 * so the release that reply sends is handled before the next check, and a few checks suffice.
 */
async function eventually(check, what) {
  for (let i = 0; i < 10; i++) if (await check()) return;
  assert.fail(what);
}

describe('the same numbers as on this thread', () => {
  test('random numbers, attention, a module and its trace', async () => {
    attn.manualSeed(123);
    await remote.manualSeed(123);
    assert.deepEqual(await remote.rand(3, 4), attn.rand(3, 4));
    const x = attn.randn(2, 5, 8);
    await remote.randn(2, 5, 8);
    const local = own(new attn.MultiHeadAttention(8, 2));
    const mha = await new remote.MultiHeadAttention(8, 2);
    assert.ok(mha instanceof remote.MultiHeadAttention);
    assert.deepEqual(await mha.W_o, local.W_o);
    assert.deepEqual(await mha.forward(x, { causal: true }), local.forward(x, { causal: true }));
    assert.deepEqual(await remote.scaledDotProductAttention(x, x, x), attn.scaledDotProductAttention(x, x, x));
    assert.ok(x.data.length === 80 && Number.isFinite(x.data[0]), "the caller's tensor stays usable (it was copied, not moved)");
    await mha.dispose();
  });

  test('the shipped model: forward with its trace, generation, the agreement probe', async () => {
    const here = await attn.loadDefaultModel();
    own(here.model);
    own(here.tokenizer);
    const there = await remote.loadDefaultModel();
    assert.ok(there.model instanceof remote.GPT);
    assert.ok(there.tokenizer instanceof remote.WordTokenizer && there.tokenizer instanceof remote.Tokenizer);
    assert.equal(there.iter, here.iter);
    assert.deepEqual(await there.model.config, here.model.config);
    const ids = here.tokenizer.encode(PROMPT);
    assert.deepEqual(await there.tokenizer.encode(PROMPT), ids);
    assert.deepEqual(await there.model.forward([ids], { trace: true }), here.model.forward([ids], { trace: true }));
    const options = { maxNewTokens: 6, temperature: 0.8, seed: 7 };
    assert.deepEqual(await there.model.generate([ids], options), here.model.generate([ids], options));
    const streamed = [];
    for await (const tokens of there.model.stream([ids], options)) streamed.push(tokens);
    assert.deepEqual(streamed, [...here.model.stream([ids], options)]);
    assert.deepEqual(await remote.probeAgreement(there.model, there.tokenizer, { sentences: 20 }),
      attn.probeAgreement(here.model, here.tokenizer, { sentences: 20 }));
    assert.deepEqual(await remote.summarizeHeads(there.model, ids, { thumbnailSize: 4 }), attn.summarizeHeads(here.model, ids, { thumbnailSize: 4 }));
    await there.model.dispose();
    await there.tokenizer.dispose();
  });

  test('training steps, a snapshot, and the checkpoint read back on this thread', async () => {
    const text = attn.agreementCorpus(200);
    const opts = { text, model: { nLayer: 1, nHead: 2, nEmbd: 16, blockSize: 16 }, training: { batchSize: 4, tokenizer: 'word' } };
    const local = own(new attn.Trainer(opts));
    const trainer = await new remote.Trainer(opts);
    for (let i = 0; i < 3; i++) assert.deepEqual(await trainer.step(), local.step());
    assert.equal(await trainer.iter, 3);
    const snapshot = await trainer.snapshot();
    assert.ok(snapshot instanceof remote.GPT);
    const bytes = await trainer.checkpoint();
    assert.ok(bytes instanceof Uint8Array);
    const { model, tokenizer } = attn.loadCheckpoint(bytes);
    own(model);
    own(tokenizer);
    const ids = tokenizer.encode('The cats purr.');
    assert.deepEqual(await snapshot.forward([ids]), model.forward([ids]));
    const resumed = await remote.Trainer.resume(bytes, text);
    assert.ok(resumed instanceof remote.Trainer);
    assert.deepEqual(await resumed.step(), own(attn.Trainer.resume(bytes, text)).step());
    await Promise.all([trainer.dispose(), snapshot.dispose(), resumed.dispose()]);
  });
});

describe('objects live in the worker', () => {
  test('constructors, statics and getters resolve; dispose() frees the memory in the worker', async () => {
    const before = (await remote.memoryUsage()).heapBytes;
    const trainer = await new remote.Trainer({ text: 'abc '.repeat(40), model: { nLayer: 1, nHead: 1, nEmbd: 64, blockSize: 8 } });
    const withTrainer = (await remote.memoryUsage()).heapBytes;
    assert.ok(withTrainer > before + 64 * 64 * 4, 'the trainer is in the worker');
    const a = await trainer.snapshot();
    assert.notEqual(a, await trainer.snapshot(), 'two snapshots are two models');
    const tokenizer = await remote.Tokenizer.fromVocabulary('char', ' abc');
    assert.deepEqual(await tokenizer.pieces, [' ', 'a', 'b', 'c']);
    await Promise.all([trainer.dispose(), a.dispose(), tokenizer.dispose()]);
    await trainer.dispose(); // twice is allowed
    await assert.rejects(trainer.step(), { message: 'Trainer: used after dispose()' });
    await assert.rejects(tokenizer.vocabSize, { message: 'CharTokenizer: used after dispose()' });
    // The trainer (weights, gradients, two moments) is freed; the second snapshot (weights) was never disposed.
    assert.ok((await remote.memoryUsage()).heapBytes - before < (withTrainer - before) / 2);
  });

  test('objects of another API, or of the API on this thread, are refused by name', async () => {
    const other = await createAttention({ worker: true });
    try {
      const theirs = await new other.GPT({ nLayer: 1, nHead: 1, nEmbd: 8, vocabSize: 5, blockSize: 4 });
      const tokenizer = await new remote.CharTokenizer('abcde');
      await assert.rejects(remote.probeAgreement(theirs, tokenizer), {
        message: 'probeAgreement: this GPT belongs to another module instance (made by another createAttention()); objects of two instances cannot be used together',
      });
      const local = own(new attn.CharTokenizer('abcde'));
      await assert.rejects(theirs.checkpoint(local), { message: /^GPT\.checkpoint: this CharTokenizer belongs to another module instance/ });
      await tokenizer.dispose();
    } finally {
      await other.dispose();
    }
  });
});

describe('streaming generation', () => {
  let model;
  let ids;
  before(async () => {
    ({ model } = await remote.loadDefaultModel());
    const { tokenizer } = await attn.loadDefaultModel();
    ids = tokenizer.encode(PROMPT);
    tokenizer.dispose();
  });
  after(() => model.dispose());

  test('a break frees the session; an abort rejects at once with its reason', async () => {
    const start = await remote.memoryUsage();
    let n = 0;
    for await (const tokens of model.stream([ids], { maxNewTokens: 100 })) {
      assert.equal(tokens.length, 1);
      if (++n === 3) break;
    }
    await eventually(async () => (await remote.memoryUsage()).heapBytes <= start.heapBytes, 'the session was freed');
    const controller = new AbortController();
    const seen = [];
    await assert.rejects(async () => {
      for await (const tokens of model.stream([ids], { maxNewTokens: 100, signal: controller.signal })) {
        seen.push(tokens);
        if (seen.length === 2) controller.abort(new Error('the reader stopped it'));
      }
    }, { message: 'the reader stopped it' });
    assert.equal(seen.length, 2);
    await eventually(async () => (await remote.memoryUsage()).heapBytes <= start.heapBytes, 'the aborted session was freed');
    const aborted = AbortSignal.abort();
    await assert.rejects(model.stream([ids], { signal: aborted }).next(), { name: 'AbortError' });
  });

  test('a pending next() rejects when its signal aborts (it resolved with a token after the abort, 100 of 100 tries)', async () => {
    for (let k = 0; k < 20; k++) {
      const controller = new AbortController();
      const stream = model.stream([ids], { maxNewTokens: 100, signal: controller.signal });
      const pending = stream.next();
      controller.abort(new Error(`stopped ${k}`));
      await assert.rejects(pending, { message: `stopped ${k}` });
    }
  });

  test('topP and stop tokens cross to the worker: the stream ends where the one on this thread does', async () => {
    const here = await attn.loadDefaultModel();
    own(here.model);
    own(here.tokenizer);
    const sampled = { maxNewTokens: 12, temperature: 0.9, topP: 0.8, seed: 3 };
    const free = [...here.model.stream([ids, ids], sampled)];
    const options = { ...sampled, eosTokenId: free[4], padTokenId: 0 };  // each row has stopped by step 4
    const local = [...here.model.stream([ids, ids], options)];
    assert.ok(local.length <= 5 && local.length < free.length, `the stream stopped early (${local.length} of ${free.length} steps)`);
    const streamed = [];
    for await (const tokens of model.stream([ids, ids], options)) streamed.push(tokens);
    assert.deepEqual(streamed, local);
    assert.deepEqual(await model.generate([ids, ids], options), here.model.generate([ids, ids], options));
    assert.deepEqual(await model.generationConfig, attn.defaultGenerateOptions());
    await assert.rejects(model.stream([ids], { topP: 2 }).next(), { message: 'stream: expected topP to be a number in (0, 1], got 2' });
  });

  test('bad options are named errors from the first next()', async () => {
    await assert.rejects(model.stream([ids], { signal: 'stop' }).next(), { message: 'GPT.stream: expected signal as an AbortSignal, got string' });
    await assert.rejects(model.stream([ids], { maxNewTokens: -1 }).next(), { message: /^stream: expected maxNewTokens/ });
    await assert.rejects(model.stream([999]).next(), { message: /^stream: expected token ids in \[0, / });
    await assert.rejects(model.generate([ids], { onToken: () => {} }), {
      message: 'GPT.generate: onToken cannot run in a worker (it could not stop the run); iterate model.stream(prompt, options) with for await, and break or abort to stop',
    });
  });
});

describe('bring your own model, in the worker', fullTier('PyTorch (tools/gpt2_reference.py)'), () => {
  let dir;
  before(() => {
    dir = gpt2References([{ name: 'tiny', n_layer: 1, n_head: 2, n_embd: 16, n_positions: 16 }]);
  });

  test('loadPretrained reports progress here and stops on an abort', async () => {
    const seen = [];
    const { model, tokenizer, config } = await remote.loadPretrained(join(dir, 'tiny'), { onProgress: (p) => seen.push(p) });
    assert.equal(config.n_layer, 1);
    assert.ok(seen.length >= 2 && seen.at(-1).loaded === seen.at(-1).total, 'progress crossed from the worker');
    const ids = await tokenizer.encode('Hello world');
    const here = await attn.loadPretrained(join(dir, 'tiny'));
    own(here.model);
    own(here.tokenizer);
    assert.deepEqual(await model.forward([ids]), here.model.forward([ids]));
    await Promise.all([model.dispose(), tokenizer.dispose()]);
    const files = Object.fromEntries(['config.json', 'model.safetensors', 'vocab.json', 'merges.txt']
      .map((f) => [f, new Uint8Array(readFileSync(join(dir, 'tiny', f)))]));
    const memory = (await remote.memoryUsage()).heapBytes;
    const controller = new AbortController();
    await assert.rejects(remote.loadPretrained(files, {
      signal: controller.signal,
      onProgress: ({ loaded }) => { if (loaded > 0) controller.abort(new Error('stopped by the reader')); },
    }), { message: 'stopped by the reader' });
    await eventually(async () => (await remote.memoryUsage()).heapBytes - memory < 1 << 20, 'the aborted model was freed in the worker');
  });
});

describe('misuse is a named Error, never a hang', () => {
  test('validation errors come from the worker with their names', async () => {
    await assert.rejects(remote.softmax([1, NaN]), { message: /^softmax: expected finite values/ });
    await assert.rejects(new remote.GPT({ nHead: 3 }), { message: /^GPT: nEmbd must be divisible by nHead/ });
    await assert.rejects(remote.Trainer.resume('bytes', 'text'), { message: /^Trainer\.resume: expected the checkpoint as a Uint8Array/ });
    await assert.rejects(remote.softmax(Symbol('x')), { message: /^softmax: could not send its arguments to the worker: / });
    assert.deepEqual(await remote.softmax([0, 0]), { data: Float32Array.of(0.5, 0.5), shape: [2] }, 'still working');
  });

  test("createAttention's options", async () => {
    await assert.rejects(createAttention({ worker: 'yes' }), { message: 'createAttention: expected worker as true or false, got the string "yes"' });
    await assert.rejects(createAttention({ workerUrl: 'x.js' }), { message: /^createAttention: expected workerUrl only with worker: true/ });
    await assert.rejects(createAttention({ worker: true, workerUrl: join(tmpdir(), 'no-such-worker.js') }),
      { code: 'ERR_ATTN_WORKER', message: /^createAttention: could not start the worker .*no-such-worker\.js: .*no-such-worker\.js/ });
    await assert.rejects(createAttention({ workerTimeoutMs: 100 }), { message: /^createAttention: expected workerTimeoutMs only with worker: true/ });
    await assert.rejects(createAttention({ worker: true, workerTimeoutMs: '100' }),
      { code: 'ERR_ATTN_INVALID_TYPE', message: 'createAttention: expected workerTimeoutMs as a number of milliseconds, got the string "100"' });
    for (const bad of [0, -1, NaN, 2 ** 31]) {
      await assert.rejects(createAttention({ worker: true, workerTimeoutMs: bad }),
        { code: 'ERR_ATTN_INVALID_ARGUMENT', message: /^createAttention: expected workerTimeoutMs as a number of milliseconds above 0, at most 2147483647/ });
    }
    await assert.rejects(createAttention({ worker: true, wasmUrl: join(tmpdir(), 'no-such.wasm') }),
      { message: /^createAttention: could not load the WebAssembly module from .*no-such\.wasm/ });
    await assert.rejects(createAttention({ worker: true, wasmBinary: Uint8Array.of(0, 97, 115, 109) }),
      { message: /^createAttention: could not compile the WebAssembly module/ });
  });

  // esbuild bundled a worker file holding only `import 'attention-step-by-step/worker'` to 0 bytes (the package said
  // it had no side effects), and createAttention({ worker: true, workerUrl }) waited for it for ever: a worker
  // whose script is empty fires no event. It is an error now, naming the file, after workerTimeoutMs.
  test('a worker that never answers: an empty script, one that never finishes loading, one that is not ours', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'attn-silent-worker-'));
    try {
      const write = (name, text) => {
        writeFileSync(join(dir, name), text);
        return pathToFileURL(join(dir, name));
      };
      const empty = write('empty.mjs', '');
      const stuck = write('stuck.mjs', 'await new Promise(() => setInterval(() => {}, 1 << 30));\n');
      const other = write('other.mjs', "import { parentPort } from 'node:worker_threads';\nparentPort.postMessage('hello');\n");
      // In Node an empty script's worker ends at once, which says so; in a browser it stays, silent, until the
      // timeout (tests/browser/recipes.test.js).
      await assert.rejects(createAttention({ worker: true, workerUrl: empty, workerTimeoutMs: 60000 }), {
        code: 'ERR_ATTN_WORKER',
        message: `createAttention: could not start the worker ${empty.href}: it exited with code 0 before it answered (an empty script ends at once)`,
      });
      await assert.rejects(createAttention({ worker: true, workerUrl: stuck, workerTimeoutMs: 200 }), {
        code: 'ERR_ATTN_WORKER',
        message: `createAttention: the worker ${stuck.href} did not answer within 0.2 s: its script is empty, or never ran to its end ` +
          "(a bundler that tree-shook 'attention-step-by-step/worker' away leaves an empty file: bundle it as an entry of its own, and check what its URL serves)",
      });
      await assert.rejects(createAttention({ worker: true, workerUrl: other, workerTimeoutMs: 60000 }), {
        code: 'ERR_ATTN_WORKER', message: /^createAttention: the worker .*other\.mjs is not the package's worker/,
      });
      assert.equal(WORKER_TIMEOUT_MS, 15000, 'the default, as options.d.ts and docs/guide.md state it');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('after dispose() every call and every object is refused, pending calls included', async () => {
    const api = await createAttention({ worker: true });
    const model = await new api.GPT({ nLayer: 1, nHead: 1, nEmbd: 8, vocabSize: 5, blockSize: 4 });
    const pending = api.agreementCorpus(200000);
    await api.dispose();
    await assert.rejects(pending, { message: 'agreementCorpus: the API was disposed (attn.dispose())' });
    await assert.rejects(api.manualSeed(1), { message: 'manualSeed: the API was disposed (attn.dispose()); create another API with createAttention({ worker: true })' });
    await assert.rejects(model.forward([1, 2]), { message: /^GPT\.forward: the API was disposed/ });
    await model.dispose(); // nothing left to free: resolves
  });

  test('a Node process that never disposes its API still exits', () => {
    const script = `import { createAttention } from ${JSON.stringify(new URL('../../web/lib/index.js', import.meta.url).href)};
      const attn = await createAttention({ worker: true${QUICK ? ', threads: 1' : ''} });
      const { model } = await attn.loadDefaultModel();
      console.log((await model.config).nLayer);`;
    const run = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', timeout: 30_000 });
    assert.equal(run.status, 0, run.stderr);
    assert.match(run.stdout, /^\d+\n$/);
  });
});
