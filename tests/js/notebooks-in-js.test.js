// The JS API against the built WASM module: the notebooks' numbers through
// the same calls a learner writes, and errors a user can read.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';

import { tensor } from '../../web/lib/index.js';
import { assertClose, attn, notebook, own, rngCase, row, useAttention } from './helpers.js';

useAttention();

describe('PyTorch-compatible random numbers', () => {
  test('rand, randn (both paths), randint, Linear init match docs/torch-rng.md', () => {
    for (const key of ['rand_3x2_seed123', 'rand_6_seed1729', 'randn_6_seed0', 'randn_6_seed42']) {
      const c = rngCase(key);
      attn.manualSeed(c.seed);
      const t = c.call === 'rand' ? attn.rand(...c.shape) : attn.randn(c.shape);
      assertClose(t, c.data);
    }
    const big = rngCase('randn_4x4_seed0');
    attn.manualSeed(big.seed);
    assertClose(attn.randn(4, 4), { data: big.data, shape: big.shape }, 1e-6);
    const ri = rngCase('randint_0_10_5_seed0');
    attn.manualSeed(ri.seed);
    assert.deepEqual(Array.from(attn.randint(0, 10, [5]).data), ri.data);
    const lin = rngCase('linear_1x1_seed42');
    attn.manualSeed(lin.seed);
    const layer = own(new attn.Linear(1, 1));
    assertClose(layer.weight, { data: lin.weight, shape: [1, 1] });
    assertClose(layer.bias, { data: lin.bias, shape: [1] });
  });
});

describe('notebook 000: attention without trainable weights', () => {
  const inputs = notebook('nb000.inputs');

  test('scores, normalisations and the context vector for "journey"', () => {
    const scores = attn.attentionScoresForQuery(inputs, 1);
    assertClose(scores, notebook('nb000.attn_scores_2'));
    assertClose(attn.normalizeSum(scores), notebook('nb000.attn_weights_2_tmp'));
    assertClose(attn.softmaxNaive(scores), notebook('nb000.attn_weights_2_naive'));
    const weights = attn.softmax(scores);
    assertClose(weights, notebook('nb000.attn_weights_2'));
    assertClose(attn.contextVector(weights, inputs), notebook('nb000.context_vec_2'));
  });

  test('all tokens, loop form equal to matrix form', () => {
    const t = attn.simpleSelfAttention(inputs);
    assertClose(t.scores, notebook('nb000.attn_scores'));
    assertClose(attn.attentionScoresLoop(inputs), t.scores, 1e-6);
    assertClose(t.weights, notebook('nb000.attn_weights'));
    assertClose(t.context, notebook('nb000.all_context_vector'));
    assertClose(attn.contextVectors(t.weights, inputs), t.context, 1e-6);
  });

  test('the naive softmax overflows where the stable one does not', () => {
    const huge = tensor([1e4, 0, -1e4]);
    assert.ok(Number.isNaN(attn.softmaxNaive(huge).data[0]));
    assertClose(attn.softmax(huge), [1, 0, 0], 1e-7);
  });
});

describe('notebooks 000/002: trainable weights', () => {
  test('SelfAttentionV1, seed 123: every intermediate', () => {
    attn.manualSeed(123);
    const sa = own(new attn.SelfAttentionV1(3, 2));
    assertClose(sa.W_query, notebook('nb002.seed123.W_query'));
    assertClose(sa.W_key, notebook('nb002.seed123.W_key'));
    assertClose(sa.W_value, notebook('nb002.seed123.W_value'));
    const t = sa.forward(notebook('nb002.inputs'));
    assertClose(t.queries, notebook('nb002.seed123.queries'));
    assertClose(t.keys, notebook('nb002.seed123.keys'));
    assertClose(t.values, notebook('nb002.seed123.values'));
    assertClose(t.scores, notebook('nb002.seed123.attn_scores'));
    assertClose(t.scaledScores, notebook('nb002.seed123.scaled_attn_scores'));
    assertClose(t.weights, notebook('nb002.seed123.attn_weights'));
    assertClose(t.context, notebook('nb002.seed123.context_matrix'));
    assertClose(row(t.queries, 1), notebook('nb000.seed123.query_2'));
  });

  test('SelfAttentionV2, seeds 789 and 78', () => {
    attn.manualSeed(789);
    const a = own(new attn.SelfAttentionV2(3, 2));
    assertClose(a.forward(notebook('nb000.inputs')).context, notebook('nb000.seed789.sa_v2'));
    attn.manualSeed(78);
    const b = own(new attn.SelfAttentionV2(3, 2));
    assertClose(b.forward(notebook('nb002.inputs')).context, notebook('nb002.seed78.self_attention_v2'));
    assert.equal(b.W_query.bias, null);
    assert.deepEqual(b.W_query.weight.shape, [2, 3]);
  });

  test('notebook 003: Embedding(10, 16) and U matrices from the same seed', () => {
    attn.manualSeed(123);
    const embed = own(new attn.Embedding(10, 16));
    const x = embed.forward([0, 7, 1, 2, 5, 6, 4, 3]);
    assert.deepEqual(x.shape, [8, 16]);
    assertClose(row(x, 1), row(embed.weight, 7), 0);
    attn.manualSeed(123);
    const sa = own(new attn.SelfAttentionU(16));
    assertClose({ data: sa.U_query.data.slice(0, 6), shape: [6] }, rngCase('rand_3x2_seed123').data);
    const t = sa.forward(x);
    assert.deepEqual(t.weights.shape, [8, 8]);
    assert.deepEqual(t.context.shape, [8, 16]);
  });
});

describe('scaledDotProductAttention with masks', () => {
  test('causal: upper triangle exactly 0, rows sum to 1', () => {
    attn.manualSeed(1);
    const q = attn.randn(2, 5, 4), k = attn.randn(2, 5, 4), v = attn.randn(2, 5, 4);
    const t = attn.scaledDotProductAttention(q, k, v, { causal: true });
    assert.deepEqual(t.weights.shape, [2, 5, 5]);
    for (let b = 0; b < 2; b++)
      for (let i = 0; i < 5; i++) {
        let sum = 0;
        for (let j = 0; j < 5; j++) {
          const w = t.weights.data[(b * 5 + i) * 5 + j];
          if (j > i) assert.equal(w, 0);
          sum += w;
        }
        assert.ok(Math.abs(sum - 1) < 1e-6);
      }
    const tril = attn.scaledDotProductAttention(q, k, v, { mask: attn.causalMask(5), fillValue: -1e9 });
    assertClose(tril.weights, t.weights, 0);
  });

  test('a query with every key masked gets zeros, never NaN', () => {
    attn.manualSeed(2);
    const q = attn.randn(2, 3, 2), k = attn.randn(2, 3, 2), v = attn.randn(2, 3, 2);
    const t = attn.scaledDotProductAttention(q, k, v, { keyLengths: [3, 0] });
    assert.ok(t.output.data.every((x) => !Number.isNaN(x)));
    assert.ok(t.weights.data.slice(9).every((x) => x === 0));
  });
});

describe('errors are Errors that say what went wrong', () => {
  test('shape mismatch names function, expected and given shapes', () => {
    attn.manualSeed(123);
    const sa = own(new attn.SelfAttentionV1(3, 2));
    assert.throws(() => sa.forward({ data: new Float32Array(24), shape: [6, 4] }), {
      name: 'Error',
      message: 'SelfAttentionV1.forward: expected x of shape [..., T, 3] with T > 0, got [6, 4]',
    });
    assert.throws(
      () => attn.scaledDotProductAttention(attn.rand(3, 4), attn.rand(5, 3), attn.rand(5, 2)),
      { message: 'scaledDotProductAttention: expected key of shape [T_k, 4], got [5, 3]' },
    );
  });

  test('bad values, bad arguments, absurd sizes', () => {
    assert.throws(() => attn.softmax({ data: [1, NaN], shape: [2] }), {
      message: 'softmax: expected finite values in scores, got NaN at flat index 1',
    });
    assert.throws(() => attn.rand(1e6, 1e6), /^Error: rand: shape \[1000000, 1000000\] has more than/);
    assert.throws(() => attn.tensor([[1, 2], [3]]), /tensor: expected data to be a rectangular nested array of shape \[2, 2\]/);
    assert.throws(() => attn.scaledDotProductAttention([[1]], [[1]], [[1]], { casual: true }), /unknown option "casual"/);
    assert.throws(() => new attn.SelfAttentionV1(0, 2), { message: 'SelfAttentionV1: expected dIn to be a positive integer, got 0' });
    assert.throws(() => attn.causalMask(0), { message: 'causalMask: expected a sequence length > 0, got 0' });
    assert.throws(() => attn.softmax('nope'), /softmax: expected x as a tensor \{data, shape\} or a nested array of numbers, got the string "nope"/);
    const embed = own(new attn.Embedding(4, 2));
    assert.throws(() => embed.forward([1, 9]), { message: 'Embedding.forward: expected ids in [0, 4), got 9 at index 1' });
    assert.throws(() => embed.forward([1.5]), /Embedding.forward: expected ids to hold integers, got number 1.5 at index 0/);
    // After all these errors the module still works.
    attn.manualSeed(123);
    assertClose(attn.rand(3, 2), rngCase('rand_3x2_seed123').data);
  });

  test('a disposed object says so instead of crashing', () => {
    const sa = own(new attn.SelfAttentionV1(3, 2));
    sa.dispose();
    sa.dispose();
    assert.throws(() => sa.forward(notebook('nb000.inputs')), { message: 'SelfAttentionV1: used after dispose()' });
    assert.equal(typeof sa[Symbol.dispose], 'function');
  });
});

test('returned arrays are JS-owned copies that survive WASM memory growth', () => {
  attn.manualSeed(123);
  const first = attn.rand(3, 2);
  const before = Array.from(first.data);
  first.data[0] = 42; // mutating our copy must not touch the library
  attn.manualSeed(123);
  assert.equal(attn.rand(3, 2).data[0], before[0]);
  attn.randn(4096, 4096); // 64 MiB: forces the WASM heap to grow
  assert.deepEqual(Array.from(first.data.slice(1)), before.slice(1));
  assert.ok(first.data.buffer.byteLength === first.data.byteLength, 'a standalone buffer, not a view of WASM memory');
});
