// The package's second entry, 'attention-step-by-step/single-thread': the same API on the calling thread, on
// one thread, with nothing else. An app that imports it ships the single-threaded module alone: neither the
// threaded module (3 files, threaded-module.js) nor the worker of { worker: true } (worker.js), which the main
// entry references so that bundlers ship them. What a page's main thread can run anyway, since it may not
// wait for other threads (threads.js).
import { createAttentionHere, moduleOptions } from './core.js';
import { format, tensor, toArray } from './tensors.js';

export { format, tensor, toArray };

/** Loads the single-threaded WASM module on this thread and returns the API. */
export async function createAttention(opts) {
  const { wasmBinary, wasmUrl, wasmPaths } = moduleOptions(opts, [], 'createAttention');
  return createAttentionHere({ wasmBinary, wasmUrl, wasmPaths });
}
