// The API on the thread that calls it: loads the WebAssembly module and builds the
// JS API over it (index.js says what the layers are; worker.js runs this same API
// in a worker for createAttention({ worker: true })).
import { attentionApi } from './attention.js';
import { throwingErrors } from './handles.js';
import { checkEngine, compile, loadBytes } from './loading.js';
import { modelApi } from './model.js';
import { pretrainedApi } from './pretrained.js';
import { format, tensor, toArray } from './tensors.js';
import { planThreads, startThreadedModule } from './threads.js';
import createAttentionModule from './wasm/attention_wasm.mjs';

// The WebAssembly module, found next to this file. Vite and webpack see this
// `new URL(…, import.meta.url)` and ship the file with a bundle; other bundlers
// (esbuild) need `wasmUrl`, for which package.json exports the file
// ("attention-step-by-step/wasm"). The model is shipped only by apps that import
// it ("attention-step-by-step/model"; model.js says why).
const WASM_URL = new URL('./wasm/attention_wasm.wasm', import.meta.url);

/**
 * Loads the WASM module and returns the API. With more than one thread planned (threads.js) that is the
 * threaded module, which falls back to the single-threaded one, with a warning, when it cannot start. The
 * single-threaded module is the .wasm file next to this one (read from disk in Node, fetched in a browser)
 * unless `wasmUrl` says where it is or `wasmBinary` hands over its bytes (index.js has checked them).
 */
export async function createAttentionHere({ wasmBinary, wasmUrl, threads = 'auto' }) {
  const fn = 'createAttention';
  checkEngine(fn);
  let plan = planThreads(threads, { ownModule: wasmBinary !== undefined || wasmUrl !== undefined }, fn);
  let M = null;
  if (plan.count > 1) {
    try {
      M = await startThreadedModule(plan.count, print, fn);
    } catch (e) {
      const why = `the threaded module did not start: ${e?.message ?? e}`;
      console.warn(`${fn}: running on one thread; ${why}`);
      plan = { count: 1, requested: plan.requested, reason: why };
    }
  }
  M ??= await startModule({ wasmBinary, wasmUrl }, fn);
  return makeApi(throwingErrors(M), Object.freeze(plan));
}

// The module prints nothing on success; anything it does print goes to the console's error stream, not stdout.
const print = (text) => console.warn(text);

async function startModule({ wasmBinary, wasmUrl }, fn) {
  const bytes = wasmBinary ?? (await loadBytes(wasmUrl ?? WASM_URL, fn, 'the WebAssembly module', wasmUrl ? '' :
    "a bundler that does not copy it can be given its URL: import wasmUrl from 'attention-step-by-step/wasm', then createAttention({ wasmUrl })"));
  const wasmModule = await compile(bytes, fn);
  return new Promise((resolve, reject) => {
    const failed = (e) => reject(new Error(
      `${fn}: could not start the WebAssembly module (is it the .wasm of this version of the package?): ${e?.message ?? e}`));
    createAttentionModule({
      instantiateWasm(imports, done) {
        // done() reads the module's exports: a different .wasm fails there, and is reported like any other failure.
        WebAssembly.instantiate(wasmModule, imports).then((instance) => done(instance, wasmModule)).catch(failed);
        return {};
      },
      print,
      printErr: print,
    }).then(resolve, failed);
  });
}

/** The API for one loaded module M running on `threads` (planThreads' { count, requested, reason }). */
function makeApi(M, threads) {
  const model = modelApi(M);
  return { tensor, toArray, format, threads, ...attentionApi(M), ...model, ...pretrainedApi(M, model) };
}
