// attn.explainScore, the "trace one number" of the site, against the traces
// it takes apart: one head of notebook 001's MultiHeadAttention with a causal
// mask, where the products must sum to the map's score, the mixed value rows to
// the head's output, and a masked key must carry no weight.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { attn, own, useAttention } from './helpers.js';

useAttention();

/** Head h of batch row 0 of a (B, H, T, d) tensor, as a (T, d) tensor. */
const head = (t, h) => {
  const [, H, T, d] = t.shape;
  return { data: t.data.slice(h * T * d, (h + 1) * T * d), shape: [T, d], H };
};

test('explainScore takes apart one weight of a multi-head map', () => {
  attn.manualSeed(11);
  const mha = own(new attn.MultiHeadAttention(8, 2));
  const t = mha.forward(attn.randn(1, 5, 8), { causal: true });
  const h = 1;
  const map = { queries: head(t.queries, h), keys: head(t.keys, h), values: head(t.values, h), weights: head(t.weights, h) };
  const [i, j] = [3, 1];
  const e = attn.explainScore(map, i, j);
  assert.deepEqual(e.products.shape, [4]);
  const sum = e.products.data.reduce((a, b) => a + b, 0);
  assert.ok(Math.abs(sum - e.score) < 1e-6);
  assert.equal(e.divisor, Math.fround(Math.sqrt(4)));
  const scores = head(t.scores, h).data; // scaled and masked, per head
  assert.ok(Math.abs(e.scaledScore - scores[i * 5 + j]) < 1e-5, `${e.scaledScore} vs ${scores[i * 5 + j]}`);
  assert.deepEqual(Array.from(e.weights.data), Array.from(map.weights.data.subarray(i * 5, (i + 1) * 5)));
  assert.equal(e.weights.data[4], 0, 'the masked key carries no weight');
  // z_i is this head's columns of the concatenated output
  const concat = t.concat.data.subarray(i * 8 + h * 4, i * 8 + h * 4 + 4);
  e.output.data.forEach((v, c) => assert.ok(Math.abs(v - concat[c]) < 1e-6, `output ${c}: ${v} vs ${concat[c]}`));
  assert.deepEqual(e.mixed.shape, [5, 4]);
  for (let c = 0; c < 4; c++) {
    let column = 0;
    for (let k = 0; k < 5; k++) column += e.mixed.data[k * 4 + c];
    assert.ok(Math.abs(column - e.output.data[c]) < 1e-6);
  }
});

test('explainScore refuses a partial map, an index outside it, and non-finite values', () => {
  attn.manualSeed(1);
  const q = attn.randn(3, 2);
  const map = { queries: q, keys: attn.randn(4, 2), values: attn.randn(4, 5), weights: attn.rand(3, 4) };
  assert.throws(() => attn.explainScore({ queries: q }, 0, 0), { name: 'Error', code: 'ERR_ATTN_INVALID_ARGUMENT', message: /^explainScore: expected a map with queries, keys, values, weights/ });
  assert.throws(() => attn.explainScore(map, 0, 4), { message: 'explainScore: expected a query in [0, 3) and a key in [0, 4), got (0, 4)' });
  assert.throws(() => attn.explainScore(map, -1, 0), { message: 'explainScore: expected the query index to be a non-negative integer, got -1' });
  const nan = { ...map, weights: { data: Float32Array.of(NaN, ...new Array(11).fill(0)), shape: [3, 4] } };
  assert.throws(() => attn.explainScore(nan, 0, 0), { message: 'explainScore: expected finite values in weights, got NaN at flat index 0' });
});
