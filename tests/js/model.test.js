// Multi-head attention, the tiny language model, its tokenizer and generation,
// through the JS API.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';

import { assertClose, attn, own, useAttention } from './helpers.js';

useAttention();

describe('MultiHeadAttention', () => {
  test('equals the concatenation of single-head attentions through W_o', () => {
    attn.manualSeed(0);
    const mha = own(new attn.MultiHeadAttention(8, 2));
    const x = attn.randn(2, 4, 8);
    const t = mha.forward(x, { causal: true });
    const transpose = (w) => {
      const [r, c] = w.shape;
      const out = new Float32Array(r * c);
      for (let i = 0; i < r; i++) for (let j = 0; j < c; j++) out[j * r + i] = w.data[i * c + j];
      return { data: out, shape: [c, r] };
    };
    // Head h's projection: x (B·T, 8) @ (rows [4h, 4h+4) of W)ᵀ, a matrix product.
    const project = (w, h) => {
      const rows = { data: w.data.slice(h * 32, (h + 1) * 32), shape: [4, 8] };
      return attn.contextVectors({ data: x.data, shape: [8, 8] }, transpose(rows));
    };
    const concat = new Float32Array(2 * 4 * 8);
    for (let h = 0; h < 2; h++) {
      const reshape = (m) => ({ data: m.data, shape: [2, 4, 4] });
      const a = attn.scaledDotProductAttention(reshape(project(mha.W_q, h)), reshape(project(mha.W_k, h)),
        reshape(project(mha.W_v, h)), { causal: true });
      for (let r = 0; r < 8; r++) concat.set(a.output.data.subarray(r * 4, r * 4 + 4), r * 8 + h * 4);
      // per-head weights of the fused kernel equal the single-head ones
      for (let b = 0; b < 2; b++) {
        assertClose({ data: t.weights.data.slice((b * 2 + h) * 16, (b * 2 + h + 1) * 16), shape: [16] },
          { data: a.weights.data.slice(b * 16, (b + 1) * 16), shape: [16] }, 1e-6);
      }
    }
    const expected = attn.contextVectors({ data: concat, shape: [8, 8] }, transpose(mha.W_o));
    assertClose({ data: t.output.data, shape: [8, 8] }, expected, 1e-5);
    assertClose({ data: t.concat.data, shape: [8, 8] }, { data: concat, shape: [8, 8] }, 1e-6);
  });

  test('shapes of notebook 001 and clear errors for misuse', () => {
    const mha = own(new attn.MultiHeadAttention(64, 8));
    const t = mha.forward(attn.randn(2, 5, 64), { mask: attn.causalMask(5), fillValue: -1e9 });
    assert.deepEqual(t.output.shape, [2, 5, 64]);
    assert.deepEqual(t.weights.shape, [2, 8, 5, 5]);
    assert.throws(() => new attn.MultiHeadAttention(10, 3), {
      message: 'MultiHeadAttention: dModel must be divisible by numHeads, got dModel=10 and numHeads=3',
    });
    assert.throws(() => new attn.MultiHeadAttention(8, 0), /MultiHeadAttention: expected numHeads to be a positive integer, got 0/);
    assert.throws(() => mha.forward(attn.randn(2, 5, 63)), /MultiHeadAttention.forward: expected x of shape \[B, T, 64\]/);
  });

  test('TorchMultiheadAttention: zero biases, averaged weights, cross-attention', () => {
    const mha = own(new attn.TorchMultiheadAttention(8, 2));
    assert.ok(mha.inProjBias.data.every((b) => b === 0));
    assert.deepEqual(mha.inProjWeight.shape, [24, 8]);
    const t = mha.forward(attn.randn(1, 3, 8), attn.randn(1, 5, 8));
    assert.deepEqual(t.weights.shape, [1, 2, 3, 5]);
    assert.deepEqual(t.averageWeights.shape, [1, 3, 5]);
  });
});

describe('GPT', () => {
  test('notebook 001 example: logits [3, 10, 1000]', () => {
    const model = own(new attn.GPT(attn.notebook001Config(1000, 64, 4, 256, 128)));
    attn.manualSeed(0);
    const x = attn.randint(0, 1000, [3, 10]);
    const { logits, trace } = model.forward(x);
    assert.deepEqual(logits.shape, [3, 10, 1000]);
    assert.equal(trace, null);
    assert.equal(model.config.norm, 'post');
    assert.equal(model.numParameters({ nonEmbedding: false }), 1000 * 64 + 128 * 64 + 4 * 64 * 64 + 64 * 256 + 256 + 256 * 64 + 64 + 4 * 64 + 64 * 1000 + 1000);
  });

  test('trace of every layer and head; causality', () => {
    const model = own(new attn.GPT({ vocabSize: 13, nEmbd: 16, nHead: 4, nLayer: 3, nInner: 32, blockSize: 16, seed: 5 }));
    const ids = [1, 5, 2, 7, 3, 9, 4];
    const { logits, trace } = model.forward(ids, { trace: true });
    assert.equal(trace.layers.length, 3);
    assert.deepEqual(trace.layers[2].weights.shape, [1, 4, 7, 7]);
    assert.deepEqual(trace.layers[0].queries.shape, [1, 4, 7, 4]);
    assertClose(trace.layers[1].input, trace.layers[0].output, 0);
    // changing token t+1 never changes logits at positions <= t
    for (let t = 0; t < 6; t++) {
      const changed = [...ids];
      changed[t + 1] = (changed[t + 1] + 4) % 13;
      const other = model.forward(changed).logits;
      const n = (t + 1) * 13;
      assert.deepEqual(Array.from(other.data.slice(0, n)), Array.from(logits.data.slice(0, n)), `t=${t}`);
    }
  });

  test('KV-cache generation equals full-recompute generation, token for token', () => {
    for (const norm of ['pre', 'post']) {
      const model = own(new attn.GPT({ vocabSize: 9, nEmbd: 16, nHead: 2, nLayer: 2, nInner: 32, blockSize: 8, norm, seed: 2 }));
      const options = { maxNewTokens: 20, seed: 77, topK: 5, temperature: 0.8 };
      const cached = model.generate([[1, 2, 3], [4, 5, 6]], { ...options, useKvCache: true });
      const full = model.generate([[1, 2, 3], [4, 5, 6]], { ...options, useKvCache: false });
      assert.deepEqual(cached.shape, [2, 23]);
      assert.deepEqual(Array.from(cached.data), Array.from(full.data));
    }
  });

  test('streaming, early stop, same seed same text', () => {
    const text = 'the cat sat on the mat. the cats sat on the mats.';
    const tok = own(new attn.CharTokenizer(text));
    const model = own(new attn.GPT({ vocabSize: tok.vocabSize, nEmbd: 16, nHead: 2, nLayer: 1, nInner: 32, blockSize: 16 }));
    const prompt = tok.encode('the ');
    const streamed = [];
    const all = model.generate(prompt, { maxNewTokens: 12, seed: 3, onToken: (t, step) => streamed.push([t[0], step]) });
    assert.deepEqual(streamed.map(([, s]) => s), [...Array(12).keys()]);
    assert.deepEqual(Array.from(all.data.slice(prompt.length)), streamed.map(([t]) => t));
    const again = model.generate(prompt, { maxNewTokens: 12, seed: 3 });
    assert.equal(tok.decode(again.data), tok.decode(all.data));
    assert.deepEqual([...model.stream(prompt, { maxNewTokens: 12, seed: 3 })].map((t) => t[0]), streamed.map(([t]) => t));
    const stopped = model.generate(prompt, { maxNewTokens: 12, seed: 3, onToken: (_, step) => step < 2 });
    assert.equal(stopped.shape[1], prompt.length + 3);
    const greedy = model.generate(prompt, { maxNewTokens: 5, temperature: 0 });
    assert.deepEqual(greedy, model.generate(prompt, { maxNewTokens: 5, topK: 1, seed: 9 }));
  });

  test('tokenizer round trip and errors', () => {
    const tok = own(new attn.CharTokenizer('héllo wörld'));
    assert.equal(tok.vocabulary, ' dhlorwéö'); // sorted code points: é (U+E9) before ö (U+F6)
    assert.equal(tok.decode(tok.encode('wörld hé')), 'wörld hé');
    assert.throws(() => tok.encode('hx'), {
      message: "CharTokenizer.encode: character 'x' (U+0078) at position 1 is not in the vocabulary of 9 characters",
    });
    assert.throws(() => tok.decode([0, 9]), /CharTokenizer.decode: expected ids in \[0, 9\), got 9 at index 1/);
    assert.throws(() => new attn.CharTokenizer(''), /CharTokenizer: expected a non-empty text/);
    assert.throws(() => new attn.CharTokenizer(3), { message: 'CharTokenizer: expected text as a string, got number 3' });
  });

  test('word tokenizer: words with their leading space, saved and loaded back', () => {
    const tok = own(new attn.WordTokenizer('The cats, which sat on the mat, purr.\nThe cat purrs.\n'));
    assert.equal(tok.kind, 'word');
    assert.deepEqual(tok.encode('The cats purr.').map((i) => tok.pieces[i]), ['The', ' cats', ' purr', '.']);
    assert.equal(tok.decode(tok.encode('The cat, which sat on the mat, purrs.')), 'The cat, which sat on the mat, purrs.');
    assert.throws(() => tok.encode('The dog'), {
      message: "WordTokenizer.encode: word ' dog' at position 1 is not in the vocabulary of 13 words",
    });
    assert.throws(() => tok.decode([13]), /WordTokenizer.decode: expected ids in \[0, 13\), got 13 at index 0/);
    const back = own(attn.Tokenizer.fromVocabulary('word', tok.vocabulary));
    assert.ok(back instanceof attn.WordTokenizer);
    assert.deepEqual(back.pieces, tok.pieces);
    assert.throws(() => attn.Tokenizer.fromVocabulary('word', '["b", "a"]'), /Tokenizer.fromVocabulary: a vocabulary must list distinct words in sorted order/);
    assert.throws(() => attn.Tokenizer.fromVocabulary('bpe', 'ab'), /Tokenizer.fromVocabulary: expected kind 'char' or 'word', got the string "bpe"/);
    // A model saved with its tokenizer; a tokenizer of the wrong size is refused.
    const model = own(new attn.GPT({ vocabSize: tok.vocabSize, nEmbd: 8, nHead: 2, nLayer: 1, nInner: 16, blockSize: 8 }));
    const ck = attn.loadCheckpoint(model.checkpoint(tok));
    own(ck.model);
    own(ck.tokenizer);
    assert.equal(ck.tokenizer.kind, 'word');
    assert.deepEqual(ck.tokenizer.pieces, tok.pieces);
    const chars = own(new attn.CharTokenizer('abc'));
    assert.throws(() => model.checkpoint(chars), { message: 'GPT.checkpoint: expected a tokenizer of vocabSize 13, got one of 3' });
    assert.throws(() => model.checkpoint(tok.vocabulary), /GPT.checkpoint: expected the model's tokenizer \(a CharTokenizer or WordTokenizer\), got the string/);
  });

  test("generate's options and their defaults come from one table (generate.hpp)", () => {
    const defaults = attn.defaultGenerateOptions();
    assert.deepEqual(defaults, { maxNewTokens: 100, temperature: 1, topK: 0, topP: 1, seed: null, useKvCache: true, eosTokenId: [], padTokenId: null });
    const model = own(new attn.GPT({ vocabSize: 5, nEmbd: 8, nHead: 2, nLayer: 1, nInner: 8, blockSize: 4 }));
    assert.deepEqual(model.generationConfig, defaults);  // a model made here has the library's
    // No options: maxNewTokens tokens after the prompt; seed: null is the default generator, as no seed.
    assert.deepEqual(model.generate([1]).shape, [1, 1 + defaults.maxNewTokens]);
    attn.manualSeed(5);
    const a = model.generate([1], { maxNewTokens: 6, seed: null });
    attn.manualSeed(5);
    assert.deepEqual(model.generate([1], { maxNewTokens: 6 }), a);
    // A negative seed wraps to uint64 as torch.manual_seed's does.
    attn.manualSeed(-3);
    assert.deepEqual(model.generate([1], { maxNewTokens: 6, seed: -3 }), model.generate([1], { maxNewTokens: 6 }));
  });

  test('configs give their floats as written (layerNormEpsilon read 0.000009999999747378752)', () => {
    const model = new attn.GPT({ vocabSize: 5, dropout: 0.1, layerNormEpsilon: 1e-6 });
    const { layerNormEpsilon, dropout } = model.config;
    model.dispose();
    assert.deepEqual({ layerNormEpsilon, dropout }, { layerNormEpsilon: 1e-6, dropout: 0.1 });
    const t = attn.defaultTrainConfig();
    assert.deepEqual([t.learningRate, t.minLr, t.beta2, t.eps], [1e-3, 1e-4, 0.99, 1e-8]);
    const plain = new attn.GPT({ vocabSize: 5 });
    assert.equal(JSON.stringify({ eps: plain.config.layerNormEpsilon }), '{"eps":0.00001}');
    plain.dispose();
  });

  test('bad configs, ids and options raise clear errors', () => {
    assert.throws(() => new attn.GPT({ nEmbd: 10, nHead: 4 }), {
      message: 'GPT: nEmbd must be divisible by nHead, got nEmbd=10 and nHead=4',
    });
    assert.throws(() => new attn.GPT({ nHead: 0 }), { message: 'GPT: expected nHead to be an integer in [1, 4096], got 0' });
    assert.throws(() => new attn.GPT({ norm: 'middle' }), { message: 'GPT: expected norm to be one of post|pre, got "middle"' });
    assert.throws(() => new attn.GPT({ nLayers: 2 }), { message: 'GPT: unknown config field "nLayers"; did you mean "nLayer"?' });
    assert.throws(() => new attn.GPT({ vocabSize: 1 << 18, nEmbd: 4096, nHead: 1 }), {
      message: "GPT: a model of about 2286157824 parameters (4.3 GiB in 16 bits) exceeds the library's limit of 1.25 GiB of " +
        'weights (671088640 parameters in 16 bits, 335544320 in float32)' });
    // Within the limit in 16 bits, beyond it in float32, which a model made here is kept in: refused before allocating.
    assert.throws(() => new attn.GPT({ vocabSize: 50257, nEmbd: 1024, nLayer: 28, nHead: 16, nInner: 4096 }), {
      message: "GPT: a model of 455688192 parameters takes 1.7 GiB as stored, more than the library's limit of 1.25 GiB of " +
        'weights (335544320 parameters in float32, twice as many kept in 16 bits, as a bf16 or f16 file holds them)' });
    assert.throws(() => new attn.GPT({ vocabSize: 1e7 }), { message: 'GPT: expected vocabSize to be an integer in [1, 262144], got 10000000' });
    const model = own(new attn.GPT({ vocabSize: 5, nEmbd: 8, nHead: 2, nLayer: 1, nInner: 8, blockSize: 4 }));
    assert.throws(() => model.forward([1, 2, 5]), { message: 'GPT.forward: expected token ids in [0, 5), got 5 at index 2' });
    assert.throws(() => model.forward([1, 2, 3, 4, 0]), { message: 'GPT.forward: a context of 5 tokens exceeds the block size 4' });
    assert.throws(() => model.generate([1], { temperature: -1 }), /generate: expected temperature to be a number >= 0, got -1/);
    assert.throws(() => model.generate([1], { maxTokens: 3 }), { message: 'generate: unknown option "maxTokens"; did you mean "maxNewTokens"?' });
    assert.throws(() => model.stream([1], { topK: 1.5 }), { message: 'stream: expected topK to be an integer >= 0, got 1.5' });
    assert.throws(() => model.generate([1], { seed: 0.5 }), {
      message: 'generate: expected seed to be an integer (or null), got 0.5' });
    assert.throws(() => model.generate([7]), /generate: expected token ids in \[0, 5\), got 7/);
    const it = model.stream([1], { maxNewTokens: 5 });
    it.next();
    model.dispose();
    assert.throws(() => it.next(), { message: 'GPT: used after dispose()' });
  });
});

describe('stop tokens and a model\'s generation defaults', () => {
  const tiny = () => own(new attn.GPT({ vocabSize: 9, nEmbd: 16, nHead: 2, nLayer: 2, nInner: 32, blockSize: 8, seed: 3 }));
  const PROMPT = [[1, 2], [3, 7], [5, 0]];
  const rowsOf = (t) => Array.from({ length: t.shape[0] }, (_, b) => Array.from(t.data.slice(b * t.shape[1], (b + 1) * t.shape[1])));

  // As transformers' _sample: a row keeps its stop token and is padded after it while the others go on, and the
  // generation ends when every row has stopped. Rows never see each other and every row is drawn each step, so the
  // stopped run is the free run cut at each row's first stop token.
  test('a stop token finishes its row, which is padded until every row has stopped', () => {
    const model = tiny();
    for (const options of [{ temperature: 0 }, { temperature: 0.9, seed: 11 }, { topP: 0.8, topK: 6, seed: 4 }]) {
      const N = 16;
      const free = rowsOf(model.generate(PROMPT, { ...options, maxNewTokens: N })).map((row) => row.slice(2));
      const first = (token, b) => { const i = free[b].indexOf(token); return i < 0 ? N : i; };
      const eos = [...Array(9).keys()].find((t) => first(t, 0) < N - 2 && first(t, 0) < first(t, 1) && first(t, 0) < first(t, 2));
      assert.ok(eos !== undefined, `a token ends row 0 first (${JSON.stringify(free)})`);
      for (const [eosTokenId, padTokenId] of [[eos, undefined], [[eos, (eos + 1) % 9], 8]]) {
        const stops = [eosTokenId].flat();
        const stopAt = free.map((_, b) => Math.min(...stops.map((t) => first(t, b))));
        const steps = Math.min(N, Math.max(...stopAt) + 1);
        const pad = padTokenId ?? stops[0];
        const expected = free.map((row, b) => row.slice(0, steps).map((t, i) => (i <= stopAt[b] ? t : pad)));
        const out = model.generate(PROMPT, { ...options, maxNewTokens: N, eosTokenId, padTokenId });
        assert.deepEqual(out.shape, [3, 2 + steps]);
        assert.deepEqual(rowsOf(out).map((row) => row.slice(2)), expected, JSON.stringify({ options, eosTokenId }));
        // The stream ends at the same step, and so does onToken's count.
        const streamed = [...model.stream(PROMPT, { ...options, maxNewTokens: N, eosTokenId, padTokenId })];
        assert.deepEqual(streamed, expected[0].map((_, i) => expected.map((row) => row[i])));
      }
    }
  });

  test('topP goes through generate: a tiny topP samples the argmax, as greedy does', () => {
    const model = tiny();
    assert.deepEqual(model.generate(PROMPT, { maxNewTokens: 10, topP: 1e-9, seed: 5 }), model.generate(PROMPT, { maxNewTokens: 10, temperature: 0 }));
    assert.notDeepEqual(model.generate(PROMPT, { maxNewTokens: 10, topP: 0.9, temperature: 2, seed: 5 }),
      model.generate(PROMPT, { maxNewTokens: 10, temperature: 0 }));
    assert.throws(() => model.generate(PROMPT, { topP: 0 }), { code: 'ERR_ATTN_INVALID_ARGUMENT', message: 'generate: expected topP to be a number in (0, 1], got 0' });
    assert.throws(() => model.stream(PROMPT, { eosTokenId: [1, 'x'] }), { code: 'ERR_ATTN_INVALID_TYPE', message: 'stream: expected a list of numbers, got [1, "x"]' });
    assert.throws(() => model.generate(PROMPT, { eosTokenId: [[1]] }), { code: 'ERR_ATTN_INVALID_TYPE' });
    assert.throws(() => model.generate(PROMPT, { eosTokenId: -1 }), { message: 'generate: expected eosTokenId to be an integer >= 0 or a list of them, got -1' });
    assert.throws(() => model.generate(PROMPT, { eosTokenId: 9 }), { message: "generate: expected eos_token_id in [0, 9), the model's vocabulary, got 9" });
    assert.throws(() => model.generate(PROMPT, { eosTokenId: 1, padTokenId: 12 }), { message: /generate: expected pad_token_id in \[0, 9\)/ });
  });

  test('a model holds the defaults of its generation_config.json; options given override them', () => {
    const model = tiny();
    const free = rowsOf(model.generate(PROMPT, { maxNewTokens: 12, temperature: 0.6, topK: 5, topP: 0.95, seed: 2 }));
    const eos = free[1][4];  // a token row 1 makes
    // Qwen3's file, with this model's tokens: sampling, its stop tokens and pad.
    model._setGenerationConfig(JSON.stringify({ bos_token_id: 0, do_sample: true, eos_token_id: [eos, 8], pad_token_id: 0,
      temperature: 0.6, top_k: 5, top_p: 0.95, transformers_version: '4.51.0' }), '{"eos_token_id": 1}');
    const config = model.generationConfig;
    assert.deepEqual(config, { maxNewTokens: 100, temperature: 0.6, topK: 5, topP: 0.95, seed: null, useKvCache: true, eosTokenId: [eos, 8], padTokenId: 0 });
    config.eosTokenId.push(3);  // a copy: the model's stay
    assert.deepEqual(model.generationConfig.eosTokenId, [eos, 8]);
    const explicit = { maxNewTokens: 12, temperature: 0.6, topK: 5, topP: 0.95, seed: 2, eosTokenId: [eos, 8], padTokenId: 0 };
    assert.deepEqual(model.generate(PROMPT, { maxNewTokens: 12, seed: 2 }), model.generate(PROMPT, explicit));
    assert.deepEqual([...model.stream(PROMPT, { maxNewTokens: 12, seed: 2, topP: undefined })], [...model.stream(PROMPT, explicit)]);
    // Given options win: no stop tokens, greedy.
    assert.deepEqual(model.generate(PROMPT, { maxNewTokens: 12, eosTokenId: [], temperature: 0 }),
      model.generate(PROMPT, { ...explicit, eosTokenId: [], temperature: 0 }));
    assert.equal(model.generate(PROMPT, { maxNewTokens: 12, seed: 2, eosTokenId: [] }).shape[1], 14);
    // GPT-2's file: no do_sample, so greedy.
    model._setGenerationConfig('{"bos_token_id": 0, "eos_token_id": 8}', '{}');
    assert.deepEqual(model.generationConfig, { ...attn.defaultGenerateOptions(), temperature: 0, topK: 50, eosTokenId: [8] });
    assert.deepEqual(model.generate(PROMPT, { maxNewTokens: 6 }), model.generate(PROMPT, { maxNewTokens: 6, temperature: 0, eosTokenId: 8 }));
    // No generation_config.json: config.json's stop tokens, the library's sampling.
    model._setGenerationConfig(null, '{"eos_token_id": [2, 3], "text_config": {"eos_token_id": 1}}');
    assert.deepEqual(model.generationConfig, { ...attn.defaultGenerateOptions(), eosTokenId: [2, 3] });
    // A bad file is refused by name and leaves the defaults as they were.
    assert.throws(() => model._setGenerationConfig('{"do_sample": true, "temperature": "hot"}', '{}'), {
      code: 'ERR_ATTN_INVALID_FILE', message: 'loadPretrained: generation_config.json\'s temperature: expected a number, got "hot"' });
    assert.throws(() => model._setGenerationConfig('[]', '{}'), { code: 'ERR_ATTN_INVALID_FILE', message: 'loadPretrained: generation_config.json is not a JSON object' });
    assert.throws(() => model._setGenerationConfig(null, '{"eos_token_id": "</s>"}'), { code: 'ERR_ATTN_INVALID_FILE', message: /config.json's eos_token_id/ });
    assert.throws(() => model._setGenerationConfig(7, '{}'), { code: 'ERR_ATTN_INVALID_TYPE' });
    assert.deepEqual(model.generationConfig.eosTokenId, [2, 3]);
  });
});
