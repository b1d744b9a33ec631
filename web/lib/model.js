// The JS API of the language model: its configs, GPT (forward, generation
// streamed a token at a time), tokenizers, training a step at a time,
// checkpoints, the shipped model, and the agreement corpus and probe
// (notebook 001 §8, nanoGPT). modelApi(M) gives them for one loaded module M.
import {
  asTensor, boolean, configJson, fail, idsArg, integers, number, options, plainOptions, refuse, string, wellFormed,
} from './arguments.js';
import { attnError } from './errors.js';
import { generationOptions, GenerationStream } from './generation.js';
import { AdoptedHandle, Module } from './handles.js';
import { isUrlLike, loadBytes } from './loading.js';

// The models the package ships (tools/train-default-model.sh, tools/train-induction-model.sh), next to this
// module. Each is written as new URL('./models/…', import.meta.url), the one spelling Vite and webpack both follow:
// they copy the file into the app and give its address, so loadDefaultModel() with no URL works in a production
// build as it does in Node. The copy is fetched only when it is loaded. (Looked up by a name at run time instead,
// the model was never copied: Vite's build answered its address with the app's index.html, and webpack wrote the
// machine's path to this file into the bundle.) esbuild follows no such reference: the README's line copies the
// package's models/ folder next to the bundle, where the address resolves.
const MODEL_URLS = {
  agreement: () => new URL('./models/agreement.safetensors', import.meta.url),
  induction: () => new URL('./models/induction.safetensors', import.meta.url),
};
// The export each model's URL can also be imported from (package.json's "exports"), to pass as `url`.
const MODEL_EXPORTS = { agreement: 'attention-step-by-step/model', induction: 'attention-step-by-step/models/induction' };
// generate() runs to the end in one call, so it is kept short enough not to
// freeze a page; stream() yields between tokens and can be stopped, so it may run longer.
const GENERATE_LIMIT = 10000;

/**
 * `value` if it is a `Class` of this module instance. An object of the same class made by another
 * createAttention() is refused by name (it said "expected a GPT, got an object with keys []").
 */
function ofThisInstance(value, Class, fn, expected) {
  if (value instanceof Class) return value;
  if (value instanceof Module) {
    for (let proto = Object.getPrototypeOf(value); proto; proto = Object.getPrototypeOf(proto)) {
      if (proto.constructor?.name === Class.name) {
        throw attnError('ERR_ATTN_INVALID_ARGUMENT', `${fn}: this ${value.constructor.name} belongs to another module instance (made by another ` +
          'createAttention()); objects of two instances cannot be used together');
      }
    }
  }
  return fail(fn, expected, value);
}

export function modelApi(M) {
  class GPT extends Module {
    // generate()'s options from the model's own files (_setGenerationConfig), or null: the library's defaults.
    #generationDefaults = null;
    /** A config object (see GPTConfig); missing fields take the defaults. */
    constructor(config = {}) {
      const handle = config instanceof AdoptedHandle ? config.handle : null;
      const json = handle ? null : configJson(config, 'GPT');
      super('GPT', () => handle ?? M.GPT.create(json));
    }
    /** A safetensors checkpoint of the model (no optimizer state), for loadCheckpoint or Python. */
    checkpoint(tokenizer) {
      ofThisInstance(tokenizer, Tokenizer, 'GPT.checkpoint', "the model's tokenizer (a CharTokenizer or WordTokenizer)");
      return this._handle.checkpoint(tokenizer._handle);
    }
    get config() { return JSON.parse(this._handle.config()); }
    /** nanoGPT's count: tied tensors once; nonEmbedding leaves out the position embedding. */
    numParameters(opts = {}) {
      const { nonEmbedding = true } = options(opts, ['nonEmbedding'], 'GPT.numParameters');
      return this._handle.numParameters(boolean(nonEmbedding, 'GPT.numParameters', 'nonEmbedding'));
    }
    parameterNames() { return this._handle.parameterNames(); }
    parameter(name) { return this._handle.parameter(string(name, 'GPT.parameter', 'name')); }
    /** ids (B, T) nested, (T) flat, or {data, shape} -> {logits (B, T, V), trace | null}. */
    forward(ids, opts = {}) {
      const fn = 'GPT.forward';
      const { trace = false, headMask = null } = options(opts, ['trace', 'headMask'], fn);
      const t = idsArg(ids, fn);
      return this._handle.forward(t.data, t.batch, boolean(trace, fn, 'trace'), headMask === null ? null : asTensor(headMask, fn, 'headMask'));
    }
    /**
     * The options generate() and stream() run with when a call leaves them out: the library's defaults, or for a
     * model loaded from a folder, what its generation_config.json says (or config.json's stop tokens). A copy.
     */
    get generationConfig() {
      return this.#generationDefaults ? { ...this.#generationDefaults, eosTokenId: [...this.#generationDefaults.eosTokenId] }
        : JSON.parse(M.defaultGenerateOptions());
    }
    /**
     * For the loader: the model's generation defaults from its folder's files, the text of generation_config.json
     * (null when the folder has none) and of config.json. A file's bad key is an Error naming it, and the model's
     * defaults are then left as they were.
     * @internal
     */
    _setGenerationConfig(generationConfigJson, configJson) {
      const fn = 'loadPretrained';
      if (generationConfigJson !== null) string(generationConfigJson, fn, "generation_config.json's text (or null)");
      string(configJson, fn, "config.json's text");
      this.#generationDefaults = JSON.parse(M.generationConfig(generationConfigJson, configJson));
    }
    /**
     * Generates maxNewTokens after the prompt, fewer if every row produced a stop token (eosTokenId); onToken(tokens,
     * step) sees each step's tokens (one per batch row) and may return false to stop. Options left out take the
     * model's generationConfig. Returns every token, {data: Int32Array, shape: [B, T]}.
     */
    generate(prompt, opts = {}) {
      const { onToken, ...rest } = plainOptions(opts, 'generate');
      if (onToken !== undefined && typeof onToken !== 'function') fail('generate', 'onToken as a function', onToken);
      if (typeof rest.maxNewTokens === 'number' && rest.maxNewTokens > GENERATE_LIMIT) {
        throw attnError('ERR_ATTN_INVALID_ARGUMENT', `generate: expected maxNewTokens of at most ${GENERATE_LIMIT}, got ${rest.maxNewTokens}; ` +
          'stream() generates longer runs a token at a time, and can be stopped');
      }
      const session = this.#session(prompt, rest, 'generate');
      try {
        return this._whileRunning('generate()', () => {
          for (let step = 0; !session.done(); step++) {
            const tokens = Array.from(session.next().data);
            if (onToken && onToken(tokens, step) === false) break;
          }
          return session.tokens();
        });
      } finally {
        session.delete();
      }
    }
    /** The same generation as an iterator: yields each step's tokens (one per batch row). */
    stream(prompt, opts = {}) {
      return new GenerationStream(this, this.#session(prompt, opts, 'stream'));
    }
    // The options' names, defaults and limits are generate.hpp's table: it reads them as JSON, over the model's defaults.
    #session(prompt, opts, fn) {
      const t = idsArg(prompt, fn, 'prompt');
      const json = configJson(generationOptions(this.#generationDefaults, opts, fn), fn, 'options');
      return M.GenerationSession.create(this._handle, t.data, t.batch, json, fn);
    }
  }


  /**
   * Training as nanoGPT's train.py does it, a step at a time. The model's
   * vocabulary is the text's characters, or its words with
   * training.tokenizer = 'word' (vocabSize is set from the text).
   */
  class Trainer extends Module {
    constructor(opts = {}) {
      const { model = {}, training = {}, text } = options(opts, ['model', 'training', 'text'], 'Trainer');
      const handle = model instanceof AdoptedHandle ? model.handle : null;
      const modelConfig = handle ? null : configJson(model, 'Trainer', 'model');
      const trainConfig = handle ? null : configJson(training, 'Trainer', 'training');
      wellFormed(text, 'Trainer', 'text');
      super('Trainer', () => handle ?? M.Trainer.create(modelConfig, trainConfig, text));
    }
    /** Resumes from a checkpoint written by trainer.checkpoint(), on the given text. */
    static resume(bytes, text) {
      if (!(bytes instanceof Uint8Array)) fail('Trainer.resume', 'the checkpoint as a Uint8Array', bytes);
      wellFormed(text, 'Trainer.resume', 'text');
      return new Trainer({ model: new AdoptedHandle(M.Trainer.resume(bytes, text)), text });
    }
    /**
     * One optimisation step: {iter, lr, loss, gradNorm}. A step whose loss,
     * gradients or new weights are not finite throws and leaves the model and
     * optimiser as they were before it.
     */
    step() { return this._handle.step(); }
    /** Mean loss over evalIters random batches of each split: {train, val}. */
    evaluate(evalIters = this.config.evalIters) {
      return this._handle.evaluate(number(evalIters, 'Trainer.evaluate', 'evalIters'));
    }
    get iter() { return this._handle.iter(); }
    get vocabulary() { return this._handle.vocabulary(); }
    get config() { return JSON.parse(this._handle.config()); }
    get modelConfig() { return JSON.parse(this._handle.modelConfig()); }
    /** A copy of the model as it is now (a GPT you dispose). */
    snapshot() { return new GPT(new AdoptedHandle(this._handle.snapshot())); }
    /** Model, vocabulary, optimizer state and progress as safetensors bytes. */
    checkpoint() { return this._handle.checkpoint(); }
  }

  /**
   * Reads a checkpoint (safetensors bytes): {model: GPT, tokenizer, vocabulary, iter, verified}.
   * verified: its digest matched; false for a file without one (written by another tool).
   */
  function loadCheckpoint(bytes) {
    if (!(bytes instanceof Uint8Array)) fail('loadCheckpoint', 'the checkpoint as a Uint8Array', bytes);
    const { model, tokenizer, ...info } = M.loadCheckpoint(bytes);
    const kind = tokenizer.kind();
    return { model: new GPT(new AdoptedHandle(model)), tokenizer: adoptTokenizer(kind, tokenizer), ...info };
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
      if (!handle) wellFormed(text, name, 'text');
      super(name, () => handle ?? M.Tokenizer.create(kind, text));
      this.#name = name;
    }
    /** A tokenizer from a saved vocabulary (a checkpoint's, or tokenizer.vocabulary). */
    static fromVocabulary(kind, vocabulary) {
      const fn = 'Tokenizer.fromVocabulary';
      if (!Object.hasOwn(TOKENIZER_NAMES, kind)) refuse(fn, "kind 'char' or 'word'", kind);
      wellFormed(vocabulary, fn, 'the vocabulary');
      return adoptTokenizer(kind, M.tokenizerFromVocabulary(kind, vocabulary));
    }
    /** The ids of a text. `addSpecialTokens` is accepted as BPETokenizer takes it; these tokenizers have none to add. */
    encode(text, opts) {
      const fn = `${this.#name}.encode`;
      boolean(options(opts, ['addSpecialTokens'], fn).addSpecialTokens ?? true, fn, 'addSpecialTokens');
      return Array.from(this._handle.encode(wellFormed(text, fn, 'text')));
    }
    /** The text of ids. `skipSpecialTokens` is accepted as BPETokenizer takes it; these tokenizers have none. */
    decode(ids, opts) {
      const fn = `${this.#name}.decode`;
      boolean(options(opts, ['skipSpecialTokens'], fn).skipSpecialTokens ?? false, fn, 'skipSpecialTokens');
      return this._handle.decode(integers(ids, fn, 'ids'));
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

  const adoptTokenizer = (kind, handle) =>
    kind === 'char' ? new CharTokenizer(new AdoptedHandle(handle)) : new WordTokenizer(new AdoptedHandle(handle));

  return {
    /** notebook 001's SimpleLanguageModel(vocab_size, d_model, num_heads, d_ff, max_seq_length) */
    notebook001Config: (vocabSize, dModel, numHeads, dFF, maxSeqLength) => {
      const fn = 'notebook001Config';
      return JSON.parse(M.notebook001Config(number(vocabSize, fn, 'vocabSize'), number(dModel, fn, 'dModel'),
        number(numHeads, fn, 'numHeads'), number(dFF, fn, 'dFF'), number(maxSeqLength, fn, 'maxSeqLength')));
    },
    /** nanoGPT's GPTConfig(vocab_size, block_size, n_layer, n_head, n_embd, bias) */
    nanoGPTConfig: (opts) => {
      const fn = 'nanoGPTConfig';
      const { vocabSize, blockSize, nLayer, nHead, nEmbd, bias = false, tieEmbeddings = true } =
        options(opts, ['vocabSize', 'blockSize', 'nLayer', 'nHead', 'nEmbd', 'bias', 'tieEmbeddings'], fn);
      return JSON.parse(M.nanoGPTConfig(number(vocabSize, fn, 'vocabSize'), number(blockSize, fn, 'blockSize'),
        number(nLayer, fn, 'nLayer'), number(nHead, fn, 'nHead'), number(nEmbd, fn, 'nEmbd'),
        boolean(bias, fn, 'bias'), boolean(tieEmbeddings, fn, 'tieEmbeddings')));
    },
    /** The numbers a KV cache holds after `tokens` tokens, for a model of this Hugging Face config.json. */
    kvCacheNumbers: (config, tokens) => {
      const fn = 'kvCacheNumbers';
      if (config === null || typeof config !== 'object' || Array.isArray(config)) refuse(fn, 'a config.json as an object', config);
      return M.kvCacheNumbers(JSON.stringify(config), number(tokens, fn, 'tokens'));
    },
    GPT,
    Tokenizer,
    CharTokenizer,
    WordTokenizer,
    Trainer,
    loadCheckpoint,
    /**
     * A model the package ships: {model, tokenizer, vocabulary, iter}. 'agreement' (default): trained on the
     * synthetic agreement corpus ("The cats, which sat on the mat, purr.") in word tokens. 'induction': the
     * induction recipe's attention-only model, trained on repeated random letters (tools/train-induction-model.sh).
     */
    loadDefaultModel: async (opts) => {
      const fn = 'loadDefaultModel';
      const { name = 'agreement', url, bytes } = options(opts, ['name', 'url', 'bytes'], fn);
      if (!Object.hasOwn(MODEL_URLS, name)) refuse(fn, `name as ${Object.keys(MODEL_URLS).map((n) => `'${n}'`).join(' or ')}`, name);
      if (url !== undefined && bytes !== undefined) refuse(fn, 'either url or bytes, not both', opts);
      if (bytes !== undefined) return loadCheckpoint(bytes);
      if (url !== undefined && !isUrlLike(url)) fail(fn, 'url as a string or a URL', url);
      const own = `import its URL (import modelUrl from '${MODEL_EXPORTS[name]}') and pass it: ` +
        `loadDefaultModel({ ${name === 'agreement' ? '' : `name: '${name}', `}url: modelUrl })`;
      return loadCheckpoint(await loadBytes(url ?? MODEL_URLS[name](), fn, {
        what: 'the model',
        kind: 'safetensors',
        missing: url ? '' : `a bundled app whose bundler did not copy the package's models/ folder can ${own}`,
        change: url ? 'url must be the address the server has the model file at' : `copy the package's models/ folder next to the bundle, or ${own}`,
      }));
    },
    defaultTrainConfig: () => JSON.parse(M.defaultTrainConfig()),
    /** The attention-only model and training run that form induction heads fast: {model, training} configs. */
    inductionRecipe: () => JSON.parse(M.inductionRecipe()),
    /**
     * generate()'s options with the library's defaults: {maxNewTokens, temperature, topK, topP, seed, useKvCache,
     * eosTokenId, padTokenId}.
     */
    defaultGenerateOptions: () => JSON.parse(M.defaultGenerateOptions()),
    /**
     * The distribution generate() draws the next token from: softmax(logits / temperature) after top-k, as
     * nanoGPT, and after top-p, as transformers' TopPLogitsWarper; temperature 0 puts all the mass on the largest
     * logit. logits (V) or (B, V) → the same shape. The options are generate()'s, checked by its table.
     */
    samplingDistribution(logits, opts) {
      const fn = 'samplingDistribution';
      const chosen = options(opts, ['temperature', 'topK', 'topP'], fn);
      const t = asTensor(logits, fn, 'logits');
      const rows = t.shape.length === 1 ? { data: t.data, shape: [1, t.shape[0]] } : t;
      const p = M.samplingDistribution(rows, configJson(chosen, fn, 'options'));
      return t.shape.length === 1 ? { data: p.data, shape: t.shape } : p;
    },
    /** The synthetic subject–verb agreement corpus, one sentence per line. */
    agreementCorpus: (sentences = 20000, seed = 1337) =>
      M.agreementCorpus(number(sentences, 'agreementCorpus', 'sentences'), number(seed, 'agreementCorpus', 'seed')),
    /**
     * What a model learned on that corpus, measured on generated sentences
     * (seed 4242: held out from the corpus's 1337): how often it prefers the
     * agreeing verb form, and per head how often the largest attention weight
     * at the verb position falls on the subject noun.
     */
    probeAgreement: (model, tokenizer, opts = {}) => {
      const fn = 'probeAgreement';
      const { sentences = 200, seed = 4242, headMask = null } = options(opts, ['sentences', 'seed', 'headMask'], fn);
      ofThisInstance(model, GPT, fn, 'a GPT');
      ofThisInstance(tokenizer, Tokenizer, fn, 'a CharTokenizer or WordTokenizer');
      return M.probeAgreement(model._handle, tokenizer._handle, number(sentences, fn, 'sentences'), number(seed, fn, 'seed'),
        headMask === null ? null : asTensor(headMask, fn, 'headMask'));
    },
    /**
     * What each head does on one text (ids of one sequence, at least 2 tokens), measured from its attention
     * weights in one pass: {previousToken, firstToken, meanDistance, entropy} as (nLayer, nHead) tensors,
     * each a mean over the queries after the first; `thumbnails` (nLayer, nHead, S, S), every map max-pooled
     * to at most `thumbnailSize` cells a side (0, the default: none); and `nextLogits` after the last token.
     */
    summarizeHeads: (model, ids, opts = {}) => {
      const fn = 'summarizeHeads';
      const { thumbnailSize = 0, headMask = null } = options(opts, ['thumbnailSize', 'headMask'], fn);
      ofThisInstance(model, GPT, fn, 'a GPT');
      return M.summarizeHeads(model._handle, integers(ids, fn, 'ids'), number(thumbnailSize, fn, 'thumbnailSize'),
        headMask === null ? null : asTensor(headMask, fn, 'headMask'));
    },
    /**
     * One head of one layer on ids (one sequence): {queries, keys, values} (T, dHead) and weights (T, T), the
     * map explainScore takes apart; layer and head count from 0.
     */
    headAttention: (model, ids, layer, head, opts = {}) => {
      const fn = 'headAttention';
      const { headMask = null } = options(opts, ['headMask'], fn);
      ofThisInstance(model, GPT, fn, 'a GPT');
      return M.headAttention(model._handle, integers(ids, fn, 'ids'), number(layer, fn, 'layer'), number(head, fn, 'head'),
        headMask === null ? null : asTensor(headMask, fn, 'headMask'));
    },
    /**
     * Which heads are induction heads, measured on `batchSize` random sequences whose one segment repeats at
     * random places: prefixMatching, previousToken, copying and inContextLossGain (null without `ablation`) as
     * (nLayer, nHead) tensors, the loss on each copy, and the sequences measured.
     */
    headScores: (model, opts = {}) => {
      const fn = 'headScores';
      const { batchSize = 16, length = 0, seed = 0, ablation = true } =
        options(opts, ['batchSize', 'length', 'seed', 'ablation'], fn);
      ofThisInstance(model, GPT, fn, 'a GPT');
      return M.headScores(model._handle, number(batchSize, fn, 'batchSize'), number(length, fn, 'length'),
        number(seed, fn, 'seed'), boolean(ablation, fn, 'ablation'));
    },
    /**
     * `batchSize` sequences of `length` random tokens in [0, vocabSize), each with one segment of ⌊length/4⌋ to
     * ⌊length/3⌋ tokens repeated at random places, drawn from `seed`: {sequences (batchSize, length), repeats}.
     */
    repeatedSequences: (opts) => {
      const fn = 'repeatedSequences';
      const { batchSize = 1, length, vocabSize, seed = 0 } = options(opts, ['batchSize', 'length', 'vocabSize', 'seed'], fn);
      return M.repeatedSequences(number(batchSize, fn, 'batchSize'), number(length, fn, 'length'),
        number(vocabSize, fn, 'vocabSize'), number(seed, fn, 'seed'));
    },
    /** Every head's attention weights (nHead, T, T) of one layer on ids (one sequence): what a head view draws. */
    layerAttention: (model, ids, layer, opts = {}) => {
      const fn = 'layerAttention';
      const { headMask = null } = options(opts, ['headMask'], fn);
      ofThisInstance(model, GPT, fn, 'a GPT');
      return M.layerAttention(model._handle, integers(ids, fn, 'ids'), number(layer, fn, 'layer'),
        headMask === null ? null : asTensor(headMask, fn, 'headMask'));
    },
  };
}
