// Checkpoints written by an attacker, through the WASM build: each test is a file
// that used to get through, named after what it did. The module must refuse it
// with a named Error before allocating what the file asks for, and keep working.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';

import { attn, own, safetensors, useAttention } from './helpers.js';

useAttention();

/** A checkpoint's header edited as another tool would write it (no digest, which the edit would break). */
function withHeader(bytes, edit) {
  return safetensors(bytes).rewrite((header) => {
    delete header.__metadata__.digest;
    edit(header);
  });
}

/** The safetensors layout: the header's length (8 bytes, little-endian), the header, the data. */
function assemble(headerText, data = new Uint8Array(0)) {
  const text = new TextEncoder().encode(headerText);
  const out = new Uint8Array(8 + text.length + data.length);
  new DataView(out.buffer).setBigUint64(0, BigInt(text.length), true);
  out.set(text, 8);
  out.set(data, 8 + text.length);
  return out;
}

const nested = (depth) => '['.repeat(depth) + ']'.repeat(depth);

function tinyCheckpoint() {
  const model = own(new attn.GPT({ vocabSize: 4, nEmbd: 8, nHead: 2, nLayer: 1, nInner: 16, blockSize: 4 }));
  const tokenizer = own(new attn.CharTokenizer('abcd'));
  return model.checkpoint(tokenizer);
}

describe('hostile checkpoints', () => {
  test('a header or config nesting 100,000 levels is refused by name, and leaks nothing (it threw an unnamed RangeError and kept ~44 MiB)', () => {
    const good = tinyCheckpoint();
    const files = [
      [assemble(`{"__metadata__": {}, "x": ${nested(100000)}}`), 'loadCheckpoint: the header nests deeper than 32 levels'],
      [withHeader(good, (h) => { h.__metadata__.config = nested(100000); }), 'loadCheckpoint: __metadata__.config nests deeper than 32 levels'],
    ];
    const heap = attn.memoryUsage().heapBytes;
    for (let i = 0; i < 20; i++) {
      for (const [bytes, message] of files) assert.throws(() => attn.loadCheckpoint(bytes), (e) => e.message.startsWith(message));
    }
    assert.ok(attn.memoryUsage().heapBytes - heap < 1 << 20, 'the refused files left no memory behind');
    const { model, tokenizer } = attn.loadCheckpoint(good);
    own(model);
    own(tokenizer);
    assert.equal(model.config.vocabSize, 4);
  });

  test('a small file whose config means a huge model is refused before the model is allocated (WASM memory grew to 886 MiB for good)', () => {
    const bomb = withHeader(tinyCheckpoint(), (h) => {
      h.__metadata__.config = JSON.stringify({ ...JSON.parse(h.__metadata__.config), n_embd: 4096, n_inner: 16384, n_head: 2 });
    });
    const memory = attn.memoryUsage().memoryBytes;
    assert.throws(() => attn.loadCheckpoint(bomb), /^Error: loadCheckpoint: its config describes a model of at least 201375744 parameters \(805502976 bytes of float32\), but the file holds \d+ data bytes$/);
    assert.equal(attn.memoryUsage().memoryBytes, memory, 'the WASM memory did not grow');
  });

  test('a header of a million values is refused before it is parsed (57 MB of "0," cost 1 GB of memory)', () => {
    const zeros = '0,'.repeat(1 << 20);
    const memory = attn.memoryUsage().memoryBytes;
    assert.throws(() => attn.loadCheckpoint(assemble(`{"__metadata__": {}, "x": [${zeros}0]}`)),
      { message: 'loadCheckpoint: the header holds more than 1048576 values (arrays, objects, keys and scalars; not a file this library writes)' });
    const entries = Array.from({ length: 65537 }, (_, i) => `"t${i}": 0`).join(', ');
    assert.throws(() => attn.loadCheckpoint(assemble(`{"__metadata__": {}, ${entries}}`)),
      { message: 'loadCheckpoint: the header lists 65538 entries, more than the limit of 65536 tensors' });
    // The 2 MB file is copied in; parsed, its values alone would have taken 16 MiB.
    assert.ok(attn.memoryUsage().memoryBytes - memory <= 8 << 20, 'the WASM memory grew by at most the file');
  });
});

describe('sizes beyond memory', () => {
  test('agreementCorpus of ten million sentences, and repeatedSequences beyond a tensor, are refused before they are built (the first ended in bad_alloc with WASM memory at 2 GiB)', () => {
    const before = attn.memoryUsage().memoryBytes;
    assert.throws(() => attn.agreementCorpus(1e7),
      { message: /^agreementCorpus: expected 0 to \d+ sentences \(a corpus within the 268435456 bytes of a training text\), got 10000000$/ });
    assert.equal(attn.memoryUsage().memoryBytes, before, 'WASM memory did not grow');
    assert.throws(() => attn.repeatedSequences({ batchSize: 1e6, length: 1e6, vocabSize: 10 }),
      { message: 'repeatedSequences: 1000000 sequences of 1000000 tokens exceed the 268435456 elements a tensor may hold' });
    assert.equal(attn.memoryUsage().memoryBytes, before, 'WASM memory did not grow');
  });

  test('a forward whose attention weights cannot be allocated names them (it said only "vector")', () => {
    const model = own(new attn.GPT({ vocabSize: 10, blockSize: 1024, nLayer: 1, nHead: 64, nEmbd: 64, nInner: 64 }));
    const ids = { data: new Float64Array(20 * 1024), shape: [20, 1024] };
    for (const trace of [false, true]) {
      assert.throws(() => model.forward(ids, { trace }), {
        message: 'GPT.forward: a pass of 20 × 1024 tokens needs attention weights of 1342177280 elements (sequences × heads × tokens × ' +
          "context = 20 × 64 × 1024 × 1024), more than the library's limit of 268435456; use fewer or shorter sequences",
      });
    }
    assert.deepEqual(model.forward({ data: new Float64Array(64), shape: [1, 64] }, { trace: false }).logits.shape, [1, 64, 10]);
  });

  test('a text of more distinct words than a vocabulary may hold is refused while they are counted (a million words made 612 MB)', () => {
    const words = Array.from({ length: (1 << 18) + 1 }, (_, i) => ` w${i}`).join('');
    const memory = attn.memoryUsage().memoryBytes;
    assert.throws(() => new attn.WordTokenizer(words),
      { message: "WordTokenizer: the text has more than 262144 distinct words, the library's limit for a vocabulary; use character tokens" });
    assert.throws(() => new attn.Trainer({ training: { tokenizer: 'word' }, text: words }),
      { message: "Trainer: the text has more than 262144 distinct words, the library's limit for a vocabulary; use character tokens" });
    assert.ok(attn.memoryUsage().memoryBytes - memory <= 64 << 20, 'no model was allocated for the refused vocabulary');
  });
});
