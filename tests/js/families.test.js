// loadPretrained on today's decoder families against plain-PyTorch references that follow transformers' modeling
// files step by step (tools/llama_reference.py): random Llama, Mistral, Qwen2, Qwen3 and Gemma 3 models in float32,
// float16 and bfloat16, one file or shards, each with what makes its family differ (grouped and multi-query
// key/value heads, head_dim ≠ width / heads, llama3 RoPE scaling whose original context is shorter than the test's
// 12 tokens, sliding windows shorter than them, q/k/v biases, q/k norms, Gemma's four norms, √C embeddings and local
// RoPE base, the newer rope_parameters and the multimodal Gemma 3 wrapping). Logits, every head's weights and a
// greedy continuation (which runs through the KV cache) must equal PyTorch's.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';

import { familyReferences } from '../fixtures/torch-cache.js';
import { attn, fullTier, own, QUICK, useAttention } from './helpers.js';

useAttention();

const LLAMA3 = { factor: 4.0, low_freq_factor: 1.0, high_freq_factor: 4.0, original_max_position_embeddings: 8 };
const MODELS = [
  { name: 'llama-gqa-llama3', family: 'llama', n_layer: 2, hidden: 32, heads: 4, kv_heads: 2, head_dim: 12, inner: 48,
    tie: false, theta: 500000.0, llama3: LLAMA3 },
  { name: 'llama-mqa-bf16-shards', family: 'llama', n_layer: 3, hidden: 32, heads: 4, kv_heads: 1, head_dim: 8, inner: 40,
    dtype: 'BF16', shards: 3, tie: true },
  { name: 'mistral-window', family: 'mistral', n_layer: 2, hidden: 32, heads: 4, kv_heads: 2, head_dim: 8, inner: 48,
    window: 5, tie: false, theta: 1000000.0 },
  { name: 'qwen2-f16', family: 'qwen2', n_layer: 2, hidden: 32, heads: 4, kv_heads: 2, head_dim: 8, inner: 48, tie: true,
    theta: 1000000.0, dtype: 'F16' },
  { name: 'qwen3-rope-parameters', family: 'qwen3', n_layer: 2, hidden: 32, heads: 4, kv_heads: 2, head_dim: 16, inner: 48,
    tie: true, theta: 1000000.0, rope_parameters: true },
  { name: 'gemma3-bf16-shards', family: 'gemma3_text', n_layer: 3, hidden: 32, heads: 4, kv_heads: 1, head_dim: 16,
    inner: 40, window: 4, pattern: 3, local_theta: 10000.0, theta: 1000000.0, query_pre_attn_scalar: 12,
    rope_parameters: true, shards: 2, dtype: 'BF16' },
  { name: 'gemma3-multimodal', family: 'gemma3_text', wrapped: true, layer_types: false, n_layer: 2, hidden: 32, heads: 2,
    kv_heads: 1, head_dim: 16, inner: 40, window: 3, pattern: 2, local_theta: 10000.0, theta: 1000000.0,
    query_pre_attn_scalar: 16 },
];
// Large enough that its weights, not the loader's bookkeeping, are what the heap holds: 3.7 M parameters.
const MEMORY = { name: 'llama-bf16-memory', family: 'llama', n_layer: 2, hidden: 256, heads: 4, kv_heads: 2, head_dim: 64,
  inner: 768, vocab: 8192, dtype: 'BF16', shards: 2, tie: false, T: 4 };
const TORCH = fullTier('PyTorch (tools/llama_reference.py)');
let dir;
before(() => {
  if (!QUICK) dir = familyReferences([...MODELS, MEMORY]);
});
const expectedOf = (name) => JSON.parse(readFileSync(join(dir, name, 'expected.json'), 'utf8'));

function maxDiff(a, b) {
  assert.equal(a.length, b.length);
  let m = 0;
  for (let i = 0; i < a.length; i++) m = Math.max(m, Math.abs(a[i] - b[i]));
  return m;
}

describe("loadPretrained gives what today's families compute in PyTorch", TORCH, () => {
  for (const spec of MODELS) {
    test(`${spec.name}: logits, every head's attention weights and a greedy continuation, to 1e-4`, async () => {
      const e = expectedOf(spec.name);
      const { model, tokenizer } = await attn.loadPretrained(join(dir, spec.name));
      own(model);
      own(tokenizer);
      const [B, T] = [e.ids.length, e.ids[0].length];
      const { logits, trace } = model.forward(e.ids, { trace: true });
      assert.deepEqual(logits.shape, [B, T, 320]);
      assert.ok(maxDiff(logits.data, e.logits) <= 1e-4, `logits: ${maxDiff(logits.data, e.logits)}`);
      assert.equal(trace.layers.length, spec.n_layer);
      for (const [l, layer] of trace.layers.entries()) {
        assert.deepEqual(layer.weights.shape, [B, spec.heads, T, T]);
        // Keys and values are stored once per key/value head.
        assert.deepEqual(layer.keys.shape, [B, spec.kv_heads, T, spec.head_dim]);
        assert.ok(maxDiff(layer.weights.data, e.attentions[l]) <= 1e-5, `layer ${l}'s attention weights`);
      }
      const tokens = model.generate([e.ids[0]], { maxNewTokens: 8, temperature: 0 });
      assert.deepEqual(Array.from(tokens.data).slice(-8), e.greedy);
      // One head's map (chapter 9's): its weights, its queries after RoPE, and the keys and values of the
      // key/value head it reads.
      const last = spec.heads - 1;
      const kv = Math.floor(last / (spec.heads / spec.kv_heads));
      const map = attn.headAttention(model, e.ids[0], spec.n_layer - 1, last);
      const layer = trace.layers[spec.n_layer - 1];
      const slice = (t, h, heads) => t.data.subarray(h * T * spec.head_dim, (h + 1) * T * spec.head_dim); // batch row 0
      assert.ok(maxDiff(map.weights.data, layer.weights.data.subarray(last * T * T, (last + 1) * T * T)) <= 1e-6);
      assert.ok(maxDiff(map.queries.data, slice(layer.queries, last, spec.heads)) <= 1e-6);
      assert.ok(maxDiff(map.keys.data, slice(layer.keys, kv, spec.kv_heads)) <= 1e-6);
      assert.ok(maxDiff(map.values.data, slice(layer.values, kv, spec.kv_heads)) <= 1e-6);
      // Its weights taken apart divide the scores by what the head divided them by (Gemma 3: √query_pre_attn_scalar,
      // not √head_dim): the softmax of the last row's scaled scores over the keys it sees is that row of weights.
      assert.equal(map.divisor, Math.fround(Math.sqrt(spec.query_pre_attn_scalar ?? spec.head_dim)));
      const row = map.weights.data.subarray((T - 1) * T, T * T);
      const scaled = Array.from(row, (w, j) => (w > 0 ? attn.explainScore(map, T - 1, j).scaledScore : -Infinity));
      const exps = scaled.map((s) => Math.exp(s - Math.max(...scaled)));
      const total = exps.reduce((a, b) => a + b, 0);
      assert.ok(maxDiff(exps.map((x) => x / total), row) <= 1e-5, 'the scaled scores give the weights');
      // Chapter 9's head table measures every head of these models too.
      const scores = attn.headScores(model, { batchSize: 2, length: 8 });
      for (const t of [scores.prefixMatching, scores.previousToken, scores.copying]) {
        assert.deepEqual(t.shape, [spec.n_layer, spec.heads]);
        assert.ok(t.data.every((x) => Number.isFinite(x) && Math.abs(x) <= 1 + 1e-6));
      }
    });
  }
});

test('a bfloat16 model keeps its weights in 16 bits: the heap grows by at most 1.3 times its files, and computes the same', TORCH, async () => {
  const folder = join(dir, MEMORY.name);
  const fileBytes = readdirSync(folder).filter((f) => f.endsWith('.safetensors')).reduce((n, f) => n + statSync(join(folder, f)).size, 0);
  const before = attn.memoryUsage().heapBytes;
  const { model, tokenizer } = await attn.loadPretrained(folder);
  own(model);
  own(tokenizer);
  const grown = attn.memoryUsage().heapBytes - before;
  assert.ok(grown <= 1.3 * fileBytes, `the heap grew by ${grown} bytes for ${fileBytes} bytes of files`);
  assert.ok(grown >= 0.9 * fileBytes, `${grown} bytes: the weights are in the heap`);
  const e = expectedOf(MEMORY.name);
  const { logits } = model.forward(e.ids);
  assert.ok(maxDiff(logits.data, e.logits) <= 1e-4, `logits: ${maxDiff(logits.data, e.logits)}`);
});

test('attn-train generate --model DIR continues a prompt as the library does', TORCH, async () => {
  const folder = join(dir, 'qwen3-rope-parameters');
  const { model, tokenizer } = await attn.loadPretrained(folder);
  own(model);
  own(tokenizer);
  const prompt = 'the cat sat';
  const ids = model.generate([tokenizer.encode(prompt)], { maxNewTokens: 8, temperature: 0 });
  const expected = tokenizer.decode(Array.from(ids.data).slice(-8));
  const cli = new URL('../../build/portable/attn-train', import.meta.url).pathname;
  const r = spawnSync(cli, ['generate', '--model', folder, '--prompt', prompt, '--max-new-tokens', '8', '--temperature', '0'], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  assert.equal(r.stdout, `${prompt}${expected}\n`);
});

test('attn-train generate --model DIR samples and stops as its generation_config.json says', TORCH, async () => {
  const source = join(dir, 'qwen3-rope-parameters');
  const folder = mkdtempSync(join(tmpdir(), 'attn-generation-config-'));
  try {
    cpSync(source, folder, { recursive: true });
    const { model, tokenizer } = await attn.loadPretrained(folder);
    own(model);
    own(tokenizer);
    const prompt = 'the cat sat';
    const ids = tokenizer.encode(prompt);
    const cli = new URL('../../build/portable/attn-train', import.meta.url).pathname;
    const generate = (...flags) => spawnSync(cli, ['generate', '--model', folder, '--prompt', prompt, '--max-new-tokens', '8', ...flags], { encoding: 'utf8' });
    // The file's sampling is the base: do_sample with its temperature, top_k and top_p, as the library samples them
    // with --seed. The model's vocabulary is padded past its tokenizer's: a seed whose tokens the tokenizer decodes.
    const sampling = { temperature: 0.7, topK: 20, topP: 0.9 };
    const seed = [...Array(100).keys()].find((s) =>
      Array.from(model.generate([ids], { maxNewTokens: 8, ...sampling, seed: s }).data).every((t) => t < tokenizer.vocabSize));
    assert.ok(seed !== undefined, 'a seed whose tokens all decode');
    const free = Array.from(model.generate([ids], { maxNewTokens: 8, ...sampling, seed, eosTokenId: [] }).data).slice(ids.length);
    writeFileSync(join(folder, 'generation_config.json'), JSON.stringify({ do_sample: true, temperature: 0.7, top_k: 20, top_p: 0.9,
      eos_token_id: [], transformers_version: '4.51.0' }));
    const sampled = generate('--seed', String(seed));
    assert.equal(sampled.status, 0, sampled.stderr);
    assert.equal(sampled.stdout, `${prompt}${tokenizer.decode(free)}\n`);
    assert.notEqual(generate('--seed', String(seed), '--top-k', '1').stdout, sampled.stdout, 'the flags change the file\'s sampling');
    // Its stop token (here the fourth token the model makes) ends the text, and is not printed.
    const stop = free[3];
    writeFileSync(join(folder, 'generation_config.json'), JSON.stringify({ do_sample: true, temperature: 0.7, top_k: 20, top_p: 0.9,
      eos_token_id: [stop] }));
    const stopped = generate('--seed', String(seed));
    assert.equal(stopped.status, 0, stopped.stderr);
    assert.equal(stopped.stdout, `${prompt}${tokenizer.decode(free.slice(0, free.indexOf(stop)))}\n`);
    // Flags override the file: no stop tokens, greedy.
    const greedy = Array.from(model.generate([ids], { maxNewTokens: 8, temperature: 0 }).data).slice(ids.length);
    const flagged = generate('--eos-token-id', 'none', '--temperature', '0');
    assert.equal(flagged.stdout, `${prompt}${tokenizer.decode(greedy)}\n`, flagged.stderr);
    // A bad file is refused by name before the model is read.
    writeFileSync(join(folder, 'generation_config.json'), '{"do_sample": true, "top_p": "most"}');
    const refused = generate();
    assert.equal(refused.status, 1);
    assert.equal(refused.stderr, 'attn-train: --model: generation_config.json\'s top_p: expected a number, got "most"\n');
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
});

test('attn-train train --model DIR fine-tunes a folder: saved unchanged at step 0, learning its text after', TORCH, async () => {
  const folder = join(dir, 'gemma3-bf16-shards');  // bfloat16 shards: widened to float32 to train
  const work = mkdtempSync(join(tmpdir(), 'attn-fine-tune-'));
  const cli = new URL('../../build/portable/attn-train', import.meta.url).pathname;
  const train = (...args) => spawnSync(cli, ['train', '--model', folder, '--data', join(work, 'text.txt'), '--context', '16',
    '--batch-size', '4', '--eval-iters', '4', ...args], { encoding: 'utf8' });
  try {
    writeFileSync(join(work, 'text.txt'), 'the cat sat on the mat. '.repeat(200));
    // No step: the folder written holds the model read (bfloat16 widened is exact), so the logits are the same bits.
    const same = train('--out', join(work, 'same'), '--max-iters', '0');
    assert.equal(same.status, 0, same.stderr);
    const ids = [[1, 5, 9, 2, 7, 3]];
    const [before, saved] = [await attn.loadPretrained(folder), await attn.loadPretrained(join(work, 'same'))];
    for (const loaded of [before, saved]) own(loaded.model), own(loaded.tokenizer);
    assert.deepEqual(saved.model.forward(ids).logits.data, before.model.forward(ids).logits.data);
    assert.equal(readFileSync(join(work, 'same', 'tokenizer.json'), 'utf8'), readFileSync(join(folder, 'tokenizer.json'), 'utf8'));
    // Forty steps on a repeated sentence: the validation loss falls, and the folder loads and differs.
    const tuned = train('--out', join(work, 'tuned'), '--max-iters', '40', '--eval-interval', '40', '--learning-rate', '3e-3',
      '--warmup-iters', '0', '--no-decay-lr');
    assert.equal(tuned.status, 0, tuned.stderr);
    const losses = [...tuned.stdout.matchAll(/^step (\d+): train loss [\d.]+, val loss ([\d.]+)/gm)].map((m) => [Number(m[1]), Number(m[2])]);
    assert.deepEqual(losses.map(([step]) => step), [0, 40], tuned.stdout);
    assert.ok(losses[1][1] < losses[0][1] - 1, `val loss ${losses[0][1]} -> ${losses[1][1]}`);
    const after = await attn.loadPretrained(join(work, 'tuned'));
    own(after.model), own(after.tokenizer);
    assert.ok(maxDiff(after.model.forward(ids).logits.data, before.model.forward(ids).logits.data) > 1e-3);
    // What a fine-tuning run cannot do is refused before any work.
    const refusals = [
      [['--out', join(work, 'x'), '--resume', join(work, 'x')], '--model starts a fine-tuning run; --resume and --recipe start other runs'],
      [['--out', join(work, 'x'), '--n-layer', '3'], '--n-layer cannot change a loaded model'],
      [['--out', folder], `--out "${folder}" is the --model folder; saving would overwrite the model`],
    ];
    for (const [args, message] of refusals) {
      const r = train(...args);
      assert.notEqual(r.status, 0);
      assert.ok(r.stderr.includes(message), r.stderr);
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
});

describe('a family folder that is wrong is refused by name, with nothing kept', TORCH, () => {
  let scratch;
  before(() => {
    scratch = mkdtempSync(join(tmpdir(), 'attn-families-'));
  });
  after(() => rmSync(scratch, { recursive: true, force: true }));

  /** A copy of a reference folder with config.json's keys changed (undefined deletes one). */
  function withConfig(name, change) {
    const out = mkdtempSync(join(scratch, `${name}-`));
    cpSync(join(dir, name), out, { recursive: true });
    const config = JSON.parse(readFileSync(join(out, 'config.json'), 'utf8'));
    change(config);
    writeFileSync(join(out, 'config.json'), JSON.stringify(config));
    return out;
  }
  const cases = [
    ['llama-gqa-llama3', (c) => { c.rope_scaling = { rope_type: 'yarn', factor: 4 }; }, /rope_scaling\.rope_type is "yarn"/],
    ['llama-gqa-llama3', (c) => { c.num_key_value_heads = 3; }, /num_key_value_heads is 3; num_attention_heads \(4\) must be a multiple of it/],
    ['llama-gqa-llama3', (c) => { c.head_dim = 11; }, /head_dim is 11; rotary positions/],
    ['llama-gqa-llama3', (c) => { c.model_type = 'falcon'; }, /model_type is "falcon"/],
    ['llama-gqa-llama3', (c) => { c.hidden_act = 'gelu'; }, /hidden_act is "gelu"/],
    ['gemma3-bf16-shards', (c) => { c.final_logit_softcapping = 30; }, /final_logit_softcapping is 30/],
    ['gemma3-bf16-shards', (c) => { c.layer_types[0] = 'full_attention'; }, /layer_types\[1\] is "sliding_attention"|layer_types\[0\]/],
    ['qwen2-f16', (c) => { c.use_sliding_window = true; }, /use_sliding_window is true/],
  ];
  for (const [name, change, message] of cases) {
    test(`${name} with ${change.toString().replace(/^\(c\) => \{ | \}$/g, '')}`, async () => {
      await assert.rejects(attn.loadPretrained(withConfig(name, change)), (e) => e instanceof Error && /^loadPretrained: /.test(e.message) && message.test(e.message));
    });
  }

  test('a shard missing, or a tensor in two shards', async () => {
    const missing = withConfig('llama-mqa-bf16-shards', () => {});
    rmSync(join(missing, 'model-00002-of-00003.safetensors'));
    await assert.rejects(attn.loadPretrained(missing), /model\.safetensors\.index\.json lists model-00002-of-00003\.safetensors, which the model folder does not hold/);
    const twice = withConfig('llama-mqa-bf16-shards', () => {});
    cpSync(join(twice, 'model-00001-of-00003.safetensors'), join(twice, 'model-00002-of-00003.safetensors'));
    await assert.rejects(attn.loadPretrained(twice), /is listed twice/);
  });

  test('an index that puts a tensor where no shard holds it, and a matrix filled from two dtypes', async () => {
    const lost = withConfig('llama-mqa-bf16-shards', () => {});
    const indexPath = join(lost, 'model.safetensors.index.json');
    const index = JSON.parse(readFileSync(indexPath, 'utf8'));
    index.weight_map['model.layers.0.mlp.extra.weight'] = 'model-00001-of-00003.safetensors';
    writeFileSync(indexPath, JSON.stringify(index));
    await assert.rejects(attn.loadPretrained(lost), { message: 'loadPretrained: model.safetensors.index.json puts tensor ' +
      '"model.layers.0.mlp.extra.weight" in model-00001-of-00003.safetensors, but no shard holds it' });
    // k_proj relabelled float16 beside its bfloat16 q_proj and v_proj (the same bytes, so the header stays valid).
    const mixed = withConfig('llama-mqa-bf16-shards', () => {});
    const key = 'model.layers.0.self_attn.k_proj.weight';
    const shard = index.weight_map[key];
    const bytes = readFileSync(join(mixed, shard));
    const length = Number(bytes.readBigUInt64LE(0));
    const header = JSON.parse(bytes.subarray(8, 8 + length).toString('utf8'));
    header[key].dtype = 'F16';
    const text = Buffer.from(JSON.stringify(header));
    const prefix = Buffer.alloc(8);
    prefix.writeBigUInt64LE(BigInt(text.length));
    writeFileSync(join(mixed, shard), Buffer.concat([prefix, text, bytes.subarray(8 + length)]));
    await assert.rejects(attn.loadPretrained(mixed), (e) => /^loadPretrained: tensors "model\.layers\.0\.self_attn\.[qkv]_proj\.weight" \((BF16|F16), in model-0000\d-of-00003\.safetensors\) and "model\.layers\.0\.self_attn\.[qkv]_proj\.weight" \((BF16|F16), in model-0000\d-of-00003\.safetensors\) fill one matrix, transformer\.h\.0\.attn\.c_attn\.weight: expected one dtype$/.test(e.message) && e.message.includes(key));
  });
});
