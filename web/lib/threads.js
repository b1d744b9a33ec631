// How many threads the WebAssembly module runs on, and the threaded module that
// runs them (CMakeLists.txt builds it beside the single-threaded one).
//
// The threaded module's kernels split their work so that results are bit-identical
// on any thread count (cpp/include/attn/threads.hpp): the choice made here changes
// speed, never numbers. It needs shared memory, which Node always has and a
// browser only in a cross-origin-isolated page (COOP and COEP headers; the site's
// service worker adds them, docs/site.md). Its thread pool waits on locks, which
// a page's main thread may not do: there the threads run only behind
// createAttention({ worker: true }), and this thread keeps the single-threaded
// module, so the page never blocks on a lock.
import { fail } from './arguments.js';
import { compile, loadBytes } from './loading.js';

/** The most threads a module runs: kMaxThreads of cpp/include/attn/threads.hpp (tests/js/threads.test.js holds them equal). */
export const MAX_THREADS = 16;
/**
 * `threads: 'auto'` takes the machine's cores up to this many: kDefaultMaxThreads of cpp/include/attn/threads.hpp,
 * the native default too (tests/js/threads.test.js holds them equal).
 */
export const AUTO_THREADS = 8;
/** How long the threaded module may take to start its workers before this thread gives up on it. */
const START_TIMEOUT_MS = 30000;

// The threaded module's three files. Each is referenced as `new URL(…, import.meta.url)`, which Vite and
// webpack ship with a bundle as files of their own; they are loaded as they are, never bundled, because the
// workers Emscripten starts load the glue again by its URL. The worker file is 3 KB, under Vite's 4 KB inline
// limit: inlined as a data: URL, its worker had an opaque origin and could not import the glue on an isolated
// page (30 s of waiting, then one thread). `?no-inline` keeps it a file; Node and static servers ignore the query.
const GLUE_URL = new URL('./wasm/attention_wasm_threads.mjs', import.meta.url);
const WASM_URL = new URL('./wasm/attention_wasm_threads.wasm', import.meta.url);
const WORKER_URL = new URL('./wasm/attention_wasm_threads.worker.js?no-inline', import.meta.url);

const isNode = () => typeof globalThis.process?.versions?.node === 'string' && typeof globalThis.document === 'undefined'
  && typeof globalThis.WorkerGlobalScope === 'undefined';

function cores() {
  if (isNode()) return globalThis.process.getBuiltinModule('node:os').availableParallelism();
  return globalThis.navigator?.hardwareConcurrency ?? 1;
}

/** Refuses a `threads` option other than 'auto' or an integer from 1 to MAX_THREADS. */
export function checkThreads(threads, fn) {
  if (threads !== 'auto' && !(Number.isInteger(threads) && threads >= 1 && threads <= MAX_THREADS)) {
    fail(fn, `threads as 'auto' or an integer from 1 to ${MAX_THREADS}`, threads);
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

/**
 * Starts the threaded module with `count` threads (this one and count − 1 workers, started once, before the
 * module is returned) and returns it. Rejects, after stopping any worker it started, when a file cannot be
 * loaded or a worker does not start within START_TIMEOUT_MS.
 */
export async function startThreadedModule(count, print, fn) {
  let failed;
  const failure = new Promise((_, reject) => {
    failed = reject;
  });
  const bytes = await loadBytes(WASM_URL, fn, 'the threaded WebAssembly module');
  const wasmModule = await compile(bytes, fn);
  const { default: createThreadedAttentionModule } = await import(/* @vite-ignore */ /* webpackIgnore: true */ GLUE_URL.href);
  // Emscripten writes what it makes (its worker list, PThread) onto this object: kept, to stop the workers on failure.
  const settings = {
    attnWorkers: count - 1,
    // Node's worker_threads take the file URL; a browser's Worker its address.
    locateFile: (file) => (file.endsWith('.worker.js') ? (isNode() ? WORKER_URL : WORKER_URL.href) : file),
    mainScriptUrlOrBlob: GLUE_URL.href,
    instantiateWasm(imports, done) {
      WebAssembly.instantiate(wasmModule, imports).then((instance) => {
        done(instance, wasmModule);  // hands the workers the module: each now loads and reports back
        // Emscripten 3.1.6's handler for a worker's error throws inside the event, where nothing can catch
        // it (in Node, an uncaught exception that ends the program): fail the start instead.
        for (const worker of settings.PThread.unusedWorkers) {
          worker.onerror = (e) => failed(new Error(`a worker did not start (${e?.message || 'its script could not be loaded'})`));
        }
      }).catch(failed);
      return {};
    },
    print,
    printErr: print,
  };
  let timer;
  try {
    const M = await Promise.race([
      createThreadedAttentionModule(settings),
      failure,
      new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error(`its ${count - 1} workers did not start within ${START_TIMEOUT_MS / 1000} s`)), START_TIMEOUT_MS);
      }),
    ]);
    const set = M.setThreads(count);
    if (set instanceof Error) throw set;
    if (isNode()) unrefWorkers(M.PThread);
    return M;
  } catch (e) {
    stopWorkers(settings.PThread);
    throw e;
  } finally {
    clearTimeout(timer);
  }
}

// Node keeps a process alive while a worker is referenced; the module's workers only serve calls the program
// makes, so they should not keep it running once the program is done (as the worker of { worker: true } does not).
function unrefWorkers(PThread) {
  for (const worker of [...PThread.unusedWorkers, ...PThread.runningWorkers]) worker.unref?.();
}

function stopWorkers(PThread) {
  if (!PThread) return;
  for (const worker of [...PThread.unusedWorkers, ...PThread.runningWorkers]) worker.terminate();
}
