// The worker of createAttention({ worker: true }): the API of core.js, run in a Web Worker or a
// Node worker_thread and driven by remote.js's messages (messages.js lists them). Objects the API
// makes (a GPT, a Trainer, a generation stream) stay here under an id; the page holds proxies.
// Errors cross as their name, code and message (errors.js), so the page gets the same kind of error with the same
// code; the message already names the function, what it expected and what it got.
import { createAttentionHere } from './core.js';
import { attnError, toMessage } from './errors.js';
import { Module } from './handles.js';
import { setPageUrl } from './loading.js';
import { startThreadedModule } from './threaded-module.js';
import { CALLBACK, mapDeep, REF, SIGNAL, transferablesOf } from './messages.js';

// A Web Worker talks through its global scope, a worker_thread through parentPort.
const port = globalThis.process?.getBuiltinModule?.('node:worker_threads')?.parentPort ?? globalThis;
const post = (message, transfer = []) => port.postMessage(message, transfer);

let api = null;
const objects = new Map(); // id -> a Module or a generation stream
const ids = new WeakMap(); // the other way, so an object handed out twice keeps one id (and one proxy)
let nextId = 1;
const aborts = new Map(); // call id -> the AbortController standing in for the page's AbortSignal

const isStream = (value) => typeof value?.next === 'function' && typeof value?.close === 'function';

let classNames = new Map(); // each class of the API -> its name there (a bundler may rename the class itself)

/** The name under which the API exports the class of `value`, or of the nearest class it derives from. */
function classNameOf(value) {
  for (let proto = Object.getPrototypeOf(value); proto; proto = Object.getPrototypeOf(proto)) {
    const name = classNames.get(proto.constructor);
    if (name) return name;
  }
  return 'GenerationStream';
}

/** An object of the API as a reference the page turns into a proxy. */
function refTo(value) {
  let id = ids.get(value);
  if (id === undefined) {
    id = nextId++;
    ids.set(value, id);
    objects.set(id, value);
  }
  return { [REF]: id, className: classNameOf(value) };
}

const outgoing = (value) => mapDeep(value, (v) => (v instanceof Module || isStream(v) ? refTo(v) : undefined));

function objectOf(id) {
  const object = objects.get(id);
  // The page never sends an id it did not get; one it released is refused as the object would be.
  if (!object) throw attnError('ERR_ATTN_DISPOSED', 'this object was disposed');
  return object;
}

function incoming(args, id) {
  return mapDeep(args, (v) => {
    if (v === null || typeof v !== 'object') return undefined;
    if (REF in v) return objectOf(v[REF]);
    if (CALLBACK in v) return (...callbackArgs) => post({ op: 'callback', id, index: v[CALLBACK], args: callbackArgs });
    if (SIGNAL in v) {
      const controller = new AbortController();
      aborts.set(id, controller);
      return controller.signal;
    }
    return undefined;
  });
}

/**
 * The classes of the API, its functions and its plain values (attn.threads), so that remote.js can build the
 * same API of Promises.
 */
function describe() {
  const classes = [];
  const functions = [];
  const values = {};
  for (const [name, value] of Object.entries(api)) {
    if (typeof value !== 'function') {
      values[name] = value;
      continue;
    }
    if (!(value.prototype instanceof Module)) {
      functions.push(name);
      continue;
    }
    const methods = new Set();
    const getters = new Set();
    for (let proto = value.prototype; proto !== Object.prototype; proto = Object.getPrototypeOf(proto)) {
      for (const [key, d] of Object.entries(Object.getOwnPropertyDescriptors(proto))) {
        if (key === 'constructor' || key === 'dispose' || key.startsWith('_')) continue;
        (d.get ? getters : methods).add(key);
      }
    }
    const statics = new Set();
    for (let c = value; c !== Function.prototype; c = Object.getPrototypeOf(c)) {
      for (const key of Object.getOwnPropertyNames(c)) if (typeof c[key] === 'function' && key !== 'constructor') statics.add(key);
    }
    const parent = Object.entries(api).find(([, v]) => v === Object.getPrototypeOf(value))?.[0] ?? null;
    classes.push({ name, parent, methods: [...methods], getters: [...getters], statics: [...statics] });
  }
  return { functions, classes, values };
}

async function run({ op, target, className, name, args }, id) {
  const object = () => (target === 0 ? api : objectOf(target));
  switch (op) {
    case 'call': return object()[name](...incoming(args, id));
    case 'get': return object()[name];
    case 'new': return new api[className](...incoming(args, id));
    case 'static': return api[className][name](...incoming(args, id));
    case 'release': return release(target);
    default: throw attnError('ERR_ATTN_INTERNAL', `unknown operation ${op}`);
  }
}

function release(target) {
  const object = objects.get(target);
  if (!object) return;
  if (object instanceof Module) object.dispose();
  else object.close();
  objects.delete(target);
}

async function receive(message) {
  if (message.op === 'init') {
    setPageUrl(message.pageUrl);
    try {
      api = await createAttentionHere(message, startThreadedModule);
      classNames = new Map(Object.entries(api).filter(([, v]) => v?.prototype instanceof Module).map(([name, v]) => [v, name]));
      post({ op: 'ready', api: describe() });
    } catch (error) {
      post({ op: 'ready', error: toMessage(error) });
    }
    return;
  }
  if (message.op === 'abort') {
    aborts.get(message.id)?.abort();
    return;
  }
  const { id } = message;
  try {
    const value = outgoing(await run(message, id));
    post({ op: 'result', id, value }, transferablesOf(value));
  } catch (error) {
    post({ op: 'error', id, error: toMessage(error) });
  } finally {
    aborts.delete(id);
  }
}

if (port.on) port.on('message', receive);
else port.addEventListener('message', (event) => receive(event.data));
// The first message, sent once this script has run: the page's side gives a worker that never says it
// (an empty script, one that never ran) workerTimeoutMs, then a named error (remote.js).
post({ op: 'listening' });
