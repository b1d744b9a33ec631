// samplingDistribution: the distribution generate() draws from, against PyTorch's nanoGPT steps
// (logits / temperature, top-k cut to -inf, softmax) and against transformers' warpers run in PyTorch
// (TemperatureLogitsWarper, TopKLogitsWarper, TopPLogitsWarper, in that order), and refused options named.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { torchStdout } from '../fixtures/torch-cache.js';
import { assertClose, attn, fullTier, useAttention } from './helpers.js';

useAttention();

const LOGITS = [0.5, 2, -1, 1.5, 0, 3.25, -0.75];
const CASES = [[1, 0], [0.7, 3], [2.5, 1], [0.3, 0], [1.3, 7]];

test('the distribution is PyTorch\'s softmax of the scaled, top-k cut logits', fullTier('PyTorch'), () => {
  const script = [
    'import json, torch',
    `logits = torch.tensor(${JSON.stringify(LOGITS)})`,
    'out = []',
    `for t, k in ${JSON.stringify(CASES)}:`,
    '    x = logits / t',
    '    if k > 0:',
    '        v, _ = torch.topk(x, k)',
    "        x = x.masked_fill(x < v[-1], float('-inf'))",
    '    out.append(torch.softmax(x, dim=-1).tolist())',
    'print(json.dumps(out))',
  ].join('\n');
  const expected = JSON.parse(torchStdout(['-c', script]));
  CASES.forEach(([temperature, topK], c) => {
    const p = attn.samplingDistribution(LOGITS, { temperature, topK });
    assert.deepEqual(p.shape, [LOGITS.length]);
    assertClose(p, { data: expected[c], shape: [LOGITS.length] }, 1e-6);
  });
});

// transformers' warpers as generation/logits_process.py writes them (min_tokens_to_keep 1), applied in
// _get_logits_processor's order; each only when it does something (temperature != 1, top_k != 0, top_p < 1).
const WARPERS = [
  'import json, sys, torch',
  'def warp(scores, temperature, top_k, top_p):',
  '    if temperature != 1.0:',
  '        scores = scores / temperature',
  '    if top_k != 0:',
  '        top_k = min(max(top_k, 1), scores.size(-1))',
  '        indices_to_remove = scores < torch.topk(scores, top_k)[0][..., -1, None]',
  "        scores = scores.masked_fill(indices_to_remove, -float('inf'))",
  '    if top_p < 1.0:',
  '        sorted_logits, sorted_indices = torch.sort(scores, descending=False)',
  '        cumulative_probs = sorted_logits.softmax(dim=-1).cumsum(dim=-1)',
  '        sorted_indices_to_remove = cumulative_probs <= (1 - top_p)',
  '        sorted_indices_to_remove[..., -1:] = 0',
  '        indices_to_remove = sorted_indices_to_remove.scatter(1, sorted_indices, sorted_indices_to_remove)',
  "        scores = scores.masked_fill(indices_to_remove, -float('inf'))",
  '    return torch.softmax(scores, dim=-1)',
].join('\n');

// Rows of at most 16 logits: torch.sort's default CPU sort keeps ties in order there (and the library always does),
// so the tokens cut among equal logits are the same. Row 1 has ties at the cut; row 2 is flat.
const ROWS = [
  [0.5, 2, -1, 1.5, 0, 3.25, -0.75, 1.2, 0.3, -2, 2.6, 0.9],
  [1, 1, 1, 1, 0.5, 0.5, 2, 2, -1, 0, 0.5, 1],
  Array(12).fill(0.25),
];
const TOP_P = [[1, 0, 0.9], [0.7, 0, 0.5], [1.3, 5, 0.8], [1, 3, 0.95], [2.5, 0, 0.3], [1, 0, 1e-6], [0.6, 0, 0.75],
  [1, 0, 0.5], [1, 8, 0.6], [1, 0, 0.25]];

test("top-p is transformers' TopPLogitsWarper after temperature and top-k, ties and a tiny top-p included", fullTier('PyTorch'), () => {
  const script = [
    WARPERS,
    `rows = torch.tensor(${JSON.stringify(ROWS)})`,
    `print(json.dumps([warp(rows, t, k, p).tolist() for t, k, p in ${JSON.stringify(TOP_P)}]))`,
  ].join('\n');
  const expected = JSON.parse(torchStdout(['-c', script]));
  TOP_P.forEach(([temperature, topK, topP], c) => {
    const p = attn.samplingDistribution(ROWS, { temperature, topK, topP });
    assertClose(p, { data: expected[c].flat(), shape: [ROWS.length, ROWS[0].length] }, 1e-6);
    // The same tokens are cut (exactly zero), not merely small.
    p.data.forEach((x, i) => assert.equal(x === 0, expected[c].flat()[i] === 0, `case ${c}, element ${i}`));
  });
  // A tiny top-p keeps the likeliest token alone; among equal likeliest, the last in the sort (the highest index).
  const tiny = attn.samplingDistribution(ROWS, { topP: 1e-6 });
  assert.deepEqual(Array.from(tiny.data.slice(0, 12)), ROWS[0].map((_, j) => (j === 5 ? 1 : 0)));
  assert.deepEqual(Array.from(tiny.data.slice(12, 24)), ROWS[1].map((_, j) => (j === 7 ? 1 : 0)));
});

test('greedy puts all the mass on the largest logit; rows stay rows; bad options are refused by name', () => {
  assert.deepEqual(Array.from(attn.samplingDistribution(LOGITS, { temperature: 0 }).data), [0, 0, 0, 0, 0, 1, 0]);
  const rows = attn.samplingDistribution([LOGITS, LOGITS.map((x) => -x)], { topK: 2 });
  assert.deepEqual(rows.shape, [2, LOGITS.length]);
  assert.equal(rows.data.filter((p) => p > 0).length, 4);
  // The limits are generate()'s, stated once in its table.
  assert.throws(() => attn.samplingDistribution(LOGITS, { temperature: -1 }), /samplingDistribution: expected temperature to be a number >= 0, got -1/);
  assert.throws(() => attn.samplingDistribution(LOGITS, { topK: 1.5 }), /samplingDistribution: expected topK to be an integer >= 0, got 1.5/);
  assert.throws(() => attn.samplingDistribution(LOGITS, { topP: 0 }), /samplingDistribution: expected topP to be a number in \(0, 1\], got 0/);
  assert.throws(() => attn.samplingDistribution(LOGITS, { topP: 1.5 }), /samplingDistribution: expected topP to be a number in \(0, 1\], got 1.5/);
  assert.throws(() => attn.samplingDistribution(LOGITS, { topP: '0.9' }), /samplingDistribution: expected topP to be a number in \(0, 1\], got "0.9"/);
  assert.throws(() => attn.samplingDistribution(LOGITS, { top_k: 2 }), /unknown option "top_k"/);
  assert.throws(() => attn.samplingDistribution(LOGITS, { maxNewTokens: 2 }), /unknown option "maxNewTokens"/);
  assert.throws(() => attn.samplingDistribution([1, NaN]), /samplingDistribution/);
});
