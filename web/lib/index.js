// The JS API: a thin, idiomatic layer over the WASM build of the C++ library
// (cpp/bindings/wasm.cpp). Names mirror the notebooks so that each notebook
// line has a JS line:
//
//   torch.manual_seed(123)                    attn.manualSeed(123)
//   sa_v1 = SelfAttentionV1(d_in, d_out)      const sa = new attn.SelfAttentionV1(3, 2)
//   sa_v1(inputs)                             sa.forward(inputs).context
//
// Tensors are plain objects { data: Float32Array, shape: number[] }; every
// array handed back is a JS-owned copy. Objects that own WASM memory have
// dispose() and [Symbol.dispose].
import createAttentionModule from './wasm/attention_wasm.mjs';

const WASM_URL = new URL('./wasm/attention_wasm.wasm', import.meta.url);
// The pretrained model the package ships: tools/train-default-model.sh.
const DEFAULT_MODEL_URL = new URL('./models/agreement.safetensors', import.meta.url);
const disposeSymbol = Symbol.dispose ?? Symbol.for('Symbol.dispose');

/** The bytes of a file shipped next to this module (read in Node, fetched in a browser). */
async function loadBytes(url, fn) {
  if (url.protocol === 'file:') {
    // Node: Emscripten 3.1.6's loader cannot fetch a file: URL (TOOLCHAIN.md),
    // so the bytes are read here. The specifier is a variable so that browser
    // bundlers leave the import alone.
    const fsModule = 'node:fs/promises';
    const { readFile } = await import(/* @vite-ignore */ fsModule);
    return new Uint8Array(await readFile(url));
  }
  const response = await fetch(url);
  if (!response.ok) throw new Error(`${fn}: could not load ${url}: HTTP ${response.status}`);
  return new Uint8Array(await response.arrayBuffer());
}

// ---- tensors (pure JS) -------------------------------------------------------

function describe(value) {
  if (value === null) return 'null';
  if (Array.isArray(value)) return `an array of length ${value.length}`;
  if (ArrayBuffer.isView(value)) return `a ${value.constructor.name} of length ${value.length}`;
  if (typeof value === 'object') return `an object with keys [${Object.keys(value).join(', ')}]`;
  if (typeof value === 'string') return `the string ${JSON.stringify(value)}`;
  return `${typeof value} ${String(value)}`;
}

function flatten(nested, fn, name) {
  const shape = [];
  for (let level = nested; Array.isArray(level); level = level[0]) shape.push(level.length);
  const data = new Float32Array(shape.reduce((a, b) => a * b, 1));
  let offset = 0;
  const walk = (node, depth) => {
    if (depth === shape.length) {
      if (typeof node !== 'number') {
        throw new Error(`${fn}: expected ${name} to hold numbers, got ${describe(node)}`);
      }
      data[offset++] = node;
      return;
    }
    if (!Array.isArray(node) || node.length !== shape[depth]) {
      throw new Error(
        `${fn}: expected ${name} to be a rectangular nested array of shape [${shape.join(', ')}], ` +
          `got ${describe(node)} at depth ${depth}`,
      );
    }
    for (const child of node) walk(child, depth + 1);
  };
  walk(nested, 0);
  return { data, shape };
}

/** Normalises what a user may pass as a tensor into {data, shape}. */
function asTensor(value, fn, name) {
  if (Array.isArray(value)) return flatten(value, fn, name);
  if (typeof value === 'number') return { data: new Float32Array([value]), shape: [] };
  if (value && typeof value === 'object' && 'data' in value && 'shape' in value) {
    const { data, shape } = value;
    if (!Array.isArray(shape) || !shape.every((s) => Number.isInteger(s) && s >= 0)) {
      throw new Error(`${fn}: expected ${name}.shape to be an array of non-negative integers, got ${describe(shape)}`);
    }
    if (!(ArrayBuffer.isView(data) || Array.isArray(data))) {
      throw new Error(`${fn}: expected ${name}.data to be a Float32Array or an array, got ${describe(data)}`);
    }
    return { data, shape };
  }
  throw new Error(`${fn}: expected ${name} as a tensor {data, shape} or a nested array of numbers, got ${describe(value)}`);
}

function shapeFromArgs(args, fn) {
  const shape = args.length === 1 && Array.isArray(args[0]) ? args[0] : args;
  if (!shape.every((s) => Number.isInteger(s) && s >= 0)) {
    throw new Error(`${fn}: expected sizes as non-negative integers, got [${shape.map(String).join(', ')}]`);
  }
  return [...shape];
}

/**
 * torch.tensor: a tensor from nested arrays, or from flat data and a shape.
 * @returns {{data: Float32Array, shape: number[]}}
 */
export function tensor(data, shape) {
  if (shape === undefined) {
    const t = asTensor(data, 'tensor', 'data');
    return { data: Float32Array.from(t.data), shape: [...t.shape] };
  }
  const t = asTensor({ data, shape }, 'tensor', 'data');
  const n = t.shape.reduce((a, b) => a * b, 1);
  if (t.data.length !== n) {
    throw new Error(`tensor: shape [${t.shape.join(', ')}] needs ${n} values, got ${t.data.length}`);
  }
  return { data: Float32Array.from(t.data), shape: [...t.shape] };
}

function lastDimOnly(x, dim, fn) {
  if (dim !== -1 && dim !== x.shape.length - 1) {
    throw new Error(`${fn}: only the last dimension (dim=-1) is supported, got dim=${dim}`);
  }
}

const ATTENTION_OPTIONS = ['causal', 'keyLengths', 'mask', 'fillValue', 'scale'];
const GENERATE_OPTIONS = ['maxNewTokens', 'temperature', 'topK', 'seed', 'useKvCache'];

/** Rejects anything but a plain object with known keys (a typo is an error, not a silent default). */
function checkKeys(options, allowed, fn, what) {
  if (options === null || typeof options !== 'object' || Array.isArray(options)) {
    throw new Error(`${fn}: expected ${what} as an object, got ${describe(options)}`);
  }
  for (const k of Object.keys(options)) {
    if (!allowed.includes(k)) {
      throw new Error(`${fn}: unknown ${what === 'config' ? 'config field' : 'option'} "${k}"; expected one of ${allowed.join(', ')}`);
    }
  }
}

function attentionOptions(options, fn) {
  checkKeys(options, ATTENTION_OPTIONS, fn, 'options');
  const { causal = false, keyLengths = null, mask = null, fillValue = -Infinity, scale = null } = options;
  if (typeof fillValue !== 'number' || (scale !== null && typeof scale !== 'number')) {
    throw new Error(`${fn}: expected fillValue and scale as numbers, got ${describe(fillValue)} and ${describe(scale)}`);
  }
  if (keyLengths !== null && !(Array.isArray(keyLengths) || ArrayBuffer.isView(keyLengths))) {
    throw new Error(`${fn}: expected keyLengths as an array of integers, got ${describe(keyLengths)}`);
  }
  return { causal: Boolean(causal), keyLengths, mask: mask === null ? null : asTensor(mask, fn, 'mask'), fillValue, scale };
}

/** Token ids as (B, T): nested arrays, a flat array (B = 1) or {data, shape}. */
function idsArg(ids, fn) {
  if (Array.isArray(ids) && ids.length > 0 && Array.isArray(ids[0])) {
    const t = flatten(ids, fn, 'ids');
    return { data: t.data, batch: t.shape[0] };
  }
  if (Array.isArray(ids) || ArrayBuffer.isView(ids)) return { data: ids, batch: 1 };
  if (ids && typeof ids === 'object' && 'data' in ids && Array.isArray(ids.shape) && ids.shape.length <= 2) {
    return { data: ids.data, batch: ids.shape.length === 2 ? ids.shape[0] : 1 };
  }
  throw new Error(`${fn}: expected ids as an array of token ids (nested for a batch) or {data, shape}, got ${describe(ids)}`);
}

// ---- the API object ----------------------------------------------------------

/** Wraps an embind object that C++ created, so a JS class can own it. */
class AdoptedHandle {
  constructor(handle) {
    this.handle = handle;
  }
}

function makeApi(M) {
  // Frees handles the user forgot to dispose (a safety net, not a substitute).
  const registry = new FinalizationRegistry((handle) => handle.delete());

  class Module {
    #handle;
    #name;
    constructor(name, make) {
      this.#name = name;
      this.#handle = make();
      registry.register(this, this.#handle, this);
    }
    /** The embind object; throws after dispose(). */
    get _handle() {
      if (!this.#handle) throw new Error(`${this.#name}: used after dispose()`);
      return this.#handle;
    }
    /** Frees the WASM memory this object owns. Safe to call twice. */
    dispose() {
      if (!this.#handle) return;
      registry.unregister(this);
      this.#handle.delete();
      this.#handle = null;
    }
    [disposeSymbol]() {
      this.dispose();
    }
  }

  class SelfAttentionV1 extends Module {
    constructor(dIn, dOut) {
      super('SelfAttentionV1', () => new M.SelfAttentionV1(dIn, dOut));
    }
    forward(x) {
      return this._handle.forward(asTensor(x, 'SelfAttentionV1.forward', 'x'));
    }
    get W_query() { return this._handle.W_query(); }
    get W_key() { return this._handle.W_key(); }
    get W_value() { return this._handle.W_value(); }
  }

  class SelfAttentionV2 extends Module {
    constructor(dIn, dOut, qkvBias = false) {
      super('SelfAttentionV2', () => new M.SelfAttentionV2(dIn, dOut, Boolean(qkvBias)));
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
      super('SelfAttentionU', () => new M.SelfAttentionU(d));
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
      super('Linear', () => new M.Linear(inFeatures, outFeatures, Boolean(bias)));
    }
    forward(x) {
      return this._handle.forward(asTensor(x, 'Linear.forward', 'x'));
    }
    get weight() { return this._handle.weight(); }
    get bias() { return this._handle.bias(); }
  }

  class Embedding extends Module {
    constructor(numEmbeddings, embeddingDim) {
      super('Embedding', () => new M.Embedding(numEmbeddings, embeddingDim));
    }
    /** ids: an array of token ids (nested for batches) or {data, shape}. */
    forward(ids) {
      const t = Array.isArray(ids) ? flatten(ids, 'Embedding.forward', 'ids') : asTensor(ids, 'Embedding.forward', 'ids');
      return this._handle.forward(t.data, t.shape);
    }
    get weight() { return this._handle.weight(); }
  }

  class LayerNorm extends Module {
    constructor(normalizedShape) {
      super('LayerNorm', () => new M.LayerNorm(normalizedShape));
    }
    forward(x) {
      return this._handle.forward(asTensor(x, 'LayerNorm.forward', 'x'));
    }
    get weight() { return this._handle.weight(); }
    get bias() { return this._handle.bias(); }
  }

  /** A normalisation of M's along the last dimension, as (x, dim = -1) => Tensor. */
  const alongLastDim = (name) => (x, dim = -1) => {
    const t = asTensor(x, name, 'x');
    lastDimOnly(t, dim, name);
    return M[name](t);
  };

  function scaledDotProductAttention(query, key, value, options = {}) {
    const fn = 'scaledDotProductAttention';
    const opts = attentionOptions(options, fn);
    return M.scaledDotProductAttention(asTensor(query, fn, 'query'), asTensor(key, fn, 'key'), asTensor(value, fn, 'value'), opts);
  }

  class MultiHeadAttention extends Module {
    constructor(dModel, numHeads) {
      super('MultiHeadAttention', () => new M.MultiHeadAttention(dModel, numHeads));
    }
    /** x (B, T, dModel) or (T, dModel); options as scaledDotProductAttention's. */
    forward(x, options = {}) {
      const fn = 'MultiHeadAttention.forward';
      return this._handle.forward(asTensor(x, fn, 'x'), attentionOptions(options, fn));
    }
    get W_q() { return this._handle.W_q(); }
    get W_k() { return this._handle.W_k(); }
    get W_v() { return this._handle.W_v(); }
    get W_o() { return this._handle.W_o(); }
  }

  class TorchMultiheadAttention extends Module {
    constructor(embedDim, numHeads, { bias = true } = {}) {
      super('TorchMultiheadAttention', () => new M.TorchMultiheadAttention(embedDim, numHeads, Boolean(bias)));
    }
    /** query (B, T_q, E); key and value (B, T_k, E), defaulting to self-attention. */
    forward(query, key = query, value = key, options = {}) {
      const fn = 'TorchMultiheadAttention.forward';
      return this._handle.forward(asTensor(query, fn, 'query'), asTensor(key, fn, 'key'), asTensor(value, fn, 'value'),
        attentionOptions(options, fn));
    }
    get inProjWeight() { return this._handle.inProjWeight(); }
    get inProjBias() { return this._handle.inProjBias(); }
    get outProj() { return this._handle.outProj(); }
  }

  const DEFAULT_GPT_CONFIG = M.defaultGPTConfig();

  function gptConfig(config, fn) {
    checkKeys(config, Object.keys(DEFAULT_GPT_CONFIG), fn, 'config');
    return { ...DEFAULT_GPT_CONFIG, ...config };
  }

  class GPT extends Module {
    /** A config object (see GPTConfig); missing fields take the defaults. */
    constructor(config = {}) {
      const handle = config instanceof AdoptedHandle ? config.handle : null;
      const full = handle ? null : gptConfig(config, 'GPT');
      super('GPT', () => handle ?? new M.GPT(full));
    }
    /** A safetensors checkpoint of the model (no optimizer state), for loadCheckpoint or Python. */
    checkpoint(tokenizer) {
      if (!(tokenizer instanceof Tokenizer)) {
        throw new Error(`GPT.checkpoint: expected the model's tokenizer (a CharTokenizer or WordTokenizer), got ${describe(tokenizer)}`);
      }
      return this._handle.checkpoint(tokenizer._handle);
    }
    get config() { return this._handle.config(); }
    /** nanoGPT's count: tied tensors once; nonEmbedding leaves out the position embedding. */
    numParameters({ nonEmbedding = true } = {}) {
      return this._handle.numParameters(Boolean(nonEmbedding));
    }
    parameterNames() { return this._handle.parameterNames(); }
    parameter(name) { return this._handle.parameter(String(name)); }
    /** ids (B, T) nested, (T) flat, or {data, shape} -> {logits (B, T, V), trace | null}. */
    forward(ids, { trace = false, ...rest } = {}) {
      checkKeys(rest, [], 'GPT.forward', 'options');
      const t = idsArg(ids, 'GPT.forward');
      return this._handle.forward(t.data, t.batch, Boolean(trace));
    }
    /**
     * Generates maxNewTokens after the prompt; onToken(tokens, step) sees each
     * step's tokens (one per batch row) and may return false to stop.
     * Returns every token, {data: Int32Array, shape: [B, T]}.
     */
    generate(prompt, options = {}) {
      const { onToken, ...rest } = options ?? {};
      if (onToken !== undefined && typeof onToken !== 'function') {
        throw new Error(`generate: expected onToken to be a function, got ${describe(onToken)}`);
      }
      const session = this.#session(prompt, rest);
      try {
        for (let step = 0; !session.done(); step++) {
          const tokens = Array.from(session.next().data);
          if (onToken && onToken(tokens, step) === false) break;
        }
        return session.tokens();
      } finally {
        session.delete();
      }
    }
    /** The same generation as an iterator: yields each step's tokens (one per batch row). */
    *stream(prompt, options = {}) {
      const session = this.#session(prompt, options ?? {});
      try {
        while (!session.done()) {
          this._handle; // throws if the model was disposed meanwhile
          yield Array.from(session.next().data);
        }
      } finally {
        session.delete();
      }
    }
    #session(prompt, options) {
      checkKeys(options, GENERATE_OPTIONS, 'generate', 'options');
      const { maxNewTokens = 100, temperature = 1, topK = 0, seed = null, useKvCache = true } = options;
      for (const [name, v] of Object.entries({ maxNewTokens, temperature, topK })) {
        if (typeof v !== 'number') throw new Error(`generate: expected ${name} as a number, got ${describe(v)}`);
      }
      if (seed !== null && typeof seed !== 'number') throw new Error(`generate: expected seed as a number, got ${describe(seed)}`);
      const t = idsArg(prompt, 'generate');
      return new M.GenerationSession(this._handle, t.data, t.batch, { maxNewTokens, temperature, topK, seed, useKvCache: Boolean(useKvCache) });
    }
  }

  const DEFAULT_TRAIN_CONFIG = M.defaultTrainConfig();

  /**
   * Training as nanoGPT's train.py does it, a step at a time. The model's
   * vocabulary is the text's characters, or its words with
   * training.tokenizer = 'word' (vocabSize is set from the text).
   */
  class Trainer extends Module {
    constructor({ model = {}, training = {}, text, ...rest } = {}) {
      checkKeys(rest, [], 'Trainer', 'options');
      if (typeof text !== 'string') throw new Error(`Trainer: expected text as a string, got ${describe(text)}`);
      const handle = model instanceof AdoptedHandle ? model.handle : null;
      checkKeys(training, Object.keys(DEFAULT_TRAIN_CONFIG), 'Trainer', 'config');
      if ('tokenizer' in training && typeof training.tokenizer !== 'string') {
        throw new Error(`Trainer: expected training.tokenizer as 'char' or 'word', got ${describe(training.tokenizer)}`);
      }
      const modelConfig = handle ? null : gptConfig(model, 'Trainer');
      super('Trainer', () => handle ?? new M.Trainer(modelConfig, { ...DEFAULT_TRAIN_CONFIG, ...training }, text));
    }
    /** Resumes from a checkpoint written by trainer.checkpoint(), on the given text. */
    static resume(bytes, text) {
      if (typeof text !== 'string') throw new Error(`Trainer.resume: expected text as a string, got ${describe(text)}`);
      return new Trainer({ model: new AdoptedHandle(M.resumeTrainer(bytes, text)), text });
    }
    /** One optimisation step: {iter, lr, loss, gradNorm}. */
    step() { return this._handle.step(); }
    /** Mean loss over evalIters random batches of each split: {train, val}. */
    evaluate(evalIters = this.config.evalIters) { return this._handle.evaluate(evalIters); }
    get iter() { return this._handle.iter(); }
    get vocabulary() { return this._handle.vocabulary(); }
    get config() { return this._handle.config(); }
    get modelConfig() { return this._handle.modelConfig(); }
    /** A copy of the model as it is now (a GPT you dispose). */
    snapshot() { return new GPT(new AdoptedHandle(this._handle.snapshot())); }
    /** Model, vocabulary, optimizer state and progress as safetensors bytes. */
    checkpoint() { return this._handle.checkpoint(); }
  }

  /** Reads a checkpoint (safetensors bytes): {model: GPT, tokenizer, vocabulary, iter}. */
  function loadCheckpoint(bytes) {
    if (!(bytes instanceof Uint8Array)) throw new Error(`loadCheckpoint: expected a Uint8Array, got ${describe(bytes)}`);
    const info = M.checkpointInfo(bytes);
    const model = new GPT(new AdoptedHandle(M.gptFromCheckpoint(bytes)));
    const tokenizer = Tokenizer.fromVocabulary(info.tokenizer, info.vocabulary);
    return { model, tokenizer, vocabulary: info.vocabulary, iter: info.iter };
  }

  const TOKENIZER_NAMES = { char: 'CharTokenizer', word: 'WordTokenizer' };

  /**
   * Ids are indices into the sorted set of a text's pieces (nanoGPT's
   * prepare.py): its characters (CharTokenizer) or its words with the space
   * before each attached (WordTokenizer: "The", " cats", ",", " purr", ".").
   */
  class Tokenizer extends Module {
    #name;
    #pieces = null; // the vocabulary never changes: copied out of WASM once
    constructor(kind, text) {
      const name = TOKENIZER_NAMES[kind];
      const handle = text instanceof AdoptedHandle ? text.handle : null;
      if (!handle && typeof text !== 'string') throw new Error(`${name}: expected a string, got ${describe(text)}`);
      super(name, () => handle ?? new M.Tokenizer(kind, text));
      this.#name = name;
    }
    /** A tokenizer from a saved vocabulary (a checkpoint's, or tokenizer.vocabulary). */
    static fromVocabulary(kind, vocabulary) {
      if (!(kind in TOKENIZER_NAMES)) throw new Error(`Tokenizer.fromVocabulary: expected kind 'char' or 'word', got ${describe(kind)}`);
      if (typeof vocabulary !== 'string') {
        throw new Error(`Tokenizer.fromVocabulary: expected the vocabulary as a string, got ${describe(vocabulary)}`);
      }
      const handle = new AdoptedHandle(M.tokenizerFromVocabulary(kind, vocabulary));
      return kind === 'char' ? new CharTokenizer(handle) : new WordTokenizer(handle);
    }
    encode(text) {
      if (typeof text !== 'string') throw new Error(`${this.#name}.encode: expected a string, got ${describe(text)}`);
      return Array.from(this._handle.encode(text));
    }
    decode(ids) {
      if (!(Array.isArray(ids) || ArrayBuffer.isView(ids))) {
        throw new Error(`${this.#name}.decode: expected an array of ids, got ${describe(ids)}`);
      }
      return this._handle.decode(ids);
    }
    /** 'char' or 'word'. */
    get kind() { return this._handle.kind(); }
    get vocabSize() { return this._handle.vocabSize(); }
    /** The pieces in id order: decode([i]) === pieces[i]. */
    get pieces() {
      this.#pieces ??= Object.freeze(this._handle.pieces());
      return this.#pieces;
    }
    /** The vocabulary as one string, as checkpoints store it. */
    get vocabulary() { return this._handle.vocabulary(); }
  }

  class CharTokenizer extends Tokenizer {
    /** The vocabulary is the sorted set of the text's characters. */
    constructor(text) {
      super('char', text);
    }
  }

  class WordTokenizer extends Tokenizer {
    /** The vocabulary is the sorted set of the text's words and punctuation. */
    constructor(text) {
      super('word', text);
    }
  }

  return {
    tensor,
    manualSeed: (seed) => {
      if (!Number.isSafeInteger(seed)) throw new Error(`manualSeed: expected an integer seed, got ${describe(seed)}`);
      M.manualSeed(seed);
    },
    rand: (...shape) => M.rand(shapeFromArgs(shape, 'rand')),
    randn: (...shape) => M.randn(shapeFromArgs(shape, 'randn')),
    randint: (low, high, shape) => M.randint(low, high, shapeFromArgs([shape], 'randint')),
    softmax: alongLastDim('softmax'),
    softmaxNaive: alongLastDim('softmaxNaive'),
    normalizeSum: alongLastDim('normalizeSum'),
    attentionScoresForQuery: (inputs, queryIndex) =>
      M.attentionScoresForQuery(asTensor(inputs, 'attentionScoresForQuery', 'inputs'), queryIndex),
    attentionScoresLoop: (inputs) => M.attentionScoresLoop(asTensor(inputs, 'attentionScoresLoop', 'inputs')),
    attentionScores: (inputs) => M.attentionScores(asTensor(inputs, 'attentionScores', 'inputs')),
    contextVector: (weights, inputs) =>
      M.contextVector(asTensor(weights, 'contextVector', 'weights'), asTensor(inputs, 'contextVector', 'inputs')),
    contextVectors: (weights, inputs) =>
      M.contextVectors(asTensor(weights, 'contextVectors', 'weights'), asTensor(inputs, 'contextVectors', 'inputs')),
    simpleSelfAttention: (inputs) => M.simpleSelfAttention(asTensor(inputs, 'simpleSelfAttention', 'inputs')),
    causalMask: (T) => M.causalMask(T),
    paddingMask: (lengths, keyLength) => {
      if (!(Array.isArray(lengths) || ArrayBuffer.isView(lengths))) {
        throw new Error(`paddingMask: expected lengths as an array of integers, got ${describe(lengths)}`);
      }
      return M.paddingMask(lengths, keyLength);
    },
    scaledDotProductAttention,
    /** notebook 001's SimpleLanguageModel(vocab_size, d_model, num_heads, d_ff, max_seq_length) */
    notebook001Config: (vocabSize, dModel, numHeads, dFF, maxSeqLength) =>
      gptConfig(M.notebook001Config(vocabSize, dModel, numHeads, dFF, maxSeqLength), 'notebook001Config'),
    /** nanoGPT's GPTConfig(vocab_size, block_size, n_layer, n_head, n_embd, bias) */
    nanoGPTConfig: ({ vocabSize, blockSize, nLayer, nHead, nEmbd, bias = false, tieEmbeddings = true }) =>
      gptConfig(M.nanoGPTConfig(vocabSize, blockSize, nLayer, nHead, nEmbd, Boolean(bias), Boolean(tieEmbeddings)), 'nanoGPTConfig'),
    MultiHeadAttention,
    TorchMultiheadAttention,
    GPT,
    Tokenizer,
    CharTokenizer,
    WordTokenizer,
    Trainer,
    loadCheckpoint,
    /**
     * The model the package ships, trained on the synthetic agreement corpus
     * ("The cats, which sat on the mat, purr.") in word tokens: {model, tokenizer, vocabulary, iter}.
     */
    loadDefaultModel: async () => loadCheckpoint(await loadBytes(DEFAULT_MODEL_URL, 'loadDefaultModel')),
    defaultTrainConfig: () => ({ ...DEFAULT_TRAIN_CONFIG }),
    /** The synthetic subject–verb agreement corpus, one sentence per line. */
    agreementCorpus: (sentences = 20000, seed = 1337) => M.agreementCorpus(sentences, seed),
    /**
     * What a model learned on that corpus, measured on generated sentences
     * (seed 4242: held out from the corpus's 1337): how often it prefers the
     * agreeing verb form, and per head how often the largest attention weight
     * at the verb position falls on the subject noun.
     */
    probeAgreement: (model, tokenizer, { sentences = 200, seed = 4242, ...rest } = {}) => {
      checkKeys(rest, [], 'probeAgreement', 'options');
      if (!(model instanceof GPT)) throw new Error(`probeAgreement: expected a GPT, got ${describe(model)}`);
      if (!(tokenizer instanceof Tokenizer)) throw new Error(`probeAgreement: expected a CharTokenizer or WordTokenizer, got ${describe(tokenizer)}`);
      for (const [name, v] of Object.entries({ sentences, seed })) {
        if (typeof v !== 'number') throw new Error(`probeAgreement: expected ${name} as a number, got ${describe(v)}`);
      }
      return M.probeAgreement(model._handle, tokenizer._handle, sentences, seed);
    },
    SelfAttentionV1,
    SelfAttentionV2,
    SelfAttentionU,
    Linear,
    Embedding,
    LayerNorm,
  };
}

/**
 * Loads the WASM module and returns the API. In Node the .wasm file next to
 * this module is read from disk; in a browser it is fetched. Pass
 * `wasmBinary` to supply the bytes yourself.
 */
export async function createAttention({ wasmBinary } = {}) {
  const bytes = wasmBinary ?? (await loadBytes(WASM_URL, 'createAttention'));
  const M = await createAttentionModule({
    wasmBinary: bytes,
    // The module prints nothing on success; route anything it does print to
    // the console's error stream instead of stdout.
    print: (text) => console.warn(text),
    printErr: (text) => console.warn(text),
  });
  return makeApi(M);
}
