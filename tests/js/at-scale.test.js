// Attention at scale (scale.d.ts): the online softmax against torch.softmax, a KV cache's step against PyTorch's
// whole causal attention, and kvCacheNumbers against the six published config.json files' own numbers (the
// site's calculator, web/site/chapters/at-scale/configs.js, reads them through it).
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { MODELS } from '../../web/site/chapters/at-scale/configs.js';
import { torchStdout } from '../fixtures/torch-cache.js';
import { assertClose, attn, fullTier, useAttention } from './helpers.js';

useAttention();

const SCORES = [0.3, -1.2, 2.5, 0.1, 4.75, -Infinity, 1.5, 4.8, -0.4];

test('the online softmax is torch.softmax, for every block size; its running maximum and sum as written', fullTier('PyTorch'), () => {
  const script = `import json, torch\nprint(json.dumps(torch.softmax(torch.tensor(${JSON.stringify(SCORES).replace('null', "float('-inf')")}), dim=-1).tolist()))`;
  const expected = JSON.parse(torchStdout(['-c', script]));
  for (const block of [1, 2, 4, 9, 20]) {
    const t = attn.onlineSoftmax(SCORES, { block });
    assertClose(t.weights, { data: expected, shape: [SCORES.length] }, 1e-6);
    assert.equal(t.maxima.shape[0], Math.ceil(SCORES.length / block));
    // After each step: m the largest score seen, l the sum of e^(ω − m) over the scores seen.
    t.maxima.data.forEach((m, s) => {
      const seen = SCORES.slice(0, (s + 1) * block);
      assert.equal(m, Math.fround(Math.max(...seen)));
      const l = seen.reduce((sum, w) => sum + Math.exp(w - m), 0);
      assert.ok(Math.abs(t.sums.data[s] - l) <= 1e-5 * l, `block ${block}, step ${s + 1}: ${t.sums.data[s]} vs ${l}`);
    });
  }
  assert.deepEqual(Array.from(attn.onlineSoftmax([-Infinity, -Infinity]).weights.data), [0, 0], 'a row of masked keys: zeros, as softmax');
  assert.throws(() => attn.onlineSoftmax([1, NaN]), /onlineSoftmax: expected finite scores or -inf/);
  assert.throws(() => attn.onlineSoftmax([1, 2], { block: 0 }), /onlineSoftmax/);
  assert.throws(() => attn.onlineSoftmax([[1, 2]]), /onlineSoftmax: expected one row of scores/);
});

test('a KV cache\'s step — one query row against the keys and values kept — is PyTorch\'s causal attention\'s row', fullTier('PyTorch'), () => {
  attn.manualSeed(5);
  const [q, k, v] = [attn.randn(6, 8), attn.randn(6, 8), attn.randn(6, 8)];
  const script = [
    'import json, torch',
    'import torch.nn.functional as F',
    'torch.manual_seed(5)',
    'q, k, v = torch.randn(6, 8), torch.randn(6, 8), torch.randn(6, 8)',
    'w = torch.softmax((q @ k.T / 8 ** 0.5).masked_fill(torch.triu(torch.ones(6, 6), 1) == 1, float("-inf")), dim=-1)',
    'print(json.dumps((w @ v).tolist()))',
  ].join('\n');
  const full = JSON.parse(torchStdout(['-c', script]));
  for (let t = 1; t <= 6; t++) {
    const rows = (x) => ({ data: x.data.subarray(0, t * 8), shape: [t, 8] });
    const step = attn.scaledDotProductAttention({ data: q.data.subarray((t - 1) * 8, t * 8), shape: [1, 8] }, rows(k), rows(v));
    assertClose(step.output, { data: full[t - 1], shape: [1, 8] }, 1e-5);
  }
});

// Each model's cache per token from its config.json's numbers: 2 (a key and a value) × layers × key/value heads ×
// head size; Gemma 3's 15 sliding layers (5 of every 6) keep at most 512 tokens.
const PUBLISHED = {
  'GPT-2 small': { layers: 12, kv: 12, head: 64 },
  'SmolLM2-135M': { layers: 30, kv: 3, head: 64 },
  'SmolLM2-360M': { layers: 32, kv: 5, head: 64 },
  'Qwen2.5-0.5B': { layers: 24, kv: 2, head: 64 },
  'Gemma-3-270M': { layers: 18, kv: 1, head: 256, sliding: { layers: 15, window: 512 } },
  'Llama-3.2-1B': { layers: 16, kv: 8, head: 64 },
};

test('the calculator\'s caches are the published configs\' numbers: per token, at 1k, 8k and 32k', () => {
  assert.deepEqual(MODELS.map((m) => m.name), Object.keys(PUBLISHED));
  for (const { name, config } of MODELS) {
    const p = PUBLISHED[name];
    for (const T of [1, 1024, 8192, 32768]) {
      const sliding = p.sliding ? p.sliding.layers * Math.min(T, p.sliding.window) : 0;
      const full = (p.layers - (p.sliding?.layers ?? 0)) * T;
      assert.equal(attn.kvCacheNumbers(config, T), 2 * p.kv * p.head * (full + sliding), `${name} at ${T} tokens`);
    }
  }
  // In bytes of 16-bit numbers: Llama-3.2-1B keeps 32 KiB a token, 1 GiB at 32k tokens.
  const llama = MODELS.find((m) => m.name === 'Llama-3.2-1B').config;
  assert.equal(2 * attn.kvCacheNumbers(llama, 1), 32768);
  assert.equal(2 * attn.kvCacheNumbers(llama, 32768), 2 ** 30);
  assert.throws(() => attn.kvCacheNumbers({ model_type: 'bert' }, 10), /model_type/);
  assert.throws(() => attn.kvCacheNumbers(llama, -1), /kvCacheNumbers/);
  assert.throws(() => attn.kvCacheNumbers('llama', 1), /kvCacheNumbers: expected a config.json as an object/);
});
