// The paths without traces against the traced ones they stand in for:
// attn.attention() against scaledDotProductAttention().output, and
// MultiHeadAttention / TorchMultiheadAttention with { trace: false } against
// their traces, over the options and shapes that exercise the streaming
// kernel's blocks (64 queries × 256 keys), masks and edge cases; then a
// sequence of 16,384 tokens in little memory.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';

import { assertClose, attn, own, useAttention } from './helpers.js';

useAttention();

/** Within 1e-5 of the reference, relative to the reference's largest magnitude (and at least 1e-5 absolute). */
function assertNear(actual, expected, what) {
  assert.deepEqual(actual.shape, expected.shape, `${what}: shape`);
  const scale = Math.max(1, ...expected.data.map(Math.abs));
  for (let i = 0; i < expected.data.length; i++) {
    assert.ok(Math.abs(actual.data[i] - expected.data[i]) <= 1e-5 * scale, `${what}: element ${i}: ${actual.data[i]} vs ${expected.data[i]}`);
  }
}

test("a sliding window: PyTorch's band of keys, traced and untraced (masking_utils' sliding_window_causal)", () => {
  // Head 0 of tests/golden/llama_layers.json's grouped case: its query head 0 reads key/value head 0.
  const g = JSON.parse(readFileSync(new URL('../golden/llama_layers.json', import.meta.url), 'utf8')).grouped_window;
  const head = (t, h) => ({ data: Float32Array.from(t.data.slice(h * 56, (h + 1) * 56)), shape: [7, 8] });
  const [q, k, v] = [head(g.query, 0), head(g.key, 0), head(g.value, 0)];
  const options = { causal: true, window: g.window };
  const trace = attn.scaledDotProductAttention(q, k, v, options);
  assertClose(trace.weights, { data: g.weights.data.slice(0, 49), shape: [7, 7] });
  assertClose(attn.attention(q, k, v, options), { data: g.output.data.slice(0, 56), shape: [7, 8] });
  assert.deepEqual(Array.from(trace.mask.data.slice(6 * 7)), [0, 0, 0, 0, 1, 1, 1], 'the last query sees 3 keys');
  assert.throws(() => attn.attention(q, k, v, { window: 3 }),
    { message: 'attention: expected window 0 (none) or > 0 with causal attention, got 3 without causal' });
});

describe('attention() gives scaledDotProductAttention\'s output', () => {
  const cases = [
    ['one query, one key', [1, 4], [1, 4], [1, 3], {}],
    ['blocks of queries and keys with ragged ends', [130, 16], [300, 16], [300, 8], {}],
    ['causal, square', [300, 8], [300, 8], [300, 8], { causal: true }],
    ['causal, queries the newest of a longer key sequence', [70, 8], [333, 8], [333, 8], { causal: true }],
    ['batched, key lengths per batch row, -1e9', [2, 3, 70, 8], [2, 3, 270, 8], [2, 3, 270, 5], { keyLengths: [0, 200], fillValue: -1e9 }],
    ['key length 0 with -Infinity: zeros', [2, 5, 4], [2, 9, 4], [2, 9, 3], { keyLengths: [0, 9] }],
    ['an explicit scale', [40, 8], [50, 8], [50, 8], { scale: 0.3 }],
    ['a negative scale', [40, 8], [50, 8], [50, 8], { scale: -0.7, causal: true }],
    ['a sliding window across blocks of keys', [2, 700, 8], [2, 700, 8], [2, 700, 8], { causal: true, window: 300 }],
    ['a sliding window, queries the newest of a longer key sequence', [70, 8], [333, 8], [333, 8], { causal: true, window: 5 }],
  ];
  for (const [name, qs, ks, vs, options] of cases) {
    test(name, () => {
      attn.manualSeed(qs.reduce((a, b) => a + b, 0));
      const [q, k, v] = [attn.randn(qs), attn.randn(ks), attn.randn(vs)];
      const expected = attn.scaledDotProductAttention(q, k, v, options).output;
      assertNear(attn.attention(q, k, v, options), expected, name);
    });
  }

  test('masks of every broadcastable shape, read in place', () => {
    attn.manualSeed(3);
    const [B, H, Tq, Tk] = [2, 3, 70, 260];
    const [q, k, v] = [attn.randn(B, H, Tq, 8), attn.randn(B, H, Tk, 8), attn.randn(B, H, Tk, 4)];
    const pattern = (shape) => {
      const n = shape.reduce((a, b) => a * b, 1);
      return { data: Float32Array.from({ length: n }, (_, i) => ((i * 7919) % 5 === 0 ? 0 : 1)), shape };
    };
    for (const shape of [[Tq, Tk], [Tk], [B, 1, 1, Tk], [B, H, Tq, Tk], [1, H, Tq, 1], [H, Tq, Tk]]) {
      for (const fillValue of [-Infinity, -1e9]) {
        const options = { mask: pattern(shape), fillValue };
        assertNear(attn.attention(q, k, v, options), attn.scaledDotProductAttention(q, k, v, options).output,
          `mask ${JSON.stringify(shape)}, fill ${fillValue}`);
      }
    }
  });

  test('refuses what scaledDotProductAttention refuses, naming attention', () => {
    assert.throws(() => attn.attention([[1, 2]], [[1, 2, 3]], [[1]]), /^Error: attention: expected key of shape \[T_k, 2\], got \[1, 3\]$/);
    assert.throws(() => attn.attention([[1, 2]], [[1, 2]], [[1]], { keyLengths: [2, 1] }),
      /^Error: attention: expected 1 key lengths \(one per batch row\), got 2$/);
    assert.throws(() => attn.attention([[1, 2]], [[1, 2]], [[1]], { mask: [[1, 1]] }),
      /^Error: attention: expected mask of shape broadcastable to \[1, 1\], got \[1, 2\]$/);
  });
});

describe('{ trace: false } gives the traced output', () => {
  test('MultiHeadAttention, with masks per batch row', () => {
    attn.manualSeed(5);
    const mha = own(new attn.MultiHeadAttention(32, 4));
    const x = attn.randn(2, 300, 32);
    for (const options of [{}, { causal: true }, { keyLengths: [120, 300] }, { mask: attn.paddingMask([5, 290], 300), fillValue: -1e9 }]) {
      const fast = mha.forward(x, { ...options, trace: false });
      assert.deepEqual(Object.keys(fast), ['output']);
      assertNear(fast.output, mha.forward(x, options).output, JSON.stringify(options));
    }
  });

  test('TorchMultiheadAttention, cross-attention with key padding', () => {
    attn.manualSeed(6);
    const mha = own(new attn.TorchMultiheadAttention(16, 2));
    const [q, kv] = [attn.randn(2, 65, 16), attn.randn(2, 257, 16)];
    const fast = mha.forward(q, kv, kv, { keyLengths: [257, 3], trace: false });
    assertNear(fast.output, mha.forward(q, kv, kv, { keyLengths: [257, 3] }).output, 'TorchMultiheadAttention');
  });

  test('GPT: forwards of other shapes and models in between leave no trace in the reused activations', () => {
    // The inference activations are kept between calls (one scratch per thread), so a stale
    // size or value from an earlier call would show here.
    attn.manualSeed(7);
    const big = own(new attn.GPT(attn.nanoGPTConfig({ vocabSize: 11, blockSize: 16, nLayer: 2, nHead: 2, nEmbd: 16 })));
    const small = own(new attn.GPT(attn.nanoGPTConfig({ vocabSize: 5, blockSize: 8, nLayer: 1, nHead: 1, nEmbd: 8 })));
    const ids = [[1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 0, 1], [3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3]];
    const first = big.forward(ids);
    assert.deepEqual(first.logits.shape, [2, 12, 11]);
    assert.deepEqual(small.forward([[4, 3, 2]]).logits.shape, [1, 3, 5]);
    big.forward([[1]], { trace: false });
    const again = big.forward(ids, { trace: false });
    assert.equal(again.trace, null);
    assertNear(again.logits, first.logits, 'GPT logits after other calls');
  });

  test('trace takes true or false only', () => {
    const mha = own(new attn.MultiHeadAttention(4, 2));
    assert.throws(() => mha.forward([[1, 2, 3, 4]], { trace: 'no' }),
      { message: 'MultiHeadAttention.forward: expected trace as true or false, got the string "no"' });
  });
});

describe('long sequences', () => {
  test('16,384 tokens, causal and full, in less than 256 MB; the trace is refused at once, naming its memory', () => {
    const T = 16384;
    attn.manualSeed(16384);
    const [q, k, v] = [attn.randn(T, 64), attn.randn(T, 64), attn.randn(T, 64)];
    for (const causal of [true, false]) {
      const y = attn.attention(q, k, v, { causal });
      assert.deepEqual(y.shape, [T, 64]);
      // Spot-check rows against the formula, computed here in double precision.
      for (const i of [0, 1, 4095, T - 1]) {
        const keys = causal ? i + 1 : T;
        const s = Array.from({ length: keys }, (_, j) => {
          let dot = 0;
          for (let c = 0; c < 64; c++) dot += q.data[i * 64 + c] * k.data[j * 64 + c];
          return dot / 8;
        });
        const max = Math.max(...s);
        const w = s.map((x) => Math.exp(x - max));
        const sum = w.reduce((a, b) => a + b, 0);
        for (const c of [0, 17, 63]) {
          let z = 0;
          for (let j = 0; j < keys; j++) z += (w[j] / sum) * v.data[j * 64 + c];
          assert.ok(Math.abs(y.data[i * 64 + c] - z) < 1e-4, `row ${i}, column ${c}: ${y.data[i * 64 + c]} vs ${z}`);
        }
      }
    }
    assert.ok(attn.memoryUsage().memoryBytes < 256 * 2 ** 20, `WASM memory ${attn.memoryUsage().memoryBytes} bytes`);
    // Refused before allocating: 5 GiB would end in an out-of-memory error instead of this message.
    assert.throws(() => attn.scaledDotProductAttention(q, k, v), {
      message: 'scaledDotProductAttention: its five [16384, 16384] intermediates would need 5.0 GiB, more than the ' +
        '1.0 GiB a trace may take; attention() computes the output alone in little memory',
    });
  });
});
