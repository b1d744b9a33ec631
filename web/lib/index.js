// The JS API: a thin, idiomatic layer over the WASM build of the C++ library
// (cpp/bindings/). Names mirror the notebooks so that each notebook
// line has a JS line:
//
//   torch.manual_seed(123)                    attn.manualSeed(123)
//   sa_v1 = SelfAttentionV1(d_in, d_out)      const sa = new attn.SelfAttentionV1(3, 2)
//   sa_v1(inputs)                             sa.forward(inputs).context
//
// Tensors are plain objects { data: Float32Array, shape: number[] }; every
// array handed back is a JS-owned copy. Objects that own WASM memory have
// dispose() and [Symbol.dispose].
//
// The boundary with WASM: every argument is checked here and handed over in
// the exact type the bindings declare, so nothing can fail while converting
// it inside WASM; the bindings return an Error instead of throwing, and
// `throwingErrors` below throws it once the call has returned. Together they
// keep a failed call from leaking memory or breaking the module (cpp/bindings/convert.hpp
// explains why a throw from inside WASM would).
import { formatTensor, nestedArray } from './format.js';
import createAttentionModule from './wasm/attention_wasm.mjs';

// The files this module loads, found next to it. Vite and webpack see these
// `new URL(…, import.meta.url)` expressions and ship the files with a bundle;
// other bundlers (esbuild) need `wasmUrl` and `loadDefaultModel({ url })`, for
// which package.json exports both files ("attention-step-by-step/wasm", "/model").
const WASM_URL = new URL('./wasm/attention_wasm.wasm', import.meta.url);
// The pretrained model the package ships: tools/train-default-model.sh.
const DEFAULT_MODEL_URL = new URL('./models/agreement.safetensors', import.meta.url);
const disposeSymbol = Symbol.dispose ?? Symbol.for('Symbol.dispose');

/** A string, or a URL object (of this realm or another: anything with a string href). */
const isUrlLike = (value) => typeof value === 'string' || (typeof value?.href === 'string' && value.href !== '');

/**
 * The bytes at a URL or path: read from disk in Node (file: URLs and plain
 * paths), fetched in a browser. Emscripten 3.1.6's own loader cannot fetch a
 * file: URL in Node (docs/toolchain.md), which is why the package reads files itself.
 */
async function loadBytes(location, fn, what) {
  // process.getBuiltinModule (Node >= 20.16) reaches node:fs without an import
  // statement, so bundlers for the browser have nothing to resolve or warn about.
  const fs = globalThis.process?.getBuiltinModule?.('node:fs/promises');
  let url;
  try {
    url = new URL(typeof location === 'string' ? location : location.href, fs ? undefined : globalThis.location?.href);
  } catch {
    url = null; // a plain path: only Node can read it
  }
  try {
    if (fs && (!url || url.protocol === 'file:')) return new Uint8Array(await fs.readFile(url ?? location));
    if (!url) throw new Error('not a URL');
    const response = await fetch(url);
    if (!response.ok) throw new Error(`HTTP ${response.status}`);
    return new Uint8Array(await response.arrayBuffer());
  } catch (e) {
    throw new Error(`${fn}: could not load ${what} from ${url ?? location}: ${e.message}`);
  }
}

// ---- argument checks (pure JS) -----------------------------------------------

/** A value as an error message names it. */
function describe(value) {
  if (value === null) return 'null';
  if (value === undefined) return 'undefined';
  if (Array.isArray(value)) {
    // A short array of plain values is shown whole: [-1], [2, "3"].
    const plain = value.length <= 8 && value.every((v) => v === null || ['number', 'string', 'boolean'].includes(typeof v));
    return plain ? `[${value.map((v) => (typeof v === 'string' ? JSON.stringify(v) : String(v))).join(', ')}]` : `an array of length ${value.length}`;
  }
  if (ArrayBuffer.isView(value)) return `a ${value.constructor.name} of length ${value.length}`;
  switch (typeof value) {
    case 'object': return `an object with keys [${Object.keys(value).join(', ')}]`;
    case 'string': return `the string ${JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value)}`;
    case 'bigint': return `the BigInt ${value}n`;
    case 'symbol': return `a symbol (${String(value)})`;
    case 'function': return 'a function';
    default: return `${typeof value} ${String(value)}`;
  }
}

function fail(fn, expected, value) {
  throw new Error(`${fn}: expected ${expected}, got ${describe(value)}`);
}

function number(value, fn, name) {
  if (typeof value !== 'number' || Number.isNaN(value)) fail(fn, `${name} as a number`, value);
  return value;
}

function integer(value, fn, name) {
  if (!Number.isSafeInteger(value)) fail(fn, `${name} as an integer`, value);
  return value;
}

function boolean(value, fn, name) {
  if (typeof value !== 'boolean') fail(fn, `${name} as true or false`, value);
  return value;
}

function string(value, fn, name) {
  if (typeof value !== 'string') fail(fn, `${name} as a string`, value);
  return value;
}

/**
 * A string that is text: no lone UTF-16 surrogate (half of a character), which
 * UTF-8 cannot hold, so that decode(encode(text)) === text.
 */
function wellFormed(value, fn, name) {
  const lone = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/.exec(string(value, fn, name));
  if (lone) {
    throw new Error(`${fn}: expected ${name} as well-formed text, got a lone surrogate (half of a UTF-16 character, U+${lone[0]
      .charCodeAt(0).toString(16).toUpperCase()}) at index ${lone.index}`);
  }
  return value;
}

/** Options as a plain object, whose keys a C++ schema checks (configJson). */
function plainOptions(value, fn) {
  if (value === null || typeof value !== 'object' || Array.isArray(value) || ArrayBuffer.isView(value)) {
    fail(fn, 'options as an object', value);
  }
  return value;
}

/** Options as a plain object with only known keys (a typo is an error, not a silent default). */
function options(value, allowed, fn, what = 'options') {
  if (value === undefined) return {};
  if (value === null || typeof value !== 'object' || Array.isArray(value) || ArrayBuffer.isView(value)) {
    fail(fn, `${what} as an object`, value);
  }
  for (const k of Object.keys(value)) {
    if (!allowed.includes(k)) {
      throw new Error(`${fn}: unknown ${what === 'config' ? 'config field' : 'option'} "${k}"; expected one of ${allowed.join(', ')}`);
    }
  }
  return value;
}

const isBigIntArray = (data) => data instanceof BigInt64Array || data instanceof BigUint64Array;

/** Numbers as a Float32Array (the array itself when it already is one). */
function float32(data, fn, name) {
  if (data instanceof Float32Array) return data;
  if (ArrayBuffer.isView(data) && !(data instanceof DataView) && !isBigIntArray(data)) return Float32Array.from(data);
  if (!Array.isArray(data)) fail(fn, `${name} as a Float32Array or an array of numbers`, data);
  const out = new Float32Array(data.length);
  for (let i = 0; i < data.length; i++) {
    if (typeof data[i] !== 'number') throw new Error(`${fn}: expected ${name} to hold numbers, got ${describe(data[i])} at index ${i}`);
    out[i] = data[i];
  }
  return out;
}

function shapeOf(shape, fn, name) {
  if (!Array.isArray(shape) || !shape.every((s) => Number.isSafeInteger(s) && s >= 0)) {
    fail(fn, `${name} as an array of non-negative integers`, shape);
  }
  return [...shape];
}

function flatten(nested, fn, name) {
  const shape = [];
  for (let level = nested; Array.isArray(level); level = level[0]) shape.push(level.length);
  const data = new Float32Array(shape.reduce((a, b) => a * b, 1));
  let offset = 0;
  const walk = (node, depth) => {
    if (depth === shape.length) {
      if (typeof node !== 'number') fail(fn, `${name} to hold numbers`, node);
      data[offset++] = node;
      return;
    }
    if (!Array.isArray(node) || node.length !== shape[depth]) {
      throw new Error(`${fn}: expected ${name} to be a rectangular nested array of shape [${shape.join(', ')}], ` +
        `got ${describe(node)} at depth ${depth}`);
    }
    for (const child of node) walk(child, depth + 1);
  };
  walk(nested, 0);
  return { data, shape };
}

/** What a user may pass as a tensor, as {data: Float32Array, shape} of matching length. */
function asTensor(value, fn, name) {
  if (Array.isArray(value)) return flatten(value, fn, name);
  if (typeof value === 'number') return { data: new Float32Array([value]), shape: [] };
  if (value && typeof value === 'object' && 'data' in value && 'shape' in value) {
    const shape = shapeOf(value.shape, fn, `${name}.shape`);
    const data = float32(value.data, fn, `${name}.data`);
    const n = shape.reduce((a, b) => a * b, 1);
    if (data.length !== n) throw new Error(`${fn}: ${name} of shape [${shape.join(', ')}] needs ${n} values, got ${data.length}`);
    return { data, shape };
  }
  return fail(fn, `${name} as a tensor {data, shape} or a nested array of numbers`, value);
}

/** Integers (token ids, lengths) as a Float64Array. */
function integers(values, fn, name) {
  if (!(Array.isArray(values) || (ArrayBuffer.isView(values) && !(values instanceof DataView) && !isBigIntArray(values)))) {
    fail(fn, `${name} as an array of integers`, values);
  }
  const out = new Float64Array(values.length);
  for (let i = 0; i < values.length; i++) {
    if (!Number.isSafeInteger(values[i])) throw new Error(`${fn}: expected ${name} to hold integers, got ${describe(values[i])} at index ${i}`);
    out[i] = values[i];
  }
  return out;
}

function shapeFromArgs(args, fn) {
  const shape = args.length === 1 && Array.isArray(args[0]) ? args[0] : args;
  return shapeOf(shape, fn, 'sizes');
}

/**
 * torch.tensor: a tensor from nested arrays, or from flat data and a shape.
 * @returns {{data: Float32Array, shape: number[]}}
 */
export function tensor(data, shape) {
  const source = shape === undefined ? data : { data, shape };
  const t = asTensor(source, 'tensor', 'data');
  // Always a fresh array, never an alias of the caller's.
  return { data: t.data === source?.data ? Float32Array.from(t.data) : t.data, shape: t.shape };
}

const INTEGER_ARRAYS = [Int8Array, Uint8Array, Uint8ClampedArray, Int16Array, Uint16Array, Int32Array, Uint32Array];

/** A tensor to print or list: integer data (an IntTensor) stays integer, anything else is read as float32. */
function readable(t, fn) {
  if (t && typeof t === 'object' && INTEGER_ARRAYS.some((A) => t.data instanceof A)) {
    const shape = shapeOf(t.shape, fn, 't.shape');
    const n = shape.reduce((a, b) => a * b, 1);
    if (t.data.length !== n) throw new Error(`${fn}: t of shape [${shape.join(', ')}] needs ${n} values, got ${t.data.length}`);
    return { data: t.data, shape, integer: true };
  }
  return { ...asTensor(t, fn, 't'), integer: false };
}

/** tensor.tolist(): the values as nested arrays of numbers (a number for a 0-D tensor). */
export function toArray(t) {
  const { data, shape } = readable(t, 'toArray');
  return nestedArray(data, shape);
}

/** print(tensor) as PyTorch writes it: `tensor([[0.2961, 0.5166], …])`, with `precision` decimals (default 4). */
export function format(t, opts) {
  const fn = 'format';
  const { precision = 4 } = options(opts, ['precision'], fn);
  if (!Number.isSafeInteger(precision) || precision < 0 || precision > 16) fail(fn, 'precision as an integer from 0 to 16', precision);
  const { data, shape, integer } = readable(t, fn);
  return formatTensor(data, shape, { integer, precision });
}

/** A dimension index as torch takes it: -D ≤ dim < D, negative counting from the end. */
function dimension(dim, x, fn) {
  const D = x.shape.length;
  if (D === 0) fail(fn, 'x of shape [..., T] with T > 0', x.shape);
  if (!Number.isSafeInteger(dim) || dim < -D || dim >= D) {
    fail(fn, `dim as an integer in [${-D}, ${D - 1}] for a ${D}-D tensor`, dim);
  }
  return dim;
}

const ATTENTION_OPTIONS = ['causal', 'keyLengths', 'mask', 'fillValue', 'scale'];
// generate() runs to the end in one call, so it is kept short enough not to
// freeze a page; stream() yields between tokens and can be stopped, so it may run longer.
const GENERATE_LIMIT = 10000;

function attentionOptions(value, fn) {
  const { causal = false, keyLengths = null, mask = null, fillValue = -Infinity, scale = null } =
    options(value, ATTENTION_OPTIONS, fn);
  return {
    causal: boolean(causal, fn, 'causal'),
    keyLengths: keyLengths === null ? null : integers(keyLengths, fn, 'keyLengths'),
    mask: mask === null ? null : asTensor(mask, fn, 'mask'),
    fillValue: number(fillValue, fn, 'fillValue'),
    scale: scale === null ? null : number(scale, fn, 'scale'),
  };
}

/** The `trace` flag of a forward's options (default true) and the attention options besides it. */
function traceOption(value, fn) {
  const { trace = true, ...rest } = options(value, [...ATTENTION_OPTIONS, 'trace'], fn);
  return { trace: boolean(trace, fn, 'trace'), rest };
}

/** Token ids as (B, T): nested arrays, a flat array (B = 1) or {data, shape}. */
function idsArg(ids, fn, name = 'ids') {
  if (Array.isArray(ids) && ids.length > 0 && Array.isArray(ids[0])) {
    const t = flatten(ids, fn, name);
    return { data: integers(t.data, fn, name), batch: t.shape[0] };
  }
  if (Array.isArray(ids) || ArrayBuffer.isView(ids)) return { data: integers(ids, fn, name), batch: 1 };
  if (ids && typeof ids === 'object' && 'data' in ids && 'shape' in ids) {
    const shape = shapeOf(ids.shape, fn, `${name}.shape`);
    if (shape.length > 2) fail(fn, `${name} of shape [T] or [B, T]`, shape);
    const data = integers(ids.data, fn, `${name}.data`);
    const n = shape.reduce((a, b) => a * b, 1);
    if (data.length !== n) throw new Error(`${fn}: ${name} of shape [${shape.join(', ')}] need ${n} values, got ${data.length}`);
    return { data, batch: shape.length === 2 ? shape[0] : 1 };
  }
  return fail(fn, `${name} as an array of token ids (nested for a batch) or {data, shape}`, ids);
}

/**
 * A config as the JSON the bindings read (config.hpp's schema checks its names,
 * types and limits there, and suggests a name for a typo). Here only what JSON
 * cannot carry is refused: BigInt, symbols, functions, nested objects, NaN and ±Infinity.
 */
function configJson(config, fn, what = 'config') {
  if (config === null || typeof config !== 'object' || Array.isArray(config) || ArrayBuffer.isView(config)) {
    fail(fn, `${what} as an object`, config);
  }
  return JSON.stringify(config, (key, value) => {
    if (key === '' || value === undefined || value === null) return value;
    if (typeof value === 'number' && !Number.isFinite(value)) fail(fn, `${key} as a finite number`, value);
    if (!['number', 'boolean', 'string'].includes(typeof value)) fail(fn, `${key} as a number, true or false, or a string`, value);
    return value;
  });
}

// ---- the boundary with WASM ------------------------------------------------------

/**
 * Makes every function of the bindings throw the Error it returns (see
 * cpp/bindings/convert.hpp). As a second line of defence, the WASM stack pointer is restored
 * if anything still throws from inside a call.
 */
function throwingErrors(M) {
  const wrap = (f) =>
    function checked(...args) {
      const stack = M.stackSave();
      let result;
      try {
        result = f.apply(this, args);
      } catch (error) {
        M.stackRestore(stack);
        throw error;
      }
      if (result instanceof Error) throw new Error(result.message);
      return result;
    };
  // embind marks what it exports with an argCount; a class's prototype
  // derives from embind's ClassHandle, a plain function's does not.
  for (const [name, value] of Object.entries(M)) {
    if (typeof value !== 'function' || !('argCount' in value)) continue;
    const proto = value.prototype;
    if (proto && Object.getPrototypeOf(proto) !== Object.prototype) {
      for (const key of Object.getOwnPropertyNames(proto)) if (key !== 'constructor') proto[key] = wrap(proto[key]);
      for (const key of Object.getOwnPropertyNames(value)) if (typeof value[key] === 'function') value[key] = wrap(value[key]);
    } else {
      M[name] = wrap(value);
    }
  }
  return M;
}

/** Wraps an embind object that C++ created, so a JS class can own it. */
class AdoptedHandle {
  constructor(handle) {
    this.handle = handle;
  }
}

function makeApi(M) {
  // Frees handles the user forgot to dispose once their owner is collected (a
  // safety net, not a substitute: it runs when the JS engine decides).
  const registry = new FinalizationRegistry((handle) => handle.delete());

  class Module {
    #handle;
    #name;
    #runningCall = null; // the call that runs user code (a callback) right now
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
    /** Runs fn(handle) with dispose() refused meanwhile: for calls that run the user's callbacks. */
    _whileRunning(call, fn) {
      const handle = this._handle;
      const outer = this.#runningCall;
      this.#runningCall = call;
      try {
        return fn(handle);
      } finally {
        this.#runningCall = outer;
      }
    }
    /**
     * Frees the WASM memory this object owns. Safe to call twice. Refused while
     * one of its calls runs a callback.
     */
    dispose() {
      if (!this.#handle) return;
      if (this.#runningCall) {
        throw new Error(
          `${this.#name}.dispose: cannot dispose while ${this.#runningCall} is running; ` +
            `stop it first (return false from onToken) and dispose after it returns`,
        );
      }
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
      super('SelfAttentionV1', () => M.SelfAttentionV1.create(number(dIn, 'SelfAttentionV1', 'dIn'), number(dOut, 'SelfAttentionV1', 'dOut')));
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
   * (T_k, d_k), values (T_k, d_v) and weights (T_q, T_k): a 2-D trace as it is, or one head of one.
   */
  function explainScore(map, query, key) {
    const fn = 'explainScore';
    const parts = ['queries', 'keys', 'values', 'weights'];
    if (map === null || typeof map !== 'object' || parts.some((p) => map[p] === undefined)) {
      fail(fn, `a map with ${parts.join(', ')}`, map);
    }
    return M.explainScore(asTensor(map.queries, fn, 'queries'), asTensor(map.keys, fn, 'keys'), asTensor(map.values, fn, 'values'),
      asTensor(map.weights, fn, 'weights'), number(query, fn, 'query'), number(key, fn, 'key'));
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


  /**
   * One generation in progress, as an iterator of each step's tokens. Its
   * WASM session is freed when it finishes, fails, is returned early (a
   * `break` out of for...of) or, if dropped half-way, when it is
   * garbage-collected. It keeps its model object alive; if the model is
   * disposed meanwhile, next() throws (the session never runs on freed memory).
   */
  class GenerationStream {
    #model;
    #session;
    constructor(model, session) {
      this.#model = model;
      this.#session = session;
      registry.register(this, session, this);
    }
    next() {
      if (!this.#session) return { value: undefined, done: true };
      try {
        this.#model._handle; // throws if the model was disposed meanwhile
        if (!this.#session.done()) return { value: Array.from(this.#session.next().data), done: false };
      } catch (error) {
        this.close();
        throw error;
      }
      this.close();
      return { value: undefined, done: true };
    }
    return(value) {
      this.close();
      return { value, done: true };
    }
    throw(error) {
      this.close();
      throw error;
    }
    [Symbol.iterator]() {
      return this;
    }
    /** Frees the generation session; the iterator is then done. Safe to call twice. */
    close() {
      if (!this.#session) return;
      registry.unregister(this);
      this.#session.delete();
      this.#session = null;
    }
    [disposeSymbol]() {
      this.close();
    }
  }

  class GPT extends Module {
    /** A config object (see GPTConfig); missing fields take the defaults. */
    constructor(config = {}) {
      const handle = config instanceof AdoptedHandle ? config.handle : null;
      const json = handle ? null : configJson(config, 'GPT');
      super('GPT', () => handle ?? M.GPT.create(json));
    }
    /** A safetensors checkpoint of the model (no optimizer state), for loadCheckpoint or Python. */
    checkpoint(tokenizer) {
      if (!(tokenizer instanceof Tokenizer)) fail('GPT.checkpoint', "the model's tokenizer (a CharTokenizer or WordTokenizer)", tokenizer);
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
     * Generates maxNewTokens after the prompt; onToken(tokens, step) sees each
     * step's tokens (one per batch row) and may return false to stop.
     * Returns every token, {data: Int32Array, shape: [B, T]}.
     */
    generate(prompt, opts = {}) {
      const { onToken, ...rest } = plainOptions(opts, 'generate');
      if (onToken !== undefined && typeof onToken !== 'function') fail('generate', 'onToken as a function', onToken);
      if (typeof rest.maxNewTokens === 'number' && rest.maxNewTokens > GENERATE_LIMIT) {
        throw new Error(`generate: expected maxNewTokens of at most ${GENERATE_LIMIT}, got ${rest.maxNewTokens}; ` +
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
      return new GenerationStream(this, this.#session(prompt, plainOptions(opts, 'stream'), 'stream'));
    }
    // The options' names, defaults and limits are generate.hpp's table: it reads them as JSON.
    #session(prompt, opts, fn) {
      const t = idsArg(prompt, fn, 'prompt');
      return M.GenerationSession.create(this._handle, t.data, t.batch, configJson(opts, fn, 'options'), fn);
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
      if (!Object.hasOwn(TOKENIZER_NAMES, kind)) fail(fn, "kind 'char' or 'word'", kind);
      wellFormed(vocabulary, fn, 'the vocabulary');
      return adoptTokenizer(kind, M.tokenizerFromVocabulary(kind, vocabulary));
    }
    encode(text) {
      return Array.from(this._handle.encode(wellFormed(text, `${this.#name}.encode`, 'text')));
    }
    decode(ids) {
      return this._handle.decode(integers(ids, `${this.#name}.decode`, 'ids'));
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
    tensor,
    toArray,
    format,
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
    loadDefaultModel: async (opts) => {
      const fn = 'loadDefaultModel';
      const { url, bytes } = options(opts, ['url', 'bytes'], fn);
      if (url !== undefined && bytes !== undefined) fail(fn, 'either url or bytes, not both', opts);
      if (bytes !== undefined) return loadCheckpoint(bytes);
      if (url !== undefined && !isUrlLike(url)) fail(fn, 'url as a string or a URL', url);
      return loadCheckpoint(await loadBytes(url ?? DEFAULT_MODEL_URL, fn, 'the model'));
    },
    defaultTrainConfig: () => JSON.parse(M.defaultTrainConfig()),
    /** generate()'s options with their defaults: {maxNewTokens, temperature, topK, seed, useKvCache}. */
    defaultGenerateOptions: () => JSON.parse(M.defaultGenerateOptions()),
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
      if (!(model instanceof GPT)) fail(fn, 'a GPT', model);
      if (!(tokenizer instanceof Tokenizer)) fail(fn, 'a CharTokenizer or WordTokenizer', tokenizer);
      return M.probeAgreement(model._handle, tokenizer._handle, number(sentences, fn, 'sentences'), number(seed, fn, 'seed'),
        headMask === null ? null : asTensor(headMask, fn, 'headMask'));
    },
    SelfAttentionV1,
    SelfAttentionV2,
    SelfAttentionU,
    Linear,
    Embedding,
    LayerNorm,
  };
}

// The WebAssembly features the module is compiled with (CMakeLists.txt:
// -msimd128, -fwasm-exceptions), each as the smallest module that uses it:
// one function returning i8x16.splat(0), and one holding try … catch_all.
// An engine without them would fail deep inside the module's start-up;
// checking first turns that into an Error that says what is missing.
const WASM_FEATURES = {
  'WebAssembly SIMD': Uint8Array.of(0, 97, 115, 109, 1, 0, 0, 0, 1, 5, 1, 96, 0, 1, 123, 3, 2, 1, 0,
    10, 8, 1, 6, 0, 65, 0, 253, 15, 11),
  'WebAssembly exception handling': Uint8Array.of(0, 97, 115, 109, 1, 0, 0, 0, 1, 4, 1, 96, 0, 0, 3, 2, 1, 0,
    10, 8, 1, 6, 0, 6, 64, 25, 11, 11),
};
const SUPPORTED = 'Chrome and Edge 95+, Firefox 100+, Safari 16.4+ and Node 20.19+ have them';

function checkEngine(fn) {
  if (typeof WebAssembly !== 'object') {
    throw new Error(`${fn}: this JavaScript engine has no WebAssembly (is it disabled, or running without a JIT?); ${SUPPORTED}`);
  }
  const missing = Object.keys(WASM_FEATURES).filter((name) => !WebAssembly.validate(WASM_FEATURES[name]));
  if (missing.length > 0) throw new Error(`${fn}: this JavaScript engine lacks ${missing.join(' and ')}; ${SUPPORTED}`);
}

async function compile(bytes, fn) {
  try {
    return await WebAssembly.compile(bytes);
  } catch (e) {
    const csp = /unsafe-eval|Content.Security.Policy/i.test(e.message)
      ? " The page's Content-Security-Policy must allow script-src 'wasm-unsafe-eval'."
      : '';
    throw new Error(`${fn}: could not compile the WebAssembly module: ${e.message.replace(/\.$/, '')}.${csp}`);
  }
}

/**
 * Loads the WASM module and returns the API. The module is the .wasm file next
 * to this one (read from disk in Node, fetched in a browser) unless
 * `wasmUrl` says where it is or `wasmBinary` hands over its bytes.
 */
export async function createAttention(opts) {
  const fn = 'createAttention';
  const { wasmBinary, wasmUrl } = options(opts, ['wasmBinary', 'wasmUrl'], fn);
  if (wasmBinary !== undefined && wasmUrl !== undefined) fail(fn, 'either wasmBinary or wasmUrl, not both', opts);
  if (wasmUrl !== undefined && !isUrlLike(wasmUrl)) fail(fn, 'wasmUrl as a string or a URL', wasmUrl);
  if (wasmBinary !== undefined && !(wasmBinary instanceof ArrayBuffer || ArrayBuffer.isView(wasmBinary))) {
    fail(fn, 'wasmBinary as a Uint8Array or an ArrayBuffer', wasmBinary);
  }
  checkEngine(fn);
  const bytes = wasmBinary ?? (await loadBytes(wasmUrl ?? WASM_URL, fn, 'the WebAssembly module'));
  const wasmModule = await compile(bytes, fn);
  const M = await new Promise((resolve, reject) => {
    const failed = (e) => reject(new Error(
      `${fn}: could not start the WebAssembly module (is it the .wasm of this version of the package?): ${e?.message ?? e}`));
    createAttentionModule({
      instantiateWasm(imports, done) {
        // done() reads the module's exports: a different .wasm fails there, and is reported like any other failure.
        WebAssembly.instantiate(wasmModule, imports).then((instance) => done(instance, wasmModule)).catch(failed);
        return {};
      },
      // The module prints nothing on success; route anything it does print to
      // the console's error stream instead of stdout.
      print: (text) => console.warn(text),
      printErr: (text) => console.warn(text),
    }).then(resolve, failed);
  });
  return makeApi(throwingErrors(M));
}
