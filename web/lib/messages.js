// What crosses between remote.js (the page's side) and worker.js (the worker's) for
// createAttention({ worker: true }). Values cross by structured clone, except what cannot:
// an object living in the worker crosses as { [REF]: id, className }, a function the page
// passes (loadPretrained's onProgress) as { [CALLBACK]: index }, an AbortSignal as { [SIGNAL]: true }.
//
// Messages to the worker: { op: 'init', wasmBinary?, wasmUrl?, wasmPaths?, threads, pageUrl }, then
//   { op: 'call', id, target, name, args }   target: 0 (the API) or an object's id; a function or method
//   { op: 'get', id, target, name }          a getter of an object
//   { op: 'new', id, className, args }       a constructor
//   { op: 'static', id, className, name, args }
//   { op: 'release', id, target }            dispose() an object (close() a stream) and forget it
//   { op: 'abort', id }                      the call's AbortSignal fired
// Messages from it: { op: 'listening' } once its script has run, then { op: 'ready', api } or
//   { op: 'ready', error }, { op: 'result', id, value },
//   { op: 'error', id, error }, { op: 'callback', id, index, args }; an error as errors.js's toMessage writes it.
export const REF = '$attentionRef';
export const CALLBACK = '$attentionCallback';
export const SIGNAL = '$attentionSignal';

const isPlain = (value) => {
  if (value === null || typeof value !== 'object') return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
};

/**
 * `value` with `replace` applied to every value inside plain objects and arrays (the shapes the API's
 * arguments and results take); `replace(v)` returns a replacement or undefined to keep looking inside v.
 */
export function mapDeep(value, replace) {
  const replaced = replace(value);
  if (replaced !== undefined) return replaced;
  if (Array.isArray(value)) return value.map((v) => mapDeep(v, replace));
  if (isPlain(value)) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, mapDeep(v, replace)]));
  return value;
}

/** The buffers of the typed arrays in a result, each once: moved to the other side instead of copied. */
export function transferablesOf(value, found = new Set()) {
  if (ArrayBuffer.isView(value)) {
    if (value.buffer instanceof ArrayBuffer) found.add(value.buffer);
  } else if (Array.isArray(value)) {
    for (const v of value) transferablesOf(v, found);
  } else if (isPlain(value)) {
    for (const v of Object.values(value)) transferablesOf(v, found);
  }
  return [...found];
}
