// loadPretrained against a plain-PyTorch GPT-2 that follows transformers' modeling_gpt2 step by step
// (tools/gpt2_reference.py): Hugging Face model folders of random GPT-2-shaped models in float32, float16 and
// bfloat16, with and without the "transformer." prefix, tied and untied, gelu_new and gelu, read from a path,
// from bytes, from Blobs and from Files; then every way such a folder can be wrong.
import assert from 'node:assert/strict';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';

import { GPT2_MERGES, GPT2_VOCAB, gpt2References, OUT, torchFolder } from '../fixtures/torch-cache.js';
import { attn, fullTier, own, QUICK, safetensors, useAttention } from './helpers.js';

useAttention();

const MODELS = [
  { name: 'f32', n_layer: 2, n_head: 4, n_embd: 32, n_positions: 32 },
  { name: 'f16', n_layer: 2, n_head: 2, n_embd: 16, n_positions: 24, dtype: 'F16', prefix: false, n_inner: 40,
    activation_function: 'gelu', layer_norm_epsilon: 1e-3, tie_word_embeddings: false, bool_mask: true },
  { name: 'bf16', n_layer: 1, n_head: 4, n_embd: 32, n_positions: 20, dtype: 'BF16' },
];
const TORCH = fullTier('PyTorch (tools/gpt2_reference.py, tools/nanogpt_to_hf.py)');
let dir;
before(() => {
  if (!QUICK) dir = gpt2References(MODELS);
});

const expectedOf = (name) => JSON.parse(readFileSync(join(dir, name, 'expected.json'), 'utf8'));
const filesOf = (name) => Object.fromEntries(['config.json', 'model.safetensors', 'vocab.json', 'merges.txt']
  .map((f) => [f, new Uint8Array(readFileSync(join(dir, name, f)))]));

/** The largest difference between two arrays. */
function maxDiff(a, b) {
  assert.equal(a.length, b.length);
  let m = 0;
  for (let i = 0; i < a.length; i++) m = Math.max(m, Math.abs(a[i] - b[i]));
  return m;
}

function checkAgainstTorch(model, e) {
  const [B, T] = [e.ids.length, e.ids[0].length];
  const V = e.config.vocab_size;
  const { logits, trace } = model.forward(e.ids, { trace: true });
  assert.deepEqual(logits.shape, [B, T, V]);
  const head = [];
  const argmax = [];
  const logsumexp = [];
  for (let r = 0; r < B * T; r++) {
    const row = logits.data.subarray(r * V, (r + 1) * V);
    head.push(...row.subarray(0, 64));
    let best = 0;
    let max = -Infinity;
    for (let v = 0; v < V; v++) if (row[v] > max) [max, best] = [row[v], v];
    argmax.push(best);
    let sum = 0;
    for (let v = 0; v < V; v++) sum += Math.exp(row[v] - max);
    logsumexp.push(max + Math.log(sum));
  }
  assert.ok(maxDiff(head, e.logits_head) <= 1e-4, `logits: ${maxDiff(head, e.logits_head)}`);
  assert.ok(maxDiff(logits.data.subarray((T - 1) * V, T * V), e.logits_last) <= 1e-4, 'the last row of logits');
  assert.deepEqual(argmax, e.argmax);
  assert.ok(maxDiff(logsumexp, e.logsumexp) <= 1e-4, 'logsumexp');
  assert.equal(trace.layers.length, e.attentions.length);
  for (const [l, layer] of trace.layers.entries()) {
    assert.deepEqual(layer.weights.shape, [B, e.config.n_head, T, T]);
    assert.ok(maxDiff(layer.weights.data, e.attentions[l]) <= 1e-5, `layer ${l}'s attention weights`);
  }
  const tokens = model.generate([e.ids[0]], { maxNewTokens: 8, temperature: 0 });
  assert.deepEqual(Array.from(tokens.data).slice(-8), e.greedy);
}

describe('loadPretrained gives what GPT-2 computes in PyTorch', TORCH, () => {
  for (const spec of MODELS) {
    test(`${spec.name}: logits, every head's attention weights and a greedy continuation, to 1e-4`, async () => {
      const { model, tokenizer, config } = await attn.loadPretrained(join(dir, spec.name));
      own(model);
      own(tokenizer);
      assert.equal(config.n_layer, spec.n_layer);
      assert.equal(model.config.activation, spec.activation_function ?? 'gelu_new');
      assert.equal(model.config.tieEmbeddings, spec.tie_word_embeddings ?? true);
      checkAgainstTorch(model, expectedOf(spec.name));
      assert.deepEqual(tokenizer.encode('Hello world'), [15496, 995]);
    });
  }

  test("the folder's tokenizer and generation settings come back as texts, null where it has none, from every kind of source", async () => {
    const encode = (text) => new TextEncoder().encode(text);
    const extra = { 'tokenizer_config.json': encode('{"model_max_length": 1024, "chat_template": "{{ m }}"}'),
      'generation_config.json': encode('{"temperature": 0.6}'), 'chat_template.json': encode('{"chat_template": "{{ x }}"}') };
    const bytes = { ...filesOf('f32'), ...extra };
    const folder = mkdtempSync(join(tmpdir(), 'attn-optional-files-'));
    for (const [name, b] of Object.entries(bytes)) writeFileSync(join(folder, name), b);
    const texts = { tokenizerConfig: '{"model_max_length": 1024, "chat_template": "{{ m }}"}', generationConfig: '{"temperature": 0.6}',
      chatTemplateJinja: null, chatTemplateJson: '{"chat_template": "{{ x }}"}' };
    for (const source of [folder, bytes, new Map(Object.entries(bytes).map(([name, b]) => [name, new Blob([b])])),
      Object.entries(bytes).map(([name, b]) => new File([b], name))]) {
      const { model, tokenizer, files } = await attn.loadPretrained(source);
      own(model);
      own(tokenizer);
      assert.deepEqual(files, texts);
    }
    const { model, tokenizer, files } = await attn.loadPretrained(filesOf('f32'));
    own(model);
    own(tokenizer);
    assert.deepEqual(files, { tokenizerConfig: null, generationConfig: null, chatTemplateJinja: null, chatTemplateJson: null });
  });

  test("generation_config.json gives generate()'s defaults as transformers takes them; a bad one is named and leaks nothing", async () => {
    const encode = (text) => new TextEncoder().encode(text);
    const bytes = filesOf('f32');
    const config = JSON.parse(new TextDecoder().decode(bytes['config.json']));
    const defaults = attn.defaultGenerateOptions();
    {
      // No generation_config.json: the library's own sampling, and config.json's eos_token_id (GPT-2's 50256).
      const { model, tokenizer } = await attn.loadPretrained(bytes);
      own(model);
      own(tokenizer);
      assert.deepEqual(model.generationConfig, { ...defaults, eosTokenId: [config.eos_token_id] });
    }
    {
      const generation = { do_sample: true, temperature: 0.7, top_p: 0.9, eos_token_id: [11, 13], bos_token_id: 50256 };
      const { model, tokenizer } = await attn.loadPretrained({ ...bytes, 'generation_config.json': encode(JSON.stringify(generation)) });
      own(model);
      own(tokenizer);
      // top_k, which the file leaves out, is transformers' GenerationConfig default, 50.
      assert.deepEqual(model.generationConfig, { ...defaults, temperature: 0.7, topK: 50, topP: 0.9, eosTokenId: [11, 13] });
      // generate() stops once a row gives a stop token, which it keeps.
      const prompt = tokenizer.encode('The');
      const greedy = Array.from(model.generate([prompt], { maxNewTokens: 12, temperature: 0, eosTokenId: [] }).data).slice(prompt.length);
      const stop = greedy[4];
      const stopped = Array.from(model.generate([prompt], { maxNewTokens: 12, temperature: 0, eosTokenId: stop }).data).slice(prompt.length);
      assert.deepEqual(stopped, greedy.slice(0, greedy.indexOf(stop) + 1));
    }
    const memory = attn.memoryUsage().heapBytes;
    await assert.rejects(attn.loadPretrained({ ...bytes, 'generation_config.json': encode('{"temperature": "hot"}') }),
      { code: 'ERR_ATTN_INVALID_FILE', message: /^loadPretrained: generation_config\.json/ });
    assert.ok(attn.memoryUsage().heapBytes - memory < 1 << 20, 'nothing stayed allocated');
  });

  test('the same model from bytes, Blobs, Files and a Map; progress counts every byte; an abort stops it', async () => {
    const e = expectedOf('f16');
    const bytes = filesOf('f16');
    const sources = [
      bytes,
      new Map(Object.entries(bytes).map(([name, b]) => [name, new Blob([b])])),
      Object.entries(bytes).map(([name, b]) => new File([b], name)),
    ];
    for (const source of sources) {
      const seen = [];
      const { model, tokenizer } = await attn.loadPretrained(source, { onProgress: (p) => seen.push(p) });
      own(model);
      own(tokenizer);
      checkAgainstTorch(model, e);
      // Every file's bytes count, and the first report comes once every file is found: after config.json was
      // read (it is checked first), before any byte of the weights.
      assert.ok(seen.length >= 2);
      assert.deepEqual(seen[0], { loaded: bytes['config.json'].length, total: Object.values(bytes).reduce((n, b) => n + b.length, 0) });
      assert.equal(seen.at(-1).loaded, seen.at(-1).total);
      assert.ok(seen.every((p) => p.total === seen[0].total));
      assert.ok(seen.every((p, i) => i === 0 || p.loaded >= seen[i - 1].loaded));
    }
    // URLs, fetched: a model folder on a server.
    const server = createServer((req, res) => {
      const body = bytes[req.url.slice(1)];
      if (body) res.writeHead(200).end(body);
      else res.writeHead(404).end();
    });
    // No keep-alive timeout: this server and fetch share one event loop, which a forward pass blocks for seconds under
    // load; a timeout that fired after the block, as the next load reused the socket, reset that request.
    server.keepAliveTimeout = 0;
    await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const base = `http://127.0.0.1:${server.address().port}/`;
      const urls = Object.fromEntries(Object.keys(bytes).map((name) => [name, new URL(name, base)]));
      const { model, tokenizer } = await attn.loadPretrained(urls);
      own(model);
      own(tokenizer);
      checkAgainstTorch(model, e);
      // The folder's address alone: tokenizer.json answers 404, so vocab.json and merges.txt are read.
      const fromFolder = await attn.loadPretrained(base);
      own(fromFolder.model);
      own(fromFolder.tokenizer);
      checkAgainstTorch(fromFolder.model, e);
      await assert.rejects(attn.loadPretrained({ ...urls, 'model.safetensors': `${base}missing` }),
        { message: `loadPretrained: could not fetch model.safetensors from ${base}missing: HTTP 404` });
    } finally {
      server.closeAllConnections();
      server.close();
    }
    const controller = new AbortController();
    const memory = attn.memoryUsage().heapBytes;
    await assert.rejects(attn.loadPretrained(bytes, {
      signal: controller.signal,
      onProgress: ({ loaded }) => { if (loaded > 0) controller.abort(new Error('stopped by the reader')); },
    }), { message: 'stopped by the reader' });
    assert.ok(attn.memoryUsage().heapBytes - memory < 1 << 20, 'the aborted model was freed');
  });
});

describe("every head of GPT-2 measured on one text", TORCH, () => {
  test('summarizeHeads and headAttention read the weights the trace holds', async () => {
    const { model, tokenizer } = await attn.loadPretrained(join(dir, 'f32'));
    own(model);
    own(tokenizer);
    const ids = tokenizer.encode('The cat sat on the mat because the cat was tired of');
    const T = ids.length;
    const { trace, logits } = model.forward([ids], { trace: true });
    const s = attn.summarizeHeads(model, ids, { thumbnailSize: 4 });
    const S = Math.ceil(T / Math.ceil(T / 4));
    assert.deepEqual(s.previousToken.shape, [2, 4]);
    assert.deepEqual(s.thumbnails.shape, [2, 4, S, S]);
    for (let l = 0; l < 2; l++) {
      for (let h = 0; h < 4; h++) {
        const w = (i, j) => trace.layers[l].weights.data[(h * T + i) * T + j];
        let prev = 0;
        let first = 0;
        for (let i = 1; i < T; i++) [prev, first] = [prev + w(i, i - 1), first + w(i, 0)];
        assert.ok(Math.abs(s.previousToken.data[l * 4 + h] - prev / (T - 1)) < 1e-6);
        assert.ok(Math.abs(s.firstToken.data[l * 4 + h] - first / (T - 1)) < 1e-6);
        const map = attn.headAttention(model, ids, l, h);
        assert.deepEqual(map.weights.shape, [T, T]);
        assert.equal(map.weights.data[(T - 1) * T + 2], w(T - 1, 2));
        assert.deepEqual(map.queries.shape, [T, 8]);
        assert.equal(map.keys.data[3 * 8 + 5], trace.layers[l].keys.data[(h * T + 3) * 8 + 5]);
        // The map is what explainScore takes: its score is q · k over √d, its weight the map's.
        const e = attn.explainScore(map, T - 1, 2);
        assert.ok(Math.abs(e.weights.data[2] - w(T - 1, 2)) < 1e-6);
      }
    }
    for (let l = 0; l < 2; l++) assert.deepEqual(attn.layerAttention(model, ids, l), trace.layers[l].weights && { data: trace.layers[l].weights.data, shape: [4, T, T] });
    assert.equal(maxDiff(s.nextLogits.data, logits.data.subarray((T - 1) * 50257)), 0);
    assert.throws(() => attn.summarizeHeads(model, [5]), { message: 'summarizeHeads: expected a text of at least 2 tokens, got 1' });
    assert.throws(() => attn.headAttention(model, ids, 0, 4), { message: 'headAttention: expected layer in [0, 2) and head in [0, 4), got layer 0 and head 4' });
  });
});

describe('a model folder that is wrong is an Error naming the file and what was expected', TORCH, () => {
  const withConfig = (edit) => {
    const files = filesOf('f32');
    const config = JSON.parse(new TextDecoder().decode(files['config.json']));
    edit(config);
    return { ...files, 'config.json': new TextEncoder().encode(JSON.stringify(config)) };
  };
  /** The f32 model's file with its header edited (data unchanged). */
  const withHeader = (edit) => {
    const files = filesOf('f32');
    return { ...files, 'model.safetensors': safetensors(files['model.safetensors']).rewrite(edit) };
  };
  const cases = [
    ['a Falcon config', withConfig((c) => { c.model_type = 'falcon'; }),
      'loadPretrained: config.json: model_type is "falcon"; this library reads "gpt2", "llama", "mistral", "qwen2", "qwen3", "gemma3_text" and "gemma3" models'],
    ['a BERT config', withConfig((c) => { delete c.model_type; c.architectures = ['BertModel']; }),
      'loadPretrained: config.json: model_type is null; this library reads "gpt2", "llama", "mistral", "qwen2", "qwen3", "gemma3_text" and "gemma3" models'],
    ['attention scaled by layer', withConfig((c) => { c.scale_attn_by_inverse_layer_idx = true; }),
      "loadPretrained: config.json: scale_attn_by_inverse_layer_idx is true; this library computes GPT-2's attention with scale_attn_by_inverse_layer_idx = false"],
    ['upcast attention', withConfig((c) => { c.reorder_and_upcast_attn = true; }),
      "loadPretrained: config.json: reorder_and_upcast_attn is true; this library computes GPT-2's attention with reorder_and_upcast_attn = false"],
    ['another activation', withConfig((c) => { c.activation_function = 'silu'; }),
      'loadPretrained: config.json: activation_function is "silu"; expected "gelu_new", "gelu_pytorch_tanh", "gelu" or "relu"'],
    ['heads that do not divide the width', withConfig((c) => { c.n_head = 5; }),
      'loadPretrained: config.json: n_embd must be divisible by n_head, got n_embd=32 and n_head=5'],
    ['a shape that disagrees with config.json', withConfig((c) => { c.n_positions = 64; }),
      'loadPretrained: model.safetensors: tensor "transformer.wpe.weight" has shape [32, 32], but config.json means [64, 32]'],
    ['an embedding larger than config.json\'s vocabulary', withConfig((c) => { c.vocab_size = 50000; }),
      'loadPretrained: model.safetensors: tensor "transformer.wte.weight" has shape [50257, 32], but config.json means [50000, 32]'],
    ['an embedding that disagrees with config.json\'s vocabulary', withConfig((c) => { c.vocab_size = 50304; }),
      'loadPretrained: model.safetensors: tensor "transformer.wte.weight" has shape [50257, 32], but config.json means [50304, 32]'],
    ['a model far beyond memory (GPT-2 XL)', withConfig((c) => Object.assign(c, { n_embd: 1600, n_layer: 48, n_head: 25 })),
      'loadPretrained: config.json: a model of about 1555022400 parameters (2.9 GiB in 16 bits) exceeds the library\'s limit of 1.25 GiB of weights (671088640 parameters in 16 bits, 335544320 in float32)'],
    ['an unsupported dtype', withHeader((h) => { Object.assign(h['transformer.ln_f.bias'], { dtype: 'I16', shape: [64] }); }),
      'loadPretrained: model.safetensors: tensor "transformer.ln_f.bias" has dtype "I16", expected F32, F16 or BF16'],
    ['overlapping tensors', withHeader((h) => { h['transformer.ln_f.bias'].data_offsets = h['transformer.ln_f.weight'].data_offsets; }),
      /^Error: loadPretrained: model.safetensors: tensors "transformer.ln_f.(weight|bias)" and "transformer.ln_f.(weight|bias)" overlap$/],
    ['offsets past the end', withHeader((h) => { h['transformer.ln_f.bias'].data_offsets = [1e9, 1e9 + 128]; }),
      /^Error: loadPretrained: model.safetensors: tensor "transformer.ln_f.bias" has data_offsets \[1000000000, 1000000128\] for 128 bytes of F32 in a data section of \d+ bytes \(truncated or damaged\)$/],
    // Entries the model does not read are checked too: an F64 buffer past the end of the file was accepted.
    ['a mask buffer past the end of the file', withHeader((h) => { h['transformer.h.0.attn.bias'] = { dtype: 'F64', shape: [4], data_offsets: [1e9, 1e9 + 32] }; }),
      /^Error: loadPretrained: model.safetensors: tensor "transformer.h.0.attn.bias" has data_offsets \[1000000000, 1000000032\] for 32 bytes of F64 in a data section of \d+ bytes \(truncated or damaged\)$/],
    ['a skipped entry of no safetensors dtype', withHeader((h) => { h['h.1.attn.masked_bias'] = { dtype: 'F128', shape: [], data_offsets: [0, 16] }; }),
      'loadPretrained: model.safetensors: tensor "h.1.attn.masked_bias" has dtype "F128", which is not a safetensors dtype'],
    ['__metadata__ that is not strings', withHeader((h) => { h.__metadata__ = { format: 1 }; }),
      'loadPretrained: model.safetensors: __metadata__.format must be a string, as safetensors defines it'],
    ['a missing tensor', withHeader((h) => { delete h['transformer.h.1.mlp.c_fc.bias']; }),
      'loadPretrained: model.safetensors has no tensor "transformer.h.1.mlp.c_fc.bias" (nor without "transformer.")'],
    ['a tensor of another model', withHeader((h) => {
      const end = Math.max(...Object.values(h).filter((e) => e.data_offsets).map((e) => e.data_offsets[1]));
      h['model.layers.0.self_attn.q_proj.weight'] = { dtype: 'F32', shape: [0], data_offsets: [end, end] };
    }),
      'loadPretrained: model.safetensors: tensor "model.layers.0.self_attn.q_proj.weight" is not a parameter of a GPT-2 model of this config.json'],
    ['not safetensors', { ...filesOf('f32'), 'model.safetensors': new TextEncoder().encode('PK\u0003\u0004 a zip archive, as pytorch_model.bin is') },
      /^Error: loadPretrained: model.safetensors: the header length \d+ exceeds the file's \d+ bytes after the length field \(truncated or not a safetensors file\)$/],
    ['a truncated file', { ...filesOf('f32'), 'model.safetensors': filesOf('f32')['model.safetensors'].subarray(0, 5000) },
      /^Error: loadPretrained: model.safetensors: tensor "[^"]+" has data_offsets \[\d+, \d+\] for \d+ bytes of F32 in a data section of \d+ bytes \(truncated or damaged\)$/],
    ['no tokenizer', (({ 'merges.txt': _, ...rest }) => rest)(filesOf('f32')),
      'loadPretrained: the model folder has no tokenizer: expected tokenizer.json, or vocab.json and merges.txt; it holds config.json, model.safetensors, vocab.json'],
    ['no weights', (({ 'model.safetensors': _, ...rest }) => rest)(filesOf('f32')),
      "loadPretrained: the model folder has no model.safetensors (the weights, or model.safetensors.index.json and its shards); it holds config.json, vocab.json, merges.txt"],
  ];
  for (const [what, files, message] of cases) {
    test(what, async () => {
      const memory = attn.memoryUsage().heapBytes;
      await assert.rejects(attn.loadPretrained(files), typeof message === 'string' ? { message } : message);
      assert.ok(attn.memoryUsage().heapBytes - memory < 1 << 20, 'nothing stayed allocated');
    });
  }

  // [model, tensor, non-finite values as [element, value], the element named]: the file's first one is named,
  // in a tensor kept as stored and in one stored transposed (Conv1D's (in, out)), across the pieces the loader
  // converts at a time (1,024 elements), in float32 and in half precision (values as bits).
  const nonFinite = [
    ['f32', 'transformer.h.0.ln_1.weight', [[3, Infinity]], 3],
    ['f32', 'transformer.h.1.attn.c_attn.weight', [[2900, NaN], [1500, -Infinity]], 1500],
    ['f16', 'h.1.mlp.c_fc.weight', [[600, 0x7c00], [17, 0x7e00]], 17],
  ];
  for (const [name, tensor, values, element] of nonFinite) {
    test(`a non-finite ${name} weight is refused naming ${tensor}, and the module keeps working`, async () => {
      const files = filesOf(name);
      const b = files['model.safetensors'];
      const { header, size } = safetensors(b);
      const [begin] = header[tensor].data_offsets;
      const view = new DataView(b.buffer, b.byteOffset);
      for (const [at, value] of values) {
        if (name === 'f16') view.setUint16(size + begin + 2 * at, value, true);
        else view.setFloat32(size + begin + 4 * at, value, true);
      }
      await assert.rejects(attn.loadPretrained(files),
        { message: `loadPretrained: model.safetensors: tensor "${tensor}" holds a non-finite value at element ${element}` });
      const { model, tokenizer } = await attn.loadPretrained(filesOf(name));
      own(model);
      own(tokenizer);
      checkAgainstTorch(model, expectedOf(name));
    });
  }

  test('a config.json with a byte-order mark loads, 30 times over, keeping nothing (a bare SyntaxError once left each model allocated)', async () => {
    const files = filesOf('f32');
    const marked = { ...files, 'config.json': new Uint8Array([0xef, 0xbb, 0xbf, ...files['config.json']]) };
    const start = attn.memoryUsage().heapBytes;
    for (let k = 0; k < 30; k++) {
      const { model, tokenizer, config } = await attn.loadPretrained(marked);
      assert.equal(config.n_embd, 32);
      model.dispose();
      tokenizer.dispose();
    }
    assert.ok(attn.memoryUsage().heapBytes - start < 1 << 20, 'nothing stayed allocated');
  });

  test('the wrong kind of source is named', async () => {
    await assert.rejects(attn.loadPretrained(42),
      { message: 'loadPretrained: expected the model folder as a path (Node), a FileList or File[], an object or Map from file name to bytes, Blob or URL, or a Hugging Face Hub id, got number 42' });
    await assert.rejects(attn.loadPretrained(join(dir, 'missing')), /^Error: loadPretrained: could not read the model folder .*missing: ENOENT/);
    await assert.rejects(attn.loadPretrained(filesOf('f32'), { onProgress: 1 }), { message: 'loadPretrained: expected onProgress as a function, got number 1' });
  });
});

describe('a nanoGPT checkpoint converted by tools/nanogpt_to_hf.py', TORCH, () => {
  // nanoGPT's ckpt.pt as its train.py saves it, of tools/torch_reference.py's plain-torch nanoGPT (random weights).
  let gpt2Tokenizer; // GPT-2's files under the names nanogpt_to_hf.py reads
  before(() => {
    gpt2Tokenizer = mkdtempSync(join(tmpdir(), 'attn-gpt2-tokenizer-'));
    copyFileSync(GPT2_VOCAB, join(gpt2Tokenizer, 'vocab.json'));
    copyFileSync(GPT2_MERGES, join(gpt2Tokenizer, 'merges.txt'));
  });
  after(() => rmSync(gpt2Tokenizer, { recursive: true, force: true }));
  const convert = (kind) => {
    const out = torchFolder(['tests/fixtures/nanogpt_checkpoint.py', OUT, kind]);
    const [ckpt, tokenizer] = [join(out, 'ckpt.pt'), kind === 'char' ? join(out, 'meta.pkl') : gpt2Tokenizer];
    const folder = torchFolder(['tools/nanogpt_to_hf.py', ckpt, OUT, kind === 'char' ? '--meta' : '--gpt2-tokenizer', tokenizer],
      { inputs: [ckpt, tokenizer] });
    return { folder, expected: JSON.parse(readFileSync(join(out, 'expected.json'), 'utf8')) };
  };

  test('a character model (bias=False, compiled: "_orig_mod." names, meta.pkl) computes what nanoGPT does', async () => {
    const { folder, expected } = convert('char');
    const { model, tokenizer } = await attn.loadPretrained(folder);
    own(model);
    own(tokenizer);
    assert.equal(tokenizer.kind, 'char');
    assert.equal(tokenizer.decode(tokenizer.encode('First Citizen:')), 'First Citizen:');
    assert.equal(model.config.activation, 'gelu');
    const { logits } = model.forward(expected.ids);
    assert.ok(maxDiff(logits.data, expected.logits) <= 1e-4, `logits: ${maxDiff(logits.data, expected.logits)}`);
  });

  // Gemma 3's tokenizer holds one token more than its embedding has rows, and its folders were refused whole. A
  // tokenizer larger than the embedding loads; the model names an id past it when a text gives one.
  test('a tokenizer larger than the model\'s vocabulary was refused: it loads, and an id past the embedding is named', async () => {
    const { folder } = convert('char');
    const files = Object.fromEntries(['config.json', 'model.safetensors'].map((f) => [f, new Uint8Array(readFileSync(join(folder, f)))]));
    files['vocab.json'] = new Uint8Array(readFileSync(GPT2_VOCAB));
    files['merges.txt'] = new Uint8Array(readFileSync(GPT2_MERGES));
    const { model, tokenizer } = await attn.loadPretrained(files);
    own(model);
    own(tokenizer);
    assert.equal(tokenizer.vocabSize, 50257);
    assert.equal(model.config.vocabSize, 27);
    const ids = tokenizer.encode('!');  // GPT-2's id 0, a row of the 27
    assert.deepEqual(ids, [0]);
    assert.equal(model.forward(ids).logits.shape[2], 27);
    assert.throws(() => model.forward(tokenizer.encode('First')), { code: 'ERR_ATTN_INVALID_ARGUMENT', message: 'GPT.forward: expected token ids in [0, 27), got 5962 at index 0' });
  });

  test("a model on GPT-2's tokens (bias=True, vocabulary padded to 50,304) computes what nanoGPT does", async () => {
    const { folder, expected } = convert('gpt2');
    const { model, tokenizer } = await attn.loadPretrained(folder);
    own(model);
    own(tokenizer);
    assert.equal(tokenizer.vocabSize, 50257);
    assert.equal(model.config.vocabSize, 50304);
    const { logits } = model.forward(expected.ids);
    const V = 50304;
    const head = [];
    const argmax = [];
    for (let t = 0; t < expected.ids[0].length; t++) {
      const row = logits.data.subarray(t * V, (t + 1) * V);
      head.push(...row.subarray(0, 64));
      argmax.push(row.indexOf(Math.max(...row)));
    }
    assert.ok(maxDiff(head, expected.logits) <= 1e-4, `logits: ${maxDiff(head, expected.logits)}`);
    assert.deepEqual(argmax, expected.argmax);
  });
});
