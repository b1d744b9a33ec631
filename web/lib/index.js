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
// `throwingErrors` below throws it once the call has returned. Together they
// keep a failed call from leaking memory or breaking the module (cpp/bindings/convert.hpp
// explains why a throw from inside WASM would).
//
// The layers of this package, each a file: arguments.js (the checks), tensors.js
// (plain tensors), handles.js (objects owning WASM memory, the error contract),
// attention.js, model.js and pretrained.js (the API), loading.js (files and the module).
import { fail, options } from './arguments.js';
import { attentionApi } from './attention.js';
import { throwingErrors } from './handles.js';
import { checkEngine, compile, isUrlLike, loadBytes } from './loading.js';
import { modelApi } from './model.js';
import { pretrainedApi } from './pretrained.js';
import { format, tensor, toArray } from './tensors.js';
import createAttentionModule from './wasm/attention_wasm.mjs';

export { format, tensor, toArray };

// The WebAssembly module, found next to this file. Vite and webpack see this
// `new URL(…, import.meta.url)` and ship the file with a bundle; other bundlers
// (esbuild) need `wasmUrl`, for which package.json exports the file
// ("attention-step-by-step/wasm"). The model is shipped only by apps that import
// it ("attention-step-by-step/model"; model.js says why).
const WASM_URL = new URL('./wasm/attention_wasm.wasm', import.meta.url);

/**
 * Loads the WASM module and returns the API. The module is the .wasm file next
 * to this one (read from disk in Node, fetched in a browser) unless
 * `wasmUrl` says where it is or `wasmBinary` hands over its bytes.
 */
export async function createAttention(opts) {
  const fn = 'createAttention';
  const { wasmBinary, wasmUrl } = options(opts, ['wasmBinary', 'wasmUrl'], fn);
  if (wasmBinary !== undefined && wasmUrl !== undefined) fail(fn, 'either wasmBinary or wasmUrl, not both', opts);
  if (wasmUrl !== undefined && !isUrlLike(wasmUrl)) fail(fn, 'wasmUrl as a string or a URL', wasmUrl);
  if (wasmBinary !== undefined && !(wasmBinary instanceof ArrayBuffer || ArrayBuffer.isView(wasmBinary))) {
    fail(fn, 'wasmBinary as a Uint8Array or an ArrayBuffer', wasmBinary);
  }
  checkEngine(fn);
  const bytes = wasmBinary ?? (await loadBytes(wasmUrl ?? WASM_URL, fn, 'the WebAssembly module', wasmUrl ? '' :
    "a bundler that does not copy it can be given its URL: import wasmUrl from 'attention-step-by-step/wasm', then createAttention({ wasmUrl })"));
  const wasmModule = await compile(bytes, fn);
  const M = await new Promise((resolve, reject) => {
    const failed = (e) => reject(new Error(
      `${fn}: could not start the WebAssembly module (is it the .wasm of this version of the package?): ${e?.message ?? e}`));
    createAttentionModule({
      instantiateWasm(imports, done) {
        // done() reads the module's exports: a different .wasm fails there, and is reported like any other failure.
        WebAssembly.instantiate(wasmModule, imports).then((instance) => done(instance, wasmModule)).catch(failed);
        return {};
      },
      // The module prints nothing on success; route anything it does print to
      // the console's error stream instead of stdout.
      print: (text) => console.warn(text),
      printErr: (text) => console.warn(text),
    }).then(resolve, failed);
  });
  return makeApi(throwingErrors(M));
}

/** The API for one loaded module M. */
function makeApi(M) {
  const model = modelApi(M);
  return { tensor, toArray, format, ...attentionApi(M), ...model, ...pretrainedApi(M, model) };
}
