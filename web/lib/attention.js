// The JS API of attention itself: PyTorch's random numbers, softmax, attention
// without and with trainable weights, masks, scaled dot-product attention, the
// nn layers and multi-head attention (notebooks 000, 002-004; notebook 001
// §6-7). attentionApi(M) gives them for one loaded module M.
import {
  asTensor, attentionOptions, boolean, dimension, fail, flatten, integer, integers, number, options, shapeFromArgs, shapeOf, traceOption,
} from './arguments.js';
import { Module } from './handles.js';

// A model config's RoPE settings (GPTConfig): rope() and ropeFrequencies() take them by these names and hand them
// to the config reader, which states their defaults and limits once (cpp/src/config.cpp).
const ROPE_SETTINGS = ['ropeTheta', 'ropeScaling', 'ropeFactor', 'ropeLowFreqFactor', 'ropeHighFreqFactor', 'ropeOriginalContext'];
const ropeSettings = (o) => JSON.stringify(Object.fromEntries(ROPE_SETTINGS.filter((k) => o[k] !== undefined).map((k) => [k, o[k]])));

export function attentionApi(M) {
  /**
   * module.load_state_dict(stateDict, strict): `stateDict` maps a parameter's PyTorch name to a TensorLike.
   * The library checks names, shapes and values before it assigns any.
   */
  function loadStateDict(module, fn, stateDict, opts) {
    const { strict = true } = options(opts, ['strict'], fn);
    if (stateDict === null || typeof stateDict !== 'object' || Array.isArray(stateDict) || ArrayBuffer.isView(stateDict)) {
      fail(fn, 'a state dict as an object of tensors by parameter name', stateDict);
    }
    const names = Object.keys(stateDict);
    const tensors = names.map((name) => asTensor(stateDict[name], fn, `stateDict['${name}']`));
    module._handle.loadStateDict(names, tensors, boolean(strict, fn, 'strict'));
  }

  class SelfAttentionV1 extends Module {
    constructor(dIn, dOut) {
      super('SelfAttentionV1', () => M.SelfAttentionV1.create(number(dIn, 'SelfAttentionV1', 'dIn'), number(dOut, 'SelfAttentionV1', 'dOut')));
    }
    forward(x) {
      return this._handle.forward(asTensor(x, 'SelfAttentionV1.forward', 'x'));
    }
    /** torch's load_state_dict: { W_query, W_key, W_value }, each (dIn, dOut). */
    loadStateDict(stateDict, opts) {
      loadStateDict(this, 'SelfAttentionV1.loadStateDict', stateDict, opts);
    }
    get W_query() { return this._handle.W_query(); }
    get W_key() { return this._handle.W_key(); }
    get W_value() { return this._handle.W_value(); }
  }

  class SelfAttentionV2 extends Module {
    constructor(dIn, dOut, qkvBias = false) {
      const fn = 'SelfAttentionV2';
      super(fn, () => M.SelfAttentionV2.create(number(dIn, fn, 'dIn'), number(dOut, fn, 'dOut'), boolean(qkvBias, fn, 'qkvBias')));
    }
    forward(x) {
      return this._handle.forward(asTensor(x, 'SelfAttentionV2.forward', 'x'));
    }
    get W_query() { return this._handle.W_query(); }
    get W_key() { return this._handle.W_key(); }
    get W_value() { return this._handle.W_value(); }
  }

  class SelfAttentionU extends Module {
    constructor(d) {
      super('SelfAttentionU', () => M.SelfAttentionU.create(number(d, 'SelfAttentionU', 'd')));
    }
    forward(x) {
      return this._handle.forward(asTensor(x, 'SelfAttentionU.forward', 'x'));
    }
    get U_query() { return this._handle.U_query(); }
    get U_key() { return this._handle.U_key(); }
    get U_value() { return this._handle.U_value(); }
  }

  class Linear extends Module {
    constructor(inFeatures, outFeatures, bias = true) {
      const fn = 'Linear';
      super(fn, () => M.Linear.create(number(inFeatures, fn, 'inFeatures'), number(outFeatures, fn, 'outFeatures'), boolean(bias, fn, 'bias')));
    }
    forward(x) {
      return this._handle.forward(asTensor(x, 'Linear.forward', 'x'));
    }
    get weight() { return this._handle.weight(); }
    get bias() { return this._handle.bias(); }
  }

  class Embedding extends Module {
    constructor(numEmbeddings, embeddingDim) {
      const fn = 'Embedding';
      super(fn, () => M.Embedding.create(number(numEmbeddings, fn, 'numEmbeddings'), number(embeddingDim, fn, 'embeddingDim')));
    }
    /** ids: an array of token ids (nested for batches) or {data, shape}. */
    forward(ids) {
      const fn = 'Embedding.forward';
      const t = Array.isArray(ids) ? flatten(ids, fn, 'ids') : asTensor(ids, fn, 'ids');
      return this._handle.forward(integers(t.data, fn, 'ids'), t.shape);
    }
    get weight() { return this._handle.weight(); }
  }

  class LayerNorm extends Module {
    constructor(normalizedShape) {
      super('LayerNorm', () => M.LayerNorm.create(number(normalizedShape, 'LayerNorm', 'normalizedShape')));
    }
    forward(x) {
      return this._handle.forward(asTensor(x, 'LayerNorm.forward', 'x'));
    }
    get weight() { return this._handle.weight(); }
    get bias() { return this._handle.bias(); }
  }

  /** A normalisation of M's along the last dimension, as (x, dim = -1) => Tensor. */
  const alongDim = (name) => (x, dim = -1) => {
    const t = asTensor(x, name, 'x');
    return M[name](t, dimension(dim, t, name));
  };

  function scaledDotProductAttention(query, key, value, opts = {}) {
    const fn = 'scaledDotProductAttention';
    const o = attentionOptions(opts, fn);
    return M.scaledDotProductAttention(asTensor(query, fn, 'query'), asTensor(key, fn, 'key'), asTensor(value, fn, 'value'), o);
  }

  /** scaledDotProductAttention's output alone, without forming the (T_q, T_k) matrices: fast, and fits long sequences. */
  function attention(query, key, value, opts = {}) {
    const fn = 'attention';
    const o = attentionOptions(opts, fn);
    return M.attention(asTensor(query, fn, 'query'), asTensor(key, fn, 'key'), asTensor(value, fn, 'value'), o);
  }

  /**
   * Entry (query, key) of one attention map taken apart. `map` holds queries (T_q, d_k), keys
   * (T_k, d_k), values (T_k, d_v) and weights (T_q, T_k): a 2-D trace as it is, or one head of one;
   * and, when the scores were not divided by √d_k, the `divisor` they were (headAttention's maps carry it).
   */
  function explainScore(map, query, key) {
    const fn = 'explainScore';
    const parts = ['queries', 'keys', 'values', 'weights'];
    if (map === null || typeof map !== 'object' || parts.some((p) => map[p] === undefined)) {
      fail(fn, `a map with ${parts.join(', ')}`, map, map !== null && typeof map === 'object' ? 'ERR_ATTN_INVALID_ARGUMENT' : undefined);
    }
    return M.explainScore(asTensor(map.queries, fn, 'queries'), asTensor(map.keys, fn, 'keys'), asTensor(map.values, fn, 'values'),
      asTensor(map.weights, fn, 'weights'), number(query, fn, 'query'), number(key, fn, 'key'),
      map.divisor === undefined ? null : number(map.divisor, fn, 'divisor'));
  }

  class MultiHeadAttention extends Module {
    constructor(dModel, numHeads) {
      const fn = 'MultiHeadAttention';
      super(fn, () => M.MultiHeadAttention.create(number(dModel, fn, 'dModel'), number(numHeads, fn, 'numHeads')));
    }
    /** x (B, T, dModel) or (T, dModel); options as scaledDotProductAttention's, and trace (default true). */
    forward(x, opts = {}) {
      const fn = 'MultiHeadAttention.forward';
      const { trace, rest } = traceOption(opts, fn);
      return this._handle.forward(asTensor(x, fn, 'x'), attentionOptions(rest, fn), trace);
    }
    /** torch's load_state_dict: { 'W_q.weight', 'W_k.weight', 'W_v.weight', 'W_o.weight' }, each (dModel, dModel). */
    loadStateDict(stateDict, opts) {
      loadStateDict(this, 'MultiHeadAttention.loadStateDict', stateDict, opts);
    }
    get W_q() { return this._handle.W_q(); }
    get W_k() { return this._handle.W_k(); }
    get W_v() { return this._handle.W_v(); }
    get W_o() { return this._handle.W_o(); }
  }

  class TorchMultiheadAttention extends Module {
    constructor(embedDim, numHeads, opts = {}) {
      const fn = 'TorchMultiheadAttention';
      const { bias = true } = options(opts, ['bias'], fn);
      super(fn, () => M.TorchMultiheadAttention.create(number(embedDim, fn, 'embedDim'), number(numHeads, fn, 'numHeads'), boolean(bias, fn, 'bias')));
    }
    /** query (B, T_q, E); key and value (B, T_k, E), defaulting to self-attention. */
    forward(query, key = query, value = key, opts = {}) {
      const fn = 'TorchMultiheadAttention.forward';
      const { trace, rest } = traceOption(opts, fn);
      return this._handle.forward(asTensor(query, fn, 'query'), asTensor(key, fn, 'key'), asTensor(value, fn, 'value'),
        attentionOptions(rest, fn), trace);
    }
    get inProjWeight() { return this._handle.inProjWeight(); }
    get inProjBias() { return this._handle.inProjBias(); }
    get outProj() { return this._handle.outProj(); }
  }


  return {
    /** {memoryBytes, heapBytes, stackBytes}: the WASM memory, what malloc holds, the stack in use. */
    memoryUsage: () => M.memoryUsage(),
    manualSeed: (seed) => M.manualSeed(integer(seed, 'manualSeed', 'seed')),
    rand: (...shape) => M.rand(shapeFromArgs(shape, 'rand')),
    randn: (...shape) => M.randn(shapeFromArgs(shape, 'randn')),
    randint: (low, high, shape) =>
      M.randint(number(low, 'randint', 'low'), number(high, 'randint', 'high'), shapeOf(shape, 'randint', 'shape')),
    softmax: alongDim('softmax'),
    softmaxNaive: alongDim('softmaxNaive'),
    normalizeSum: alongDim('normalizeSum'),
    attentionScoresForQuery: (inputs, queryIndex) => {
      const fn = 'attentionScoresForQuery';
      return M.attentionScoresForQuery(asTensor(inputs, fn, 'inputs'), number(queryIndex, fn, 'queryIndex'));
    },
    attentionScoresLoop: (inputs) => M.attentionScoresLoop(asTensor(inputs, 'attentionScoresLoop', 'inputs')),
    attentionScores: (inputs) => M.attentionScores(asTensor(inputs, 'attentionScores', 'inputs')),
    contextVector: (weights, inputs) =>
      M.contextVector(asTensor(weights, 'contextVector', 'weights'), asTensor(inputs, 'contextVector', 'inputs')),
    contextVectors: (weights, inputs) =>
      M.contextVectors(asTensor(weights, 'contextVectors', 'weights'), asTensor(inputs, 'contextVectors', 'inputs')),
    simpleSelfAttention: (inputs) => M.simpleSelfAttention(asTensor(inputs, 'simpleSelfAttention', 'inputs')),
    causalMask: (T) => M.causalMask(number(T, 'causalMask', 'T')),
    paddingMask: (lengths, keyLength) =>
      M.paddingMask(integers(lengths, 'paddingMask', 'lengths'), number(keyLength, 'paddingMask', 'keyLength')),
    scaledDotProductAttention,
    attention,
    explainScore,
    onlineSoftmax: (scores, opts) => {
      const fn = 'onlineSoftmax';
      const { block = 1 } = options(opts, ['block'], fn);
      return M.onlineSoftmax(asTensor(scores, fn, 'scores'), number(block, fn, 'block'));
    },
    sinusoidalPositions: (T, d) => M.sinusoidalPositions(number(T, 'sinusoidalPositions', 'T'), number(d, 'sinusoidalPositions', 'd')),
    ropeFrequencies: (headDim, opts) => {
      const o = options(opts, ROPE_SETTINGS, 'ropeFrequencies');
      return M.ropeFrequencies(number(headDim, 'ropeFrequencies', 'headDim'), ropeSettings(o));
    },
    rope: (x, opts) => {
      const fn = 'rope';
      const o = options(opts, ['positions', ...ROPE_SETTINGS], fn);
      return M.rope(asTensor(x, fn, 'x'), o.positions === undefined ? null : integers(o.positions, fn, 'positions'), ropeSettings(o));
    },
    MultiHeadAttention,
    TorchMultiheadAttention,
    SelfAttentionV1,
    SelfAttentionV2,
    SelfAttentionU,
    Linear,
    Embedding,
    LayerNorm,
  };
}
