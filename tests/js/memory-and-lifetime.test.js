// The module survives what apps do to it: errors caught by the thousand,
// objects disposed in the middle of a call or never, iterators dropped
// half-way. Each test reproduces a way the module used to break itself.
import assert from 'node:assert/strict';
import v8 from 'node:v8';
import vm from 'node:vm';
import { after, before, describe, test } from 'node:test';

import { assertClose, attn, createAttention, notebook, own, useAttention } from './helpers.js';

useAttention();

v8.setFlagsFromString('--expose-gc');
const gc = vm.runInNewContext('gc');
/**
 * Collects garbage and waits for the FinalizationRegistry callbacks of each collection. They run in a task of
 * their own after it, which keeps no event loop alive: this turns the loop (setImmediate, no timer) until a
 * sentinel's callback, registered in a registry of its own, has run, then once more for the others.
 */
async function settle() {
  for (let i = 0; i < 4; i++) {
    let cleaned = false;
    const sentinel = new FinalizationRegistry(() => { cleaned = true; });
    const token = {};
    sentinel.register({}, i, token);
    gc();
    for (let turns = 0; !cleaned; turns++) {
      assert.ok(turns < 100_000, 'the collection\'s FinalizationRegistry callbacks never ran');
      await new Promise(setImmediate);
    }
    sentinel.unregister(token); // a use after the wait: the registry stays reachable until its callback ran
    await new Promise(setImmediate);
  }
}

/** The same known computation, before and after: notebook 000's weights for "journey". */
function assertStillExact() {
  const inputs = notebook('nb000.inputs');
  assertClose(attn.softmax(attn.attentionScoresForQuery(inputs, 1)), notebook('nb000.attn_weights_2'));
}

/** A small model, its tokenizer, and its checkpoint with one weight byte flipped; disposed after the test. */
function tinyModel(dispose = own) {
  const tokenizer = dispose(new attn.WordTokenizer('The cats purr. The dog barks.'));
  const model = dispose(new attn.GPT({ vocabSize: tokenizer.vocabSize, nEmbd: 8, nHead: 2, nLayer: 1, nInner: 16, blockSize: 8 }));
  const damaged = model.checkpoint(tokenizer);
  damaged[damaged.length - 3] ^= 0x40;
  return { tokenizer, model, damaged };
}

describe('caught errors leave the module as it was', () => {
  // Regression: every error thrown from C++ through JS left its WASM stack
  // frames behind; ~60,000 caught NaN errors later, softmax([1, 2, 3]) threw
  // "memory access out of bounds", and 14,000 length errors hung the module.
  // The leak was per call, so it takes far fewer calls to see: the stack must
  // end exactly where it started, and a heap leak of even one byte a call would
  // exceed the 1,024 bytes allowed after CALLS calls.
  const CALLS = 2_000;
  let tiny;
  let linear;
  const kept = [];
  const keep = (obj) => (kept.push(obj), obj);
  before(() => {
    tiny = tinyModel(keep);
    linear = keep(new attn.Linear(2, 2));
  });
  after(() => kept.forEach((obj) => obj.dispose()));
  const kinds = [
    ['a NaN, refused by C++', 'softmax: expected finite values', () => attn.softmax([1, NaN])],
    ['data that does not fit its shape', 'softmax: x of shape [2, 2] needs 4 values, got 3', () => attn.softmax({ data: [1, 2, 3], shape: [2, 2] })],
    ['BigInt data', 'softmax: expected x.data to hold numbers, got the BigInt 1n', () => attn.softmax({ data: [1n, 2n], shape: [2] })],
    ['a Symbol for a number', 'attentionScoresForQuery: expected queryIndex as a number, got a symbol', () => attn.attentionScoresForQuery([[1, 2]], Symbol('q'))],
    ['null options', 'scaledDotProductAttention: expected options as an object, got null', () => attn.scaledDotProductAttention([[1]], [[1]], [[1]], null)],
    ['a wrong dimension in a method', 'Linear.forward: expected x of shape [..., 2]', () => linear.forward([[1, 2, 3]])],
    ['a config refused by a C++ constructor', 'GPT: nEmbd must be divisible by nHead', () => new attn.GPT({ nHead: 3 })],
    ['a string in a config', 'GPT: expected nHead to be an integer in [1, 4096], got "4"', () => new attn.GPT({ nHead: '4' })],
    ['an unknown word', 'WordTokenizer.encode: ', () => tiny.tokenizer.encode('The unicorns purr.')],
    ['a damaged checkpoint', 'loadCheckpoint: the file is damaged', () => attn.loadCheckpoint(tiny.damaged)],
    ['a token id outside the vocabulary', 'generate: expected token ids in [0, ', () => tiny.model.generate([999], { maxNewTokens: 1 })],
  ];
  for (const [what, message, bad] of kinds) {
    test(`${CALLS.toLocaleString('en')} times ${what}`, () => {
      assert.throws(bad, (e) => e instanceof Error && e.message.startsWith(message), `${what}: ${message}`);
      for (let i = 0; i < 100; i++) assert.throws(bad); // whatever is allocated once, lazily
      const start = attn.memoryUsage();
      for (let i = 0; i < CALLS; i++) {
        try {
          bad();
        } catch (error) {
          if (!(error instanceof Error) || error instanceof WebAssembly.RuntimeError) throw error;
        }
      }
      const end = attn.memoryUsage();
      assert.equal(end.stackBytes, start.stackBytes, 'WASM stack in use');
      assert.ok(end.heapBytes - start.heapBytes <= 1024, `WASM heap in use: ${start.heapBytes} -> ${end.heapBytes} bytes`);
      assert.equal(end.memoryBytes, start.memoryBytes, 'WASM memory size');
      assertStillExact();
    });
  }
});

describe('nothing leaks', () => {
  test('10,000 failing calls keep neither their tensors (JS heap) nor their copies (WASM heap)', async () => {
    // Regression: 5,000 failing calls with tensor arguments grew the JS heap by 39 MiB.
    const layer = own(new attn.Linear(4, 4));
    const x = { data: new Float32Array(4096 * 5), shape: [4096, 5] };
    await settle();
    const js = process.memoryUsage().heapUsed;
    const wasm = attn.memoryUsage();
    for (let i = 0; i < 10_000; i++) {
      assert.throws(() => layer.forward({ data: x.data.slice(), shape: x.shape }), /Linear.forward: expected x of shape/);
    }
    await settle();
    const grown = process.memoryUsage().heapUsed - js;
    assert.ok(grown < 4 * 2 ** 20, `JS heap grew by ${(grown / 2 ** 20).toFixed(1)} MiB`);
    assert.ok(attn.memoryUsage().heapBytes - wasm.heapBytes <= 1024, 'WASM heap in use');
    assert.equal(attn.memoryUsage().memoryBytes, wasm.memoryBytes, 'WASM memory size');
  });

  test('10,000 failing encodes of a 10,000-character text free the text they copied', () => {
    // Regression: 5,000 of them grew the WASM heap from 16 to 58 MiB.
    const tokenizer = own(new attn.CharTokenizer('abc'));
    const text = 'abc'.repeat(3333) + 'z';
    const start = attn.memoryUsage();
    for (let i = 0; i < 10_000; i++) assert.throws(() => tokenizer.encode(text), /CharTokenizer.encode/);
    const end = attn.memoryUsage();
    assert.ok(end.heapBytes - start.heapBytes <= 1024, `WASM heap in use: ${start.heapBytes} -> ${end.heapBytes}`);
    assert.equal(end.memoryBytes, start.memoryBytes);
  });

  test('10,000 stream() iterators advanced once and dropped free their sessions', async () => {
    // Regression: 15,000 of them took the WASM memory from 16 to 611 MiB.
    const { model } = tinyModel();
    // The kernels keep a small workspace between calls (gemm's packing buffers,
    // attention's score tiles): the first call allocates it, later ones reuse it.
    model.stream([0, 1], { maxNewTokens: 50, seed: 0 }).next();
    await settle();
    const start = attn.memoryUsage();
    for (let round = 0; round < 10; round++) {
      for (let i = 0; i < 1000; i++) model.stream([0, 1], { maxNewTokens: 50, seed: i }).next();
      await settle();
    }
    const end = attn.memoryUsage();
    assert.ok(end.heapBytes - start.heapBytes <= 4096, `WASM heap in use: ${start.heapBytes} -> ${end.heapBytes}`);
  });

  test('a stream returned early (break) or run to the end frees its session at once', () => {
    const { model } = tinyModel();
    const start = attn.memoryUsage().heapBytes;
    for (let i = 0; i < 1000; i++) {
      for (const [token] of model.stream([0], { maxNewTokens: 20, seed: i })) if (token >= 0) break;
      assert.equal([...model.stream([0], { maxNewTokens: 3, seed: i })].length, 3);
    }
    assert.ok(attn.memoryUsage().heapBytes - start <= 1024);
  });

  test('undisposed objects are freed once collected, and their memory is reused', async () => {
    // Measured: 10,000 undisposed SelfAttentionV2(64, 64) in one synchronous
    // loop hold ~470 MiB until the loop yields (finalizers wait for a new task);
    // after a collection the WASM heap is back to where it was. The WASM
    // memory itself never shrinks, but is reused: rounds with a collection
    // between them do not grow it.
    await settle();
    const start = attn.memoryUsage();
    let afterFirstRound;
    for (let round = 0; round < 10; round++) {
      for (let i = 0; i < 1000; i++) new attn.SelfAttentionV2(64, 64);
      await settle();
      afterFirstRound ??= attn.memoryUsage().memoryBytes;
    }
    const end = attn.memoryUsage();
    assert.ok(end.heapBytes - start.heapBytes <= 4096, `WASM heap in use: ${start.heapBytes} -> ${end.heapBytes}`);
    assert.equal(end.memoryBytes, afterFirstRound, 'WASM memory size after round 1 and after round 10');
  });
});

describe('no object is used after it is freed', () => {
  test('disposing a model inside generate()\'s onToken is refused, and generation goes on safely', () => {
    // Regression: the generation kept running on the freed model's memory.
    const { model } = tinyModel();
    let refusal;
    const out = model.generate([0], {
      maxNewTokens: 5,
      seed: 1,
      onToken: () => {
        try {
          model.dispose();
        } catch (error) {
          refusal = error;
        }
      },
    });
    assert.equal(refusal?.message,
      'GPT.dispose: cannot dispose while generate() is running; stop it first (return false from onToken) and dispose after it returns');
    assert.deepEqual(out.shape, [1, 6]);
    assert.deepEqual(model.generate([0], { maxNewTokens: 5, seed: 1 }).data, out.data); // the model is intact
    model.dispose();
    assert.throws(() => model.generate([0]), { message: 'GPT: used after dispose()' });
  });

  test('an error thrown by onToken ends generate() and leaves the model usable', () => {
    const { model } = tinyModel();
    const start = attn.memoryUsage().heapBytes;
    assert.throws(() => model.generate([0], { maxNewTokens: 5, onToken: () => { throw new Error('stop here'); } }), /stop here/);
    assert.equal(attn.memoryUsage().heapBytes, start, 'the session was freed');
    model.dispose(); // no longer running: allowed
  });

  test('a model disposed while its stream is open: next() throws and the stream ends', () => {
    const { model } = tinyModel();
    const stream = model.stream([0], { maxNewTokens: 10, seed: 2 });
    assert.equal(stream.next().done, false);
    model.dispose();
    assert.throws(() => stream.next(), { message: 'GPT: used after dispose()' });
    assert.deepEqual(stream.next(), { value: undefined, done: true });
  });
});

describe('an object disposed by a getter of its own call\'s arguments', () => {
  test('is named in the Error (embind said only "Cannot pass deleted object as a pointer of type Linear"), and the module goes on', () => {
    const linear = new attn.Linear(2, 2);
    const x = { get data() { linear.dispose(); return [1, 2]; }, shape: [1, 2] };
    assert.throws(() => linear.forward(x), {
      message: 'Linear.forward: the Linear was disposed during this call (by a getter of one of its arguments); nothing was computed',
    });
    const mha = new attn.MultiHeadAttention(4, 2);
    const input = { get data() { mha.dispose(); return new Float32Array(8); }, shape: [2, 4] };
    assert.throws(() => mha.forward(input), { message: /^MultiHeadAttention\.forward: the MultiHeadAttention was disposed during this call/ });
    assertClose(attn.softmax([0, 0]), [0.5, 0.5]);
  });
});

describe('the module reports its memory', () => {
  test('memoryUsage() grows with what is allocated and shrinks with dispose()', () => {
    const before = attn.memoryUsage();
    assert.ok(before.memoryBytes >= 16 * 2 ** 20 && before.memoryBytes % 65536 === 0);
    const layer = new attn.Linear(512, 512);
    const during = attn.memoryUsage().heapBytes;
    assert.ok(during - before.heapBytes >= 512 * 512 * 4, `${before.heapBytes} -> ${during}`);
    layer.dispose();
    assert.equal(attn.memoryUsage().heapBytes, before.heapBytes);
  });
});

describe('objects of two module instances', () => {
  test('a GPT or tokenizer of another createAttention() is refused by name (it said "expected a GPT, got an object with keys []")', async () => {
    const other = await createAttention();
    const model = own(new other.GPT({ vocabSize: 3, nEmbd: 8, nHead: 2, nLayer: 1, nInner: 8, blockSize: 4 }));
    const tokenizer = own(new other.CharTokenizer('abc'));
    const mine = own(new attn.CharTokenizer('abc'));
    assert.throws(() => attn.probeAgreement(model, mine), {
      message: 'probeAgreement: this GPT belongs to another module instance (made by another createAttention()); objects of two instances cannot be used together',
    });
    const ours = own(new attn.GPT({ vocabSize: 3, nEmbd: 8, nHead: 2, nLayer: 1, nInner: 8, blockSize: 4 }));
    assert.throws(() => ours.checkpoint(tokenizer), { message: /^GPT\.checkpoint: this CharTokenizer belongs to another module instance/ });
    assert.throws(() => ours.checkpoint({}), { message: "GPT.checkpoint: expected the model's tokenizer (a CharTokenizer or WordTokenizer), got an object with keys []" });
    assert.ok(ours.checkpoint(mine) instanceof Uint8Array);
  });
});

describe('corpora cost their size and 4 bytes a token', () => {
  // A 10 MB text left the module at 460 MiB after CharTokenizer.encode, and training text cost ~85× its size
  // natively (one std::string per character). Now: at most twice the text, plus 4 bytes a token (and a little model).
  const MiB = 2 ** 20;
  const text = 'abcdefghijklmnopqrstuvwxyz ,.\n'.repeat(333334); // 10,000,020 characters, one token each
  const bound = 2 * text.length + 4 * text.length;

  test('CharTokenizer.encode of 10 MB', async () => {
    const fresh = await createAttention(); // a module of its own: WASM memory never shrinks
    const before = fresh.memoryUsage().memoryBytes;
    const tokenizer = new fresh.CharTokenizer(text);
    assert.equal(tokenizer.encode(text).length, text.length);
    tokenizer.dispose();
    const grown = fresh.memoryUsage().memoryBytes - before;
    assert.ok(grown <= bound, `grew by ${(grown / MiB).toFixed(1)} MiB, more than ${(bound / MiB).toFixed(1)}`);
  });

  test('a Trainer on 10 MB of text', async () => {
    const fresh = await createAttention();
    const before = fresh.memoryUsage().memoryBytes;
    const trainer = new fresh.Trainer({ model: { nLayer: 1, nHead: 2, nEmbd: 16, nInner: 32, blockSize: 16 }, training: { batchSize: 4 }, text });
    trainer.step();
    trainer.dispose();
    const grown = fresh.memoryUsage().memoryBytes - before;
    assert.ok(grown <= bound + 8 * MiB, `grew by ${(grown / MiB).toFixed(1)} MiB, more than ${((bound + 8 * MiB) / MiB).toFixed(1)}`);
  });
});
