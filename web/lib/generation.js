// A GPT's generation in JS: the stream of each step's tokens over a WASM generation session, and the options a
// call runs with, the model's generation defaults (its folder's generation_config.json, read by
// cpp/include/attn/generation_config.hpp) under the call's own. Every option's name, default and limit is
// generate.hpp's table; this file only layers the objects.
import { plainOptions } from './arguments.js';
import { attnError } from './errors.js';
import { disposeSymbol, registry } from './handles.js';

/**
 * The options a generation runs with: `defaults` (a model's, or null for the library's) with the call's options
 * over them. An option given as undefined is not given (the model's default stays), as with the library's defaults.
 */
export function generationOptions(defaults, opts, fn) {
  const plain = plainOptions(opts, fn);
  // Only the worker API's stream takes a signal (remote.js keeps it on the page's side): a call that runs here
  // returns before anything could abort it. Named, rather than refused as an unknown option or a wrong type.
  if (plain.signal !== undefined && plain.signal !== null) {
    throw attnError('ERR_ATTN_INVALID_ARGUMENT', `${fn}: expected no signal: only the stream of the worker API ` +
      '(createAttention({ worker: true })) takes one; stop a stream here with break, or by no longer calling next()');
  }
  const given = Object.entries(plain).filter(([, value]) => value !== undefined);
  return { ...defaults, ...Object.fromEntries(given) };
}

/**
 * One generation in progress, as an iterator of each step's tokens. Its
 * WASM session is freed when it finishes, fails, is returned early (a
 * `break` out of for...of) or, if dropped half-way, when it is
 * garbage-collected. It keeps its model object alive; if the model is
 * disposed meanwhile, next() throws (the session never runs on freed memory).
 * It is done when maxNewTokens are out or every row has produced a stop token (eosTokenId).
 */
export class GenerationStream {
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
