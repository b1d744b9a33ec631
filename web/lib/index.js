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
// handles.js's `throwingErrors` throws it once the call has returned. Together they
// keep a failed call from leaking memory or breaking the module (cpp/bindings/convert.hpp
// explains why a throw from inside WASM would).
//
// The layers of this package, each a file: arguments.js (the checks), errors.js (their
// codes), tensors.js (plain tensors), handles.js (objects owning WASM memory, the error
// contract), attention.js, model.js and pretrained.js (the API), loading.js (files and the
// module), core.js (the API on this thread), threads.js and threaded-module.js (how many
// threads, and the module that runs them), and for createAttention({ worker: true })
// worker.js (the same API in a worker) and remote.js (its asynchronous mirror on this
// thread). single-thread.js is a second entry: core.js alone, without threads or worker.
import { fail, refuse } from './arguments.js';
import { createAttentionHere, moduleOptions } from './core.js';
import { isUrlLike } from './loading.js';
import { createAttentionInWorker } from './remote.js';
import { startThreadedModule } from './threaded-module.js';
import { checkThreads } from './threads.js';
import { format, tensor, toArray } from './tensors.js';

export { format, tensor, toArray };

// setTimeout's longest delay (2^31 − 1 ms, about 24.8 days; a longer one fires at once).
const MAX_TIMEOUT_MS = 2 ** 31 - 1;

/**
 * Loads the WASM module and returns the API: on this thread, or with `worker: true` in a Web
 * Worker (a worker_thread in Node) behind an API whose every call returns a Promise.
 */
export async function createAttention(opts) {
  const fn = 'createAttention';
  const { wasmBinary, wasmUrl, wasmPaths, worker = false, workerUrl, workerTimeoutMs, threads = 'auto' } =
    moduleOptions(opts, ['worker', 'workerUrl', 'workerTimeoutMs', 'threads'], fn);
  if (typeof worker !== 'boolean') fail(fn, 'worker as true or false', worker);
  if (workerUrl !== undefined && !worker) refuse(fn, 'workerUrl only with worker: true', opts);
  if (workerUrl !== undefined && !isUrlLike(workerUrl)) fail(fn, 'workerUrl as a string or a URL', workerUrl);
  if (workerTimeoutMs !== undefined && !worker) refuse(fn, 'workerTimeoutMs only with worker: true', opts);
  if (workerTimeoutMs !== undefined && typeof workerTimeoutMs !== 'number') fail(fn, 'workerTimeoutMs as a number of milliseconds', workerTimeoutMs);
  if (workerTimeoutMs !== undefined && !(workerTimeoutMs > 0 && workerTimeoutMs <= MAX_TIMEOUT_MS)) {
    refuse(fn, `workerTimeoutMs as a number of milliseconds above 0, at most ${MAX_TIMEOUT_MS} (setTimeout's longest)`, workerTimeoutMs);
  }
  // Checked here, before a worker is started for it; the worker plans with its own environment (threads.js).
  checkThreads(threads, fn);
  return worker ? createAttentionInWorker({ wasmBinary, wasmUrl, wasmPaths, workerUrl, workerTimeoutMs, threads })
    : createAttentionHere({ wasmBinary, wasmUrl, wasmPaths, threads }, startThreadedModule);
}
