// The threaded WebAssembly module: its three files and how it starts (threads.js plans how many threads it
// runs). A file of its own, imported only by the entries that may run threads (index.js, worker.js), so that an
// app of the single-threaded entry (single-thread.js) neither ships nor fetches it.
import { attnError } from './errors.js';
import { compile, loadBytes } from './loading.js';
import { isNode } from './threads.js';

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

/** The three files: beside this module, or in the folder `wasmPaths` names (a URL ending in '/', loading.js's folderUrl). */
function files(wasmPaths) {
  if (wasmPaths === undefined) return { glue: GLUE_URL, wasm: WASM_URL, worker: WORKER_URL };
  const at = (name) => new URL(name, wasmPaths);
  return { glue: at('attention_wasm_threads.mjs'), wasm: at('attention_wasm_threads.wasm'), worker: at('attention_wasm_threads.worker.js') };
}

/**
 * Starts the threaded module with `count` threads (this one and count − 1 workers, started once, before the
 * module is returned) and returns it. Rejects, after stopping any worker it started, when a file cannot be
 * loaded or a worker does not start within START_TIMEOUT_MS.
 */
export async function startThreadedModule(count, print, fn, wasmPaths) {
  const { glue: glueFile, wasm: wasmFile, worker: workerFile } = files(wasmPaths);
  // A worker at a data: or blob: address has an opaque origin and cannot import the glue from the page's: say
  // so now, instead of after START_TIMEOUT_MS of silence (a bundler that inlines small files does this).
  if (workerFile.protocol === 'data:' || workerFile.protocol === 'blob:') {
    throw attnError('ERR_ATTN_UNSUPPORTED', `the worker file of the threaded module was inlined as a ${workerFile.protocol} URL, from which a ` +
      'worker cannot load the module; keep it a file (Vite: build.assetsInlineLimit: 0) or give its folder as wasmPaths');
  }
  let failed;
  const failure = new Promise((_, reject) => {
    failed = reject;
  });
  const bytes = await loadBytes(wasmFile, fn, {
    what: 'the threaded WebAssembly module',
    kind: 'wasm',
    missing: wasmPaths ? "copy all of the package's wasm/ files to the folder wasmPaths names" : "give createAttention the folder the app serves the package's wasm/ files from (wasmPaths)",
  });
  const wasmModule = await compile(bytes, fn);
  const { default: createThreadedAttentionModule } = await import(/* @vite-ignore */ /* webpackIgnore: true */ glueFile.href);
  // Emscripten writes what it makes (its worker list, PThread) onto this object: kept, to stop the workers on failure.
  const settings = {
    attnWorkers: count - 1,
    // Node's worker_threads take the file URL; a browser's Worker its address.
    locateFile: (file) => (file.endsWith('.worker.js') ? (isNode() ? workerFile : workerFile.href) : file),
    mainScriptUrlOrBlob: glueFile.href,
    instantiateWasm(imports, done) {
      WebAssembly.instantiate(wasmModule, imports).then((instance) => {
        done(instance, wasmModule);  // hands the workers the module: each now loads and reports back
        // Emscripten 3.1.6's handler for a worker's error throws inside the event, where nothing can catch
        // it (in Node, an uncaught exception that ends the program): fail the start instead.
        // Cancelled, too: a browser hands a worker's unhandled error on to the thread that started it, where
        // it read as the failure of the worker of { worker: true } itself (which had started, and fell back).
        for (const worker of settings.PThread.unusedWorkers) {
          worker.onerror = (e) => {
            e?.preventDefault?.();
            failed(new Error(`a worker did not start (${e?.message || 'its script could not be loaded'})`));
          };
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
