// loadStateDict (torch's load_state_dict) on the modules a reader builds by
// hand: weights by their PyTorch names, checked whole before any is assigned.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { attn, own, useAttention } from './helpers.js';

useAttention();

const x = [[0.43, 0.15, 0.89, 0.1], [0.55, 0.87, 0.66, -0.2], [0.57, 0.85, 0.64, 0.3]];

test('a module given another\'s state dict computes what that one computes', () => {
  attn.manualSeed(1);
  const source = own(new attn.MultiHeadAttention(4, 2));
  attn.manualSeed(2);
  const target = own(new attn.MultiHeadAttention(4, 2));
  assert.notDeepEqual(target.forward(x).output.data, source.forward(x).output.data);
  target.loadStateDict({ 'W_q.weight': source.W_q, 'W_k.weight': source.W_k, 'W_v.weight': source.W_v, 'W_o.weight': source.W_o });
  assert.deepEqual(target.forward(x, { causal: true }).output.data, source.forward(x, { causal: true }).output.data);

  attn.manualSeed(123);
  const sa = own(new attn.SelfAttentionV1(4, 2));
  const value = sa.W_value;
  sa.loadStateDict({ W_query: [[1, 0], [0, 1], [0, 0], [0, 0]], W_key: [[1, 0], [0, 1], [0, 0], [0, 0]] }, { strict: false });
  const t = sa.forward(x);
  assert.ok(Math.abs(t.scores.data[1] - (0.43 * 0.55 + 0.15 * 0.87)) < 1e-6, 'Q = K = the first two columns');
  assert.deepEqual(sa.W_value.data, value.data, 'strict: false keeps what is not given');
});

test('a wrong state dict is refused with what was expected, and changes nothing', () => {
  attn.manualSeed(0);
  const mha = own(new attn.MultiHeadAttention(4, 2));
  const before = mha.W_q.data;
  const eye = { data: new Float32Array(16).fill(1), shape: [4, 4] };
  assert.throws(() => mha.loadStateDict({ 'W_q.weight': eye, 'W_k.weight': [[1, 2], [3, 4]] }, { strict: false }), {
    code: 'ERR_ATTN_INVALID_ARGUMENT',
    message: "MultiHeadAttention.loadStateDict: expected 'W_k.weight' of shape [4, 4] (its shape in this module), got [2, 2]",
  });
  assert.deepEqual(mha.W_q.data, before);
  assert.throws(() => mha.loadStateDict({ 'W_q.weigth': eye }), /unexpected key 'W_q.weigth' in the state dict \(did you mean 'W_q.weight'\?\)/);
  assert.throws(() => mha.loadStateDict({ 'W_q.weight': eye }), /missing key\(s\) W_k.weight, W_v.weight, W_o.weight/);
  assert.throws(() => mha.loadStateDict({ 'W_o.weight': { data: new Float32Array(16).fill(NaN), shape: [4, 4] } }, { strict: false }), /W_o.weight/);
  assert.throws(() => mha.loadStateDict(null), { name: 'TypeError', message: /MultiHeadAttention.loadStateDict: expected a state dict/ });
  assert.throws(() => mha.loadStateDict({ 'W_q.weight': 'abc' }, { strict: false }), /stateDict\['W_q.weight'\]/);
  assert.throws(() => mha.loadStateDict({}, { strict: 'no' }), /strict/);
  assert.throws(() => mha.loadStateDict({}, { strickt: false }), /unknown option "strickt"/);
});
