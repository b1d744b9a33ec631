// The objects of the JS API that own WASM memory, and the boundary's error
// contract: the bindings return an Error instead of throwing it
// (cpp/bindings/convert.hpp explains why), and throwingErrors makes every
// function of the module throw it once the call has returned.
import { attnError } from './errors.js';

export const disposeSymbol = Symbol.dispose ?? Symbol.for('Symbol.dispose');

// ---- the boundary with WASM ------------------------------------------------------

/**
 * Makes every function of the bindings throw the Error it returns (see
 * cpp/bindings/convert.hpp). As a second line of defence, the WASM stack pointer is restored
 * if anything still throws from inside a call.
 */
export function throwingErrors(M) {
  const wrap = (f, label) =>
    function checked(...args) {
      const stack = M.stackSave();
      let result;
      try {
        result = f.apply(this, args);
      } catch (error) {
        M.stackRestore(stack);
        // embind refuses a handle freed after the call began (a getter of an argument disposed its object);
        // its own message names neither the call nor the cause.
        if (/Cannot pass deleted object/.test(error?.message)) {
          const what = label.includes('.') ? `the ${label.split('.')[0]}` : 'an object passed to it';
          throw attnError('ERR_ATTN_DISPOSED', `${label}: ${what} was disposed during this call (by a getter of one of its arguments); ` +
            'nothing was computed');
        }
        throw error;
      }
      // A new Error, thrown here, for a stack that shows the caller; the bindings gave it its code.
      if (result instanceof Error) throw attnError(result.code, result.message);
      return result;
    };
  // embind marks what it exports with an argCount; a class's prototype
  // derives from embind's ClassHandle, a plain function's does not.
  for (const [name, value] of Object.entries(M)) {
    if (typeof value !== 'function' || !('argCount' in value)) continue;
    const proto = value.prototype;
    if (proto && Object.getPrototypeOf(proto) !== Object.prototype) {
      for (const key of Object.getOwnPropertyNames(proto)) if (key !== 'constructor') proto[key] = wrap(proto[key], `${name}.${key}`);
      for (const key of Object.getOwnPropertyNames(value)) if (typeof value[key] === 'function') value[key] = wrap(value[key], `${name}.${key}`);
    } else {
      M[name] = wrap(value, name);
    }
  }
  return M;
}

/** Wraps an embind object that C++ created, so a JS class can own it. */
export class AdoptedHandle {
  constructor(handle) {
    this.handle = handle;
  }
}

// Frees handles the user forgot to dispose once their owner is collected (a
// safety net, not a substitute: it runs when the JS engine decides).
export const registry = new FinalizationRegistry((handle) => handle.delete());

/** A JS object owning one embind object: dispose() and [Symbol.dispose] free it. */
export class Module {
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
    if (!this.#handle) throw attnError('ERR_ATTN_DISPOSED', `${this.#name}: used after dispose()`);
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
      throw attnError(
        'ERR_ATTN_DISPOSED',
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
