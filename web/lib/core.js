// The API on the thread that calls it: loads the WebAssembly module and builds the
// JS API over it (index.js says what the layers are; worker.js runs this same API
// in a worker for createAttention({ worker: true })). The threaded module is not
// imported here but handed in by the entries that may run it (index.js, worker.js),
// so that the single-threaded entry (single-thread.js) never ships it.
import { fail, options, refuse } from './arguments.js';
import { attentionApi } from './attention.js';
import { bpeTokenizerApi } from './bpe-tokenizer.js';
import { attnError } from './errors.js';
import { throwingErrors } from './handles.js';
import { checkEngine, compile, folderUrl, isUrlLike, loadBytes } from './loading.js';
import { modelApi } from './model.js';
import { pretrainedApi } from './pretrained.js';
import { format, tensor, toArray } from './tensors.js';
import { planThreads } from './threads.js';
import createAttentionModule from './wasm/attention_wasm.mjs';

// The WebAssembly module, found next to this file. Vite and webpack see this
// `new URL(…, import.meta.url)` and ship the file with a bundle; other bundlers
// (esbuild) need `wasmUrl` or `wasmPaths`, for which package.json exports the file
// ("attention-step-by-step/wasm"). The model is shipped only by apps that import
// it ("attention-step-by-step/model"; model.js says why).
const WASM_URL = new URL('./wasm/attention_wasm.wasm', import.meta.url);
const WASM_FILE = 'attention_wasm.wasm';

/**
 * The options of every entry's createAttention that say where the module is, checked: at most one of
 * `wasmBinary` (its bytes), `wasmUrl` (the single-threaded .wasm) and `wasmPaths` (the folder of all the
 * package's wasm/ files, for an app that serves them itself), with `extra` keys allowed beside them.
 */
export function moduleOptions(opts, extra, fn) {
  const all = options(opts, ['wasmBinary', 'wasmUrl', 'wasmPaths', ...extra], fn);
  const { wasmBinary, wasmUrl, wasmPaths } = all;
  if ([wasmBinary, wasmUrl, wasmPaths].filter((v) => v !== undefined).length > 1) {
    refuse(fn, 'one of wasmBinary, wasmUrl and wasmPaths, not two', opts);
  }
  if (wasmUrl !== undefined && !isUrlLike(wasmUrl)) fail(fn, 'wasmUrl as a string or a URL', wasmUrl);
  if (wasmPaths !== undefined && !isUrlLike(wasmPaths)) fail(fn, 'wasmPaths as a string or a URL (the folder holding the .wasm files)', wasmPaths);
  if (wasmBinary !== undefined && !(wasmBinary instanceof ArrayBuffer || ArrayBuffer.isView(wasmBinary))) {
    fail(fn, 'wasmBinary as a Uint8Array or an ArrayBuffer', wasmBinary);
  }
  return all;
}

/**
 * Loads the WASM module and returns the API. With more than one thread planned (threads.js) and a
 * `startThreaded` to start it (threaded-module.js), that is the threaded module, which falls back to the
 * single-threaded one, with a warning, when it cannot start. The single-threaded module is the .wasm file next
 * to this one (read from disk in Node, fetched in a browser) unless `wasmUrl` or `wasmPaths` says where it is or
 * `wasmBinary` hands over its bytes (moduleOptions has checked them).
 */
export async function createAttentionHere({ wasmBinary, wasmUrl, wasmPaths, threads = 'auto' }, startThreaded = null) {
  const fn = 'createAttention';
  checkEngine(fn);
  const folder = wasmPaths === undefined ? undefined : folderUrl(wasmPaths);
  let plan = planThreads(threads, { ownModule: wasmBinary !== undefined || wasmUrl !== undefined }, fn);
  let M = null;
  if (plan.count > 1 && startThreaded) {
    try {
      M = await startThreaded(plan.count, print, fn, folder);
    } catch (e) {
      const why = `the threaded module did not start: ${e?.message ?? e}`;
      console.warn(`${fn}: running on one thread; ${why}`);
      plan = { count: 1, requested: plan.requested, reason: why };
    }
  } else if (plan.count > 1) {
    plan = { count: 1, requested: plan.requested, reason: "attention-step-by-step/single-thread runs on one thread; the package's main entry runs more" };
  }
  M ??= await startModule({ wasmBinary, wasmUrl: wasmUrl ?? (folder && new URL(WASM_FILE, folder)) }, fn);
  return makeApi(throwingErrors(M), Object.freeze(plan));
}

// The module prints nothing on success; anything it does print goes to the console's error stream, not stdout.
const print = (text) => console.warn(text);

async function startModule({ wasmBinary, wasmUrl }, fn) {
  const bytes = wasmBinary ?? (await loadBytes(wasmUrl ?? WASM_URL, fn, {
    what: 'the WebAssembly module',
    kind: 'wasm',
    change: wasmUrl ? "the address given (wasmUrl, or wasmPaths with the package's wasm/ files in it) must be where the server has the file" : undefined,
    missing: wasmUrl ? '' :
      "a bundler that does not copy it can be given its URL: import wasmUrl from 'attention-step-by-step/wasm', then createAttention({ wasmUrl }), " +
      "or the folder it serves the package's wasm/ files from: createAttention({ wasmPaths })",
  }));
  const wasmModule = await compile(bytes, fn);
  return new Promise((resolve, reject) => {
    const failed = (e) => reject(attnError('ERR_ATTN_INVALID_FILE',
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
  const model = { ...modelApi(M), ...bpeTokenizerApi(M) };
  return { tensor, toArray, format, threads, ...attentionApi(M), ...model, ...pretrainedApi(M, model) };
}
