// The README's recipe for bundlers that copy files (esbuild): the .wasm and the model imported as URLs. Also
// type-checked under node16 and run in Node, where the same imports give file: URLs: the types promised an import
// Node could not run (ERR_UNKNOWN_FILE_EXTENSION ".safetensors").
import { createAttention } from 'attention-step-by-step';
import { createAttention as createSingleThreaded } from 'attention-step-by-step/single-thread';
import wasmUrl from 'attention-step-by-step/wasm';
import modelUrl from 'attention-step-by-step/model';
import inductionUrl from 'attention-step-by-step/models/induction';

const attn = await createAttention({ wasmUrl });
const model = await attn.loadDefaultModel({ url: modelUrl });
const name: string = model.model.config.nHead.toFixed(0);
const induction = await attn.loadDefaultModel({ name: 'induction', url: inductionUrl });
const layers: number = induction.model.config.nLayer;
// The single-threaded entry, its module found through wasmPaths: the folder of the .wasm files.
const single = await createSingleThreaded({ wasmPaths: new URL('.', wasmUrl) });
const threads: number = single.threads.count;
console.log(JSON.stringify({ heads: name, layers, threads }));
export { name, layers, threads };
