// The JS API against real PyTorch (tests/golden/*.json from tools/make_golden.py),
// and the golden files themselves against a fresh run of PyTorch.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';

import { torchStdout } from '../fixtures/torch-cache.js';
import { assertClose, attn, fullTier, own, useAttention } from './helpers.js';

useAttention();

const golden = (name) => JSON.parse(readFileSync(new URL(`../golden/${name}`, import.meta.url), 'utf8'));
const modules = golden('modules.json');
const models = golden('models.json');

describe('the JS API gives PyTorch\'s numbers', () => {
  test('notebook 001\'s MultiHeadAttention applies a (B, T, T) mask per batch row', () => {
    // Regression: the mask was broadcast against the heads (here B = num_heads = 2, so silently).
    const c = modules.notebook001_mha;
    attn.manualSeed(c.seed);
    const mha = own(new attn.MultiHeadAttention(c.d_model, c.num_heads));
    assertClose(mha.W_o, c.W_o, 1e-7);
    for (const [name, mask] of [['causal', c.causal_mask], ['per_row', c.per_row_mask]]) {
      const t = mha.forward(c.x, { mask, fillValue: -1e9 });
      assertClose(t.output, c[name].output, 1e-6);
      assertClose(t.weights, c[name].weights, 1e-6);
    }
    // paddingMask's (B, 1, T_k) is such a mask: key lengths per batch row.
    const padded = mha.forward(c.x, { mask: attn.paddingMask([4, 2], 4) });
    const byLengths = mha.forward(c.x, { keyLengths: [4, 2] });
    assertClose(padded.output, byLengths.output, 0);
  });

  test('TorchMultiheadAttention takes nn.MultiheadAttention\'s attn_mask shapes and key padding', () => {
    const c = modules.torch_mha;
    attn.manualSeed(c.seed);
    const mha = own(new attn.TorchMultiheadAttention(c.embed_dim, c.num_heads));
    assertClose(mha.inProjWeight, c.in_proj_weight, 1e-7);
    const causal2 = { data: Float32Array.from({ length: 15 }, (_, k) => (k % 5 <= Math.floor(k / 5) + 2 ? 1 : 0)), shape: [3, 5] };
    for (const [name, options] of [['plain', {}], ['attn_mask_2d', { mask: causal2 }], ['attn_mask_3d', { mask: c.heads_mask_attend }],
      ['key_padding', { keyLengths: c.key_lengths }]]) {
      const t = mha.forward(c.query, c.key, c.key, options);
      assertClose(t.output, c[name].output, 1e-6);
      assertClose(t.averageWeights, c[name].average_weights, 1e-6);
    }
    assert.throws(() => mha.forward(c.query, c.key, c.key, { mask: { data: new Float32Array(45), shape: [3, 3, 5] } }),
      /TorchMultiheadAttention.forward: expected mask of shape \[T_q, T_k\] or \[B·numHeads, T_q, T_k\] = \[4, T_q, T_k\], got \[3, 3, 5\]/);
  });

  test('nanoGPT\'s logits, and its sampled ids, through GPT.forward and GPT.generate', () => {
    for (const [variant, c] of Object.entries(models.nanogpt)) {
      const k = c.config;
      const model = own(new attn.GPT({ ...attn.nanoGPTConfig({ vocabSize: k.vocab_size, blockSize: k.block_size, nLayer: k.n_layer,
        nHead: k.n_head, nEmbd: k.n_embd, bias: k.bias, tieEmbeddings: k.tie }), seed: k.seed }));
      const ids = { data: c.ids.data, shape: c.ids.shape };
      assertClose(model.forward(ids).logits, c.logits, 1e-6);
      for (const name of model.parameterNames()) assertClose(model.parameter(name), c.parameters[name], 1e-7);
      if (variant !== models.sampling.model) continue;
      const s = models.sampling;
      const out = model.generate(s.prompt, { maxNewTokens: s.max_new_tokens, temperature: s.temperature, topK: s.top_k, seed: s.seed });
      assert.deepEqual(Array.from(out.data), s.ids.data);
    }
  });
});

describe('tensor conveniences as torch has them', () => {
  test('softmax, softmaxNaive and normalizeSum along every dim, as torch\'s dim', () => {
    const c = modules.along_dim;
    for (const dim of [0, 1, 2, -1, -2, -3]) {
      assertClose(attn.softmax(c.x, dim), c.softmax[dim], 1e-6);
      assertClose(attn.softmaxNaive(c.x, dim), c.softmax_naive[dim], 1e-6);
      assertClose(attn.normalizeSum(c.positive, dim), c.normalize_sum[dim], 1e-6);
    }
  });

  test('format prints as print(tensor) does, character for character', () => {
    for (const c of modules.printing) {
      const data = c.tensor.data.map(Number); // "Infinity", "NaN" back to numbers
      const t = { data: c.integer ? Int32Array.from(data) : Float32Array.from(data), shape: c.tensor.shape };
      assert.equal(attn.format(t, { precision: c.precision }), c.printed);
    }
  });

  test('toArray gives tensor.tolist()\'s nesting and float32 values', () => {
    const c = modules.printing[1]; // randn(2, 3, 4)
    const nested = attn.toArray(c.tensor);
    assert.equal(nested.length, 2);
    assert.equal(nested[1].length, 3);
    assert.equal(nested[1][2].length, 4);
    assert.equal(nested[1][2][3], Math.fround(c.tensor.data[23]));
    assert.deepEqual(attn.toArray(attn.randint(0, 10, [2, 2])).map((r) => r.length), [2, 2]);
    assert.equal(attn.toArray({ data: [0.5], shape: [] }), 0.5);
  });
});

test('the golden files are what PyTorch computes today (tools/make_golden.py --check)', fullTier('PyTorch'), () => {
  // Debian's python3-torch, installed by tools/setup.sh for the tests; checked again when the script, PyTorch or a
  // golden file changes.
  const out = torchStdout(['tools/make_golden.py', '--check'], { inputs: ['tests/golden'] });
  assert.match(out, /^tests\/golden: checked notebooks.json, torch_rng.json, modules.json, models.json/);
});
