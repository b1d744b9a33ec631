// How many threads the WebAssembly module runs on (threaded-module.js starts the
// module that runs them; CMakeLists.txt builds it beside the single-threaded one).
//
// The threaded module's kernels split their work so that results are bit-identical
// on any thread count (cpp/include/attn/threads.hpp): the choice made here changes
// speed, never numbers. It needs shared memory, which Node always has and a
// browser only in a cross-origin-isolated page (COOP and COEP headers; the site's
// service worker adds them, docs/site.md). Its thread pool waits on locks, which
// a page's main thread may not do: there the threads run only behind
// createAttention({ worker: true }), and this thread keeps the single-threaded
// module, so the page never blocks on a lock.
import { refuse } from './arguments.js';

/** The most threads a module runs: kMaxThreads of cpp/include/attn/threads.hpp (tests/js/threads.test.js holds them equal). */
export const MAX_THREADS = 16;
/**
 * `threads: 'auto'` takes the machine's cores up to this many: kDefaultMaxThreads of cpp/include/attn/threads.hpp,
 * the native default too (tests/js/threads.test.js holds them equal).
 */
export const AUTO_THREADS = 8;

export const isNode = () => typeof globalThis.process?.versions?.node === 'string' && typeof globalThis.document === 'undefined'
  && typeof globalThis.WorkerGlobalScope === 'undefined';

function cores() {
  if (isNode()) return globalThis.process.getBuiltinModule('node:os').availableParallelism();
  return globalThis.navigator?.hardwareConcurrency ?? 1;
}

/** Refuses a `threads` option other than 'auto' or an integer from 1 to MAX_THREADS. */
export function checkThreads(threads, fn) {
  if (threads !== 'auto' && !(Number.isInteger(threads) && threads >= 1 && threads <= MAX_THREADS)) {
    refuse(fn, `threads as 'auto' or an integer from 1 to ${MAX_THREADS}`, threads);
  }
}

/**
 * The thread count createAttention({ threads }) gets here, and why:
 * `{ count, requested, reason }`. `threads` is 'auto' (the default) or an integer from 1 to MAX_THREADS.
 */
export function planThreads(threads, { ownModule }, fn) {
  checkThreads(threads, fn);
  const auto = threads === 'auto';
  const plan = (count, reason) => ({ count, requested: threads, reason });
  const wanted = auto ? Math.min(cores(), AUTO_THREADS) : threads;
  if (wanted === 1) return plan(1, auto ? 'this machine has one core' : 'one thread was asked for');
  if (ownModule) {
    return plan(1, 'wasmBinary and wasmUrl name the single-threaded module; the threaded one is loaded only from beside the package');
  }
  if (!isNode()) {
    if (typeof globalThis.document !== 'undefined') {
      return plan(1, "a page's main thread may not wait for other threads: createAttention({ worker: true }) runs them in a worker");
    }
    if (!globalThis.crossOriginIsolated) {
      return plan(1, 'the page is not cross-origin isolated, so it has no shared memory (it needs the headers Cross-Origin-Opener-Policy: same-origin and Cross-Origin-Embedder-Policy: require-corp)');
    }
  }
  return plan(wanted, auto ? `${wanted} of this machine's ${cores()} cores` : `${wanted} threads were asked for`);
}
