// createAttention({ worker: true }): the API runs in a worker (worker.js) and this file mirrors it
// on the calling thread, so that a page's main thread never computes and never freezes. The
// mirror is built from the worker's own description of its API, so it has the same functions,
// classes, methods and getters, and every one returns a Promise:
//
//   const attn = await createAttention({ worker: true });
//   const { model, tokenizer } = await attn.loadDefaultModel();
//   const gpt = await new attn.GPT({ nLayer: 2 });         // a constructor resolves to the object
//   const config = await gpt.config;                       // a getter resolves to its value
//   for await (const tokens of model.stream(ids, { signal })) …
//
// Arguments are copied to the worker (the caller's arrays stay usable); results are moved back
// (their buffers are transferred, not copied). tensor, toArray and format need no WASM and stay
// synchronous. A proxy's dispose() frees its object in the worker; attn.dispose() stops the worker.
import { abortable, isSignal } from './abort.js';
import { disposeSymbol, Module } from './handles.js';
import { attnError, fromMessage } from './errors.js';
import { baseUrl } from './loading.js';
import { CALLBACK, mapDeep, REF, SIGNAL } from './messages.js';
import { format, tensor, toArray } from './tensors.js';

const asyncDisposeSymbol = Symbol.asyncDispose ?? Symbol.for('Symbol.asyncDispose');
const INTERNAL = Symbol('a proxy made by remote.js');
const otherInstance = (label, name) => attnError('ERR_ATTN_INVALID_ARGUMENT', `${label}: this ${name} belongs to another module instance (made by another ` +
  'createAttention()); objects of two instances cannot be used together');

/**
 * How long the worker of { worker: true } may take to answer, its script loaded and run (worker.js says
 * 'listening' before anything else), before createAttention gives up on it: `workerTimeoutMs`'s default.
 * A worker whose script is empty (a bundler dropped it) or never runs fires no event at all; this bound is
 * what turns that silence into an error. Loading the module afterwards is not bounded by it: a .wasm may take
 * longer to download than a script.
 */
export const WORKER_TIMEOUT_MS = 15000;

/**
 * The worker, as { file, post, listen, setBusy, terminate }: a Web Worker in a browser, a worker_thread
 * in Node. `listen(onMessage, onFailure)`; setBusy(false) lets Node exit while no call is pending. `file`
 * names its script for errors.
 */
function startWorker(workerUrl) {
  const threads = typeof Worker === 'undefined' ? globalThis.process?.getBuiltinModule?.('node:worker_threads') : null;
  if (threads) {
    // A worker inherits node's flags; --input-type (of `node --input-type=module -e …`) stops it loading a file.
    const execArgv = process.execArgv.filter((flag) => !flag.startsWith('--input-type'));
    // Ignored by bundlers: this is Node's branch, and a bundle for the browser never takes it. Otherwise webpack
    // copies worker.js unbundled, and wrote the machine's path to it into the bundle as import.meta.url.
    const given = workerUrl === undefined ? undefined : String(workerUrl.href ?? workerUrl);
    // Node's Worker takes a path, or a file: URL as a URL object only (a URL of another realm crosses as its href).
    const file = given === undefined ? new URL(/* webpackIgnore: true */ /* @vite-ignore */ './worker.js', import.meta.url)
      : /^file:/i.test(given) ? new URL(given) : given;
    const worker = new threads.Worker(file, { execArgv });
    return {
      file: String(file.href ?? file),
      post: (message) => worker.postMessage(message),
      listen(onMessage, onFailure) {
        worker.on('message', onMessage);
        worker.on('error', (error) => onFailure(error.message));
        worker.on('exit', (code) => onFailure(`it exited with code ${code}`));
      },
      setBusy: (busy) => (busy ? worker.ref() : worker.unref()),
      terminate: () => worker.terminate(),
    };
  }
  if (typeof Worker === 'undefined') throw attnError('ERR_ATTN_UNSUPPORTED', 'createAttention: worker: true needs Web Workers or Node worker_threads; this engine has neither');
  // Written out as new Worker(new URL('./worker.js', import.meta.url)) so that Vite and webpack bundle the worker;
  // its address is then the bundler's, which this code cannot read back.
  const worker = workerUrl
    ? new Worker(new URL(workerUrl.href ?? workerUrl, baseUrl()), { type: 'module' })
    : new Worker(new URL('./worker.js', import.meta.url), { type: 'module' });
  return {
    file: workerUrl ? new URL(workerUrl.href ?? workerUrl, baseUrl()).href : "attention-step-by-step/worker (as the app's bundler emitted it)",
    post: (message) => worker.postMessage(message),
    listen(onMessage, onFailure) {
      worker.addEventListener('message', (event) => onMessage(event.data));
      // A script that cannot be loaded fires an error event without a message; one that throws, an ErrorEvent
      // naming the error and its file.
      worker.addEventListener('error', (event) => {
        event.preventDefault?.();
        const where = event.filename ? ` (${event.filename}${event.lineno ? `:${event.lineno}` : ''})` : '';
        onFailure(event.message ? `${event.message}${where}` : 'its script could not be loaded (not found, refused by the Content-Security-Policy, or not a module)');
      });
      worker.addEventListener('messageerror', () => onFailure('a message from it could not be read'));
    },
    setBusy() {},
    terminate: () => worker.terminate(),
  };
}

/** The calling thread's end of one worker: requests and their replies, and the proxies of the worker's objects. */
class Connection {
  #worker;
  #pending = new Map(); // request id -> { label, callbacks, raw, resolve, reject, fail, cleanup }
  #nextId = 1;
  #stopped = null; // why calls are refused, once the worker has stopped
  #proxies = new Map(); // object id -> WeakRef of its proxy: one proxy per object
  #collected = new FinalizationRegistry((id) => this.release(id).catch(() => {}));
  classes = new Map(); // class name -> the proxy class

  constructor(worker) {
    this.#worker = worker;
    worker.listen((message) => this.#receive(message), (reason) => this.stop(`the worker stopped: ${reason}`));
  }

  /** Sends one request; resolves to its result with the worker's objects as proxies. */
  request(label, message, { raw = false } = {}) {
    if (this.#stopped) return Promise.reject(attnError('ERR_ATTN_WORKER', `${label}: ${this.#stopped}`));
    return new Promise((resolve, reject) => {
      const id = this.#nextId++;
      const callbacks = [];
      let signal = null;
      let args;
      try {
        args = message.args && this.#outgoing(message.args, label, callbacks, (s) => (signal = s));
      } catch (error) {
        return reject(error);
      }
      if (signal?.aborted) return reject(signal.reason);
      // The caller's stack, for the Error the worker's reply may become (its own stack would name only this file).
      const { stack } = new Error();
      const fail = (error) => {
        error.stack = `${error.name}: ${error.message}\n${stack.split('\n').slice(2).join('\n')}`;
        reject(error);
      };
      const entry = { label, callbacks, raw, resolve, reject, fail, cleanup: () => {} };
      if (signal) {
        // Stop waiting at once; the worker stops what it can (loadPretrained between pieces).
        const onAbort = () => {
          this.#settle(id);
          reject(signal.reason);
          this.#worker.post({ op: 'abort', id });
        };
        signal.addEventListener('abort', onAbort, { once: true });
        entry.cleanup = () => signal.removeEventListener('abort', onAbort);
      }
      try {
        this.#worker.post({ ...message, args, id });
      } catch (error) {
        entry.cleanup();
        return reject(attnError('ERR_ATTN_INVALID_ARGUMENT', `${label}: could not send its arguments to the worker: ${error.message}`));
      }
      this.#pending.set(id, entry);
      this.#worker.setBusy(true);
    });
  }

  /** Frees an object in the worker; later calls on its proxy are refused there. */
  release(id) {
    this.#proxies.delete(id);
    return this.request('dispose', { op: 'release', target: id });
  }

  /** Refuses every call from now on and fails the pending ones with `reason`. */
  stop(reason) {
    if (this.#stopped) return;
    this.#stopped = `${reason}; create another API with createAttention({ worker: true })`;
    for (const id of [...this.#pending.keys()]) {
      const { label, fail } = this.#pending.get(id);
      this.#settle(id);
      fail(attnError('ERR_ATTN_WORKER', `${label}: ${reason}`));
    }
    this.#worker.terminate();
  }

  get stopped() {
    return this.#stopped !== null;
  }

  /** The proxy of the worker's object `id`, made the first time it is seen. */
  proxy(id, className) {
    const existing = this.#proxies.get(id)?.deref();
    if (existing) return existing;
    const Class = this.classes.get(className);
    const proxy = new Class(INTERNAL, this, id);
    this.#proxies.set(id, new WeakRef(proxy));
    this.#collected.register(proxy, id, proxy);
    return proxy;
  }

  forget(proxy) {
    this.#collected.unregister(proxy);
  }

  #settle(id) {
    this.#pending.get(id)?.cleanup();
    this.#pending.delete(id);
    if (this.#pending.size === 0) this.#worker.setBusy(false);
  }

  #receive(message) {
    const entry = this.#pending.get(message.id);
    if (!entry) {
      // An aborted call's late reply: objects it made have no proxy, and nobody to free them but us.
      if (message.op === 'result') this.#releaseUnclaimed(message.value);
      return;
    }
    if (message.op === 'callback') {
      entry.callbacks[message.index](...message.args);
      return;
    }
    this.#settle(message.id);
    if (message.op === 'error') entry.fail(fromMessage(message.error));
    else entry.resolve(entry.raw ? message.value : this.#incoming(message.value));
  }

  #releaseUnclaimed(value) {
    mapDeep(value, (v) => {
      if (v === null || typeof v !== 'object' || !(REF in v)) return undefined;
      if (!this.#proxies.get(v[REF])?.deref()) this.release(v[REF]).catch(() => {});
      return v;
    });
  }

  #incoming(value) {
    return mapDeep(value, (v) => (v !== null && typeof v === 'object' && REF in v ? this.proxy(v[REF], v.className) : undefined));
  }

  #outgoing(args, label, callbacks, foundSignal) {
    return mapDeep(args, (v) => {
      if (v instanceof RemoteObject) {
        if (v._connection !== this) throw otherInstance(label, v.constructor.name);
        return { [REF]: v._id };
      }
      if (v instanceof Module) throw otherInstance(label, v.constructor.name);
      if (typeof v === 'function') return { [CALLBACK]: callbacks.push(v) - 1 };
      if (isSignal(v)) {
        foundSignal(v);
        return { [SIGNAL]: true };
      }
      // A URL object cannot be cloned; its address can.
      if (typeof URL !== 'undefined' && v instanceof URL) return v.href;
      return undefined;
    });
  }
}

/** A proxy of an object in the worker: its methods and getters return Promises. */
class RemoteObject {
  #connection;
  #id;
  #disposed = false;
  constructor(token, connection, id) {
    if (token !== INTERNAL) throw new Error('a proxy is made by the API');
    this.#connection = connection;
    this.#id = id;
  }
  get _connection() {
    return this.#connection;
  }
  get _id() {
    return this.#id;
  }
  _request(label, message, options) {
    if (this.#disposed) return Promise.reject(attnError('ERR_ATTN_DISPOSED', `${this.constructor.name}: used after dispose()`));
    return this.#connection.request(label, { ...message, target: this.#id }, options);
  }
  /** Frees the object in the worker. Safe to call twice. */
  dispose() {
    if (this.#disposed) return Promise.resolve();
    this.#disposed = true;
    this.#connection.forget(this);
    return this.#connection.stopped ? Promise.resolve() : this.#connection.release(this.#id);
  }
  [disposeSymbol]() {
    this.dispose().catch(() => {});
  }
  [asyncDisposeSymbol]() {
    return this.dispose();
  }
}

/** The proxy class of one class of the worker's API, as described by worker.js. */
function remoteClass(connection, { name, methods, getters, statics }, Parent) {
  const Class = class extends Parent {
    constructor(...args) {
      if (args[0] === INTERNAL) {
        super(...args);
        return;
      }
      // `new` cannot wait for the worker: it returns a Promise of the object, as `await new attn.GPT(config)`.
      return connection.request(name, { op: 'new', className: name, args });
    }
  };
  Object.defineProperty(Class, 'name', { value: name });
  for (const method of methods) {
    Class.prototype[method] = function (...args) {
      return this._request(`${name}.${method}`, { op: 'call', name: method, args });
    };
  }
  for (const getter of getters) {
    Object.defineProperty(Class.prototype, getter, {
      get() {
        return this._request(`${name}.${getter}`, { op: 'get', name: getter });
      },
      configurable: true,
    });
  }
  for (const method of statics) {
    Class[method] = (...args) => connection.request(`${name}.${method}`, { op: 'static', className: name, name: method, args });
  }
  return Class;
}

/**
 * One generation in the worker as an async iterator of each step's tokens. It closes (and frees
 * its session) when it ends, fails, is left by `break`, or when `signal` aborts: a pending next()
 * then rejects with the signal's reason at once.
 */
class RemoteGenerationStream {
  #model;
  #opened; // Promise of the session's id in the worker
  #signal;
  #done = false;
  constructor(model, prompt, opts) {
    this.#model = model;
    // The signal stays here; the rest of the options are the worker's to check.
    const { signal, ...rest } = opts !== null && typeof opts === 'object' ? opts : {};
    if (signal !== undefined && !isSignal(signal)) {
      this.#opened = Promise.reject(attnError('ERR_ATTN_INVALID_TYPE', `GPT.stream: expected signal as an AbortSignal, got ${typeof signal}`));
    } else {
      const args = [prompt, signal === undefined ? opts : rest];
      this.#opened = model._request('GPT.stream', { op: 'call', name: 'stream', args }, { raw: true }).then((ref) => ref[REF]);
    }
    this.#opened.catch(() => {}); // reported by next(), if it is ever called
    this.#signal = isSignal(signal) ? signal : null;
    this.#signal?.addEventListener('abort', () => this.close(), { once: true });
  }
  async next() {
    // An aborted stream throws, as an aborted fetch does, however far it got.
    this.#signal?.throwIfAborted();
    if (this.#done) return { value: undefined, done: true };
    try {
      // abortable() also at the first await: a signal that fired while the session opened was heard by no one,
      // and next() asked for a token anyway and resolved with it (100 of 100 tries).
      const id = await abortable(this.#opened, this.#signal);
      const step = this.#model._connection.request('GenerationStream.next', { op: 'call', target: id, name: 'next', args: [] });
      const result = await abortable(step, this.#signal);
      if (result.done) this.close();
      return result;
    } catch (error) {
      this.close();
      throw error;
    }
  }
  async return(value) {
    this.close();
    return { value, done: true };
  }
  async throw(error) {
    this.close();
    throw error;
  }
  [Symbol.asyncIterator]() {
    return this;
  }
  /** Stops the generation and frees its session in the worker. Safe to call twice. */
  close() {
    if (this.#done) return;
    this.#done = true;
    const connection = this.#model._connection;
    this.#opened.then((id) => connection.stopped || connection.release(id).catch(() => {}), () => {});
  }
  [disposeSymbol]() {
    this.close();
  }
  [asyncDisposeSymbol]() {
    this.close();
    return Promise.resolve();
  }
}

/** The GPT proxy's own generate and stream: a callback cannot stop a run from here, an async iterator can. */
function withGeneration(GPT) {
  GPT.prototype.generate = function (prompt, opts) {
    if (opts !== null && typeof opts === 'object' && opts.onToken !== undefined) {
      return Promise.reject(attnError('ERR_ATTN_UNSUPPORTED', 'GPT.generate: onToken cannot run in a worker (it could not stop the run); ' +
        'iterate model.stream(prompt, options) with for await, and break or abort to stop'));
    }
    return this._request('GPT.generate', { op: 'call', name: 'generate', args: [prompt, opts] });
  };
  GPT.prototype.stream = function (prompt, opts = {}) {
    return new RemoteGenerationStream(this, prompt, opts);
  };
}

/**
 * createAttention({ worker: true }): starts the worker, loads the module there and mirrors its API. The worker
 * must say it is listening within `workerTimeoutMs` (WORKER_TIMEOUT_MS by default), or this rejects naming it.
 */
export async function createAttentionInWorker({ wasmBinary, wasmUrl, wasmPaths, workerUrl, workerTimeoutMs = WORKER_TIMEOUT_MS, threads }) {
  const fn = 'createAttention';
  let worker;
  try {
    worker = startWorker(workerUrl);
  } catch (error) {
    throw error.message.startsWith(fn) ? error : attnError('ERR_ATTN_WORKER', `${fn}: could not start the worker: ${error.message}`);
  }
  const description = await new Promise((resolve, reject) => {
    const hint = workerUrl ? '' : "; a bundler that does not bundle it can be given its URL: bundle 'attention-step-by-step/worker' and pass createAttention({ worker: true, workerUrl })";
    let listening = false;
    let settled = false;
    const settle = (error, api) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (error) {
        worker.terminate();
        reject(error);
      } else {
        resolve(api);
      }
    };
    const timer = setTimeout(() => settle(attnError('ERR_ATTN_WORKER', `${fn}: the worker ${worker.file} did not answer within ${workerTimeoutMs / 1000} s: ` +
      'its script is empty, or never ran to its end (a bundler that tree-shook \'attention-step-by-step/worker\' away leaves an empty file: ' +
      `bundle it as an entry of its own, and check what its URL serves)${hint}`)), workerTimeoutMs);
    worker.listen((message) => {
      if (message?.op === 'listening') {
        listening = true;
        clearTimeout(timer);
      } else if (message?.op === 'ready') {
        settle(message.error && fromMessage(message.error), message.api);
      } else if (!listening) {
        settle(attnError('ERR_ATTN_WORKER', `${fn}: the worker ${worker.file} is not the package's worker: its first message was not the package's` +
          `; workerUrl must be the URL of 'attention-step-by-step/worker', bundled`));
      }
    }, (reason) => settle(attnError('ERR_ATTN_WORKER', `${fn}: could not start the worker ${worker.file}: ${reason}` +
      `${listening ? '' : ' before it answered (an empty script ends at once)'}${hint}`)));
    worker.setBusy(true);
    worker.post({ op: 'init', wasmBinary, wasmUrl: wasmUrl?.href ?? wasmUrl, wasmPaths: wasmPaths?.href ?? wasmPaths, threads, pageUrl: baseUrl() });
  });
  worker.setBusy(false);
  const connection = new Connection(worker);
  const api = { tensor, toArray, format, ...description.values };
  for (const name of description.functions) {
    if (!(name in api)) api[name] = (...args) => connection.request(name, { op: 'call', target: 0, name, args });
  }
  // Parents first, so that each class extends its parent's proxy class (attn.CharTokenizer extends attn.Tokenizer).
  const pending = [...description.classes];
  while (pending.length > 0) {
    const i = pending.findIndex((c) => c.parent === null || connection.classes.has(c.parent));
    const [desc] = pending.splice(i, 1);
    const Class = remoteClass(connection, desc, desc.parent ? connection.classes.get(desc.parent) : RemoteObject);
    connection.classes.set(desc.name, Class);
    api[desc.name] = Class;
  }
  withGeneration(connection.classes.get('GPT'));
  /** Stops the worker; every pending call rejects and later calls are refused. */
  api.dispose = async () => connection.stop('the API was disposed (attn.dispose())');
  api[disposeSymbol] = () => void api.dispose();
  api[asyncDisposeSymbol] = () => api.dispose();
  return api;
}
