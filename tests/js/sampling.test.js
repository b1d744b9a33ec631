// samplingDistribution: the distribution generate() draws from, against PyTorch's nanoGPT steps
// (logits / temperature, top-k cut to -inf, softmax), and refused options named.
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

test('greedy puts all the mass on the largest logit; rows stay rows; bad options are refused by name', () => {
  assert.deepEqual(Array.from(attn.samplingDistribution(LOGITS, { temperature: 0 }).data), [0, 0, 0, 0, 0, 1, 0]);
  const rows = attn.samplingDistribution([LOGITS, LOGITS.map((x) => -x)], { topK: 2 });
  assert.deepEqual(rows.shape, [2, LOGITS.length]);
  assert.equal(rows.data.filter((p) => p > 0).length, 4);
  assert.throws(() => attn.samplingDistribution(LOGITS, { temperature: -1 }), /samplingDistribution: expected temperature >= 0/);
  assert.throws(() => attn.samplingDistribution(LOGITS, { topK: 1.5 }), /samplingDistribution: expected topK as an integer/);
  assert.throws(() => attn.samplingDistribution(LOGITS, { top_k: 2 }), /unknown option "top_k"/);
  assert.throws(() => attn.samplingDistribution([1, NaN]), /samplingDistribution/);
});
