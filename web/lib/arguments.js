// The JS API's argument checks, in plain JS: every argument is checked here
// and handed to WASM in the exact type the bindings declare, so that nothing
// can fail while it is converted inside WASM (cpp/bindings/convert.hpp). Each
// failure is an Error naming the function called, what it expected and what
// it got. The rules themselves (limits, divisibility, names of config and
// generation fields) belong to the C++ library; this file checks types.
import { attnError } from './errors.js';

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

/**
 * Throws the Error for an argument refused: a TypeError (ERR_ATTN_INVALID_TYPE) unless `code` says the value,
 * not its type, is what is wrong (ERR_ATTN_INVALID_ARGUMENT). errors.js lists the codes.
 */
export function fail(fn, expected, value, code = 'ERR_ATTN_INVALID_TYPE') {
  throw attnError(code, `${fn}: expected ${expected}, got ${describe(value)}`);
}

/** `fail` for a value of the right type refused for what it is (a shape, a range, NaN). */
export const refuse = (fn, expected, value) => fail(fn, expected, value, 'ERR_ATTN_INVALID_ARGUMENT');

/** The code of an argument that should have been a number: a wrong type, or a number of a refused value. */
const numberCode = (value) => (typeof value === 'number' ? 'ERR_ATTN_INVALID_ARGUMENT' : 'ERR_ATTN_INVALID_TYPE');

export function number(value, fn, name) {
  if (typeof value !== 'number' || Number.isNaN(value)) fail(fn, `${name} as a number`, value, numberCode(value));
  return value;
}

export function integer(value, fn, name) {
  if (!Number.isSafeInteger(value)) fail(fn, `${name} as an integer`, value, numberCode(value));
  return value;
}

export function boolean(value, fn, name) {
  if (typeof value !== 'boolean') fail(fn, `${name} as true or false`, value);
  return value;
}

export function string(value, fn, name) {
  if (typeof value !== 'string') fail(fn, `${name} as a string`, value);
  return value;
}

/**
 * A string that is text: no lone UTF-16 surrogate (half of a character), which
 * UTF-8 cannot hold, so that decode(encode(text)) === text.
 */
export function wellFormed(value, fn, name) {
  const lone = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/.exec(string(value, fn, name));
  if (lone) {
    throw attnError('ERR_ATTN_INVALID_ARGUMENT', `${fn}: expected ${name} as well-formed text, got a lone surrogate (half of a UTF-16 character, U+${lone[0]
      .charCodeAt(0).toString(16).toUpperCase()}) at index ${lone.index}`);
  }
  return value;
}

/** Options as a plain object, whose keys a C++ schema checks (configJson). */
export function plainOptions(value, fn) {
  if (value === null || typeof value !== 'object' || Array.isArray(value) || ArrayBuffer.isView(value)) {
    fail(fn, 'options as an object', value);
  }
  return value;
}

/** Options as a plain object with only known keys (a typo is an error, not a silent default). */
export function options(value, allowed, fn, what = 'options') {
  if (value === undefined) return {};
  if (value === null || typeof value !== 'object' || Array.isArray(value) || ArrayBuffer.isView(value)) {
    fail(fn, `${what} as an object`, value);
  }
  for (const k of Object.keys(value)) {
    if (!allowed.includes(k)) {
      throw attnError('ERR_ATTN_INVALID_ARGUMENT', `${fn}: unknown ${what === 'config' ? 'config field' : 'option'} "${k}"; expected one of ${allowed.join(', ')}`);
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
    if (typeof data[i] !== 'number') throw attnError('ERR_ATTN_INVALID_TYPE', `${fn}: expected ${name} to hold numbers, got ${describe(data[i])} at index ${i}`);
    out[i] = data[i];
  }
  return out;
}

export function shapeOf(shape, fn, name) {
  if (!Array.isArray(shape) || !shape.every((s) => Number.isSafeInteger(s) && s >= 0)) {
    fail(fn, `${name} as an array of non-negative integers`, shape);
  }
  return [...shape];
}

export function flatten(nested, fn, name) {
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
      throw attnError('ERR_ATTN_INVALID_ARGUMENT', `${fn}: expected ${name} to be a rectangular nested array of shape [${shape.join(', ')}], ` +
        `got ${describe(node)} at depth ${depth}`);
    }
    for (const child of node) walk(child, depth + 1);
  };
  walk(nested, 0);
  return { data, shape };
}

/** What a user may pass as a tensor, as {data: Float32Array, shape} of matching length. */
export function asTensor(value, fn, name) {
  if (Array.isArray(value)) return flatten(value, fn, name);
  if (typeof value === 'number') return { data: new Float32Array([value]), shape: [] };
  if (value && typeof value === 'object' && 'data' in value && 'shape' in value) {
    const shape = shapeOf(value.shape, fn, `${name}.shape`);
    const data = float32(value.data, fn, `${name}.data`);
    const n = shape.reduce((a, b) => a * b, 1);
    if (data.length !== n) throw attnError('ERR_ATTN_INVALID_ARGUMENT', `${fn}: ${name} of shape [${shape.join(', ')}] needs ${n} values, got ${data.length}`);
    return { data, shape };
  }
  return fail(fn, `${name} as a tensor {data, shape} or a nested array of numbers`, value);
}

/** Integers (token ids, lengths) as a Float64Array. */
export function integers(values, fn, name) {
  if (!(Array.isArray(values) || (ArrayBuffer.isView(values) && !(values instanceof DataView) && !isBigIntArray(values)))) {
    fail(fn, `${name} as an array of integers`, values);
  }
  const out = new Float64Array(values.length);
  for (let i = 0; i < values.length; i++) {
    if (!Number.isSafeInteger(values[i])) throw attnError(numberCode(values[i]), `${fn}: expected ${name} to hold integers, got ${describe(values[i])} at index ${i}`);
    out[i] = values[i];
  }
  return out;
}

export function shapeFromArgs(args, fn) {
  const shape = args.length === 1 && Array.isArray(args[0]) ? args[0] : args;
  return shapeOf(shape, fn, 'sizes');
}


/** A dimension index as torch takes it: -D ≤ dim < D, negative counting from the end. */
export function dimension(dim, x, fn) {
  const D = x.shape.length;
  if (D === 0) refuse(fn, 'x of shape [..., T] with T > 0', x.shape);
  if (!Number.isSafeInteger(dim) || dim < -D || dim >= D) {
    fail(fn, `dim as an integer in [${-D}, ${D - 1}] for a ${D}-D tensor`, dim, numberCode(dim));
  }
  return dim;
}

const ATTENTION_OPTIONS = ['causal', 'keyLengths', 'mask', 'fillValue', 'scale', 'window'];


export function attentionOptions(value, fn) {
  const { causal = false, keyLengths = null, mask = null, fillValue = -Infinity, scale = null, window = 0 } =
    options(value, ATTENTION_OPTIONS, fn);
  return {
    causal: boolean(causal, fn, 'causal'),
    keyLengths: keyLengths === null ? null : integers(keyLengths, fn, 'keyLengths'),
    mask: mask === null ? null : asTensor(mask, fn, 'mask'),
    fillValue: number(fillValue, fn, 'fillValue'),
    scale: scale === null ? null : number(scale, fn, 'scale'),
    window: number(window, fn, 'window'),
  };
}

/** The `trace` flag of a forward's options (default true) and the attention options besides it. */
export function traceOption(value, fn) {
  const { trace = true, ...rest } = options(value, [...ATTENTION_OPTIONS, 'trace'], fn);
  return { trace: boolean(trace, fn, 'trace'), rest };
}

/** Token ids as (B, T): nested arrays, a flat array (B = 1) or {data, shape}. */
export function idsArg(ids, fn, name = 'ids') {
  if (Array.isArray(ids) && ids.length > 0 && Array.isArray(ids[0])) {
    const t = flatten(ids, fn, name);
    return { data: integers(t.data, fn, name), batch: t.shape[0] };
  }
  if (Array.isArray(ids) || ArrayBuffer.isView(ids)) return { data: integers(ids, fn, name), batch: 1 };
  if (ids && typeof ids === 'object' && 'data' in ids && 'shape' in ids) {
    const shape = shapeOf(ids.shape, fn, `${name}.shape`);
    if (shape.length > 2) refuse(fn, `${name} of shape [T] or [B, T]`, shape);
    const data = integers(ids.data, fn, `${name}.data`);
    const n = shape.reduce((a, b) => a * b, 1);
    if (data.length !== n) throw attnError('ERR_ATTN_INVALID_ARGUMENT', `${fn}: ${name} of shape [${shape.join(', ')}] need ${n} values, got ${data.length}`);
    return { data, batch: shape.length === 2 ? shape[0] : 1 };
  }
  return fail(fn, `${name} as an array of token ids (nested for a batch) or {data, shape}`, ids);
}

/**
 * A config as the JSON the bindings read (config.hpp's schema checks its names,
 * types and limits there, and suggests a name for a typo). Here only what JSON
 * cannot carry is refused: BigInt, symbols, functions, nested objects, NaN and ±Infinity.
 * A field may be an array of numbers (generate's eosTokenId); the schema checks its items.
 */
export function configJson(config, fn, what = 'config') {
  if (config === null || typeof config !== 'object' || Array.isArray(config) || ArrayBuffer.isView(config)) {
    fail(fn, `${what} as an object`, config);
  }
  return JSON.stringify(config, function field(key, value) {
    if (key === '' || value === undefined || value === null) return value;
    const inList = Array.isArray(this);
    if (typeof value === 'number' && !Number.isFinite(value)) refuse(fn, `${inList ? 'each item' : key} as a finite number`, value);
    if (inList && typeof value !== 'number') fail(fn, 'a list of numbers', this);
    if (this === config && Array.isArray(value)) return value;
    if (!['number', 'boolean', 'string'].includes(typeof value)) fail(fn, `${key} as a number, true or false, a string or a list of numbers`, value);
    return value;
  });
}
