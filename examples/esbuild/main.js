import { createAttention } from 'attention-step-by-step';
// The model through its export name and esbuild's file loader (--loader:.safetensors=file), which copies it to dist/.
import modelUrl from 'attention-step-by-step/model';

// esbuild follows neither new Worker(new URL(…)) nor new URL(…, import.meta.url), so its build (package.json)
// bundles the package's worker as an entry of its own (dist/worker.js) and copies the package's wasm/ folder to
// dist/wasm/; the app says where both are. On a cross-origin-isolated page the worker computes on 2 threads.
const here = (path) => new URL(path, import.meta.url);
const attn = await createAttention({ worker: true, threads: 2, workerUrl: here('./worker.js'), wasmPaths: here('./wasm/') });
document.querySelector('#threads').value = `${attn.threads.count}: ${attn.threads.reason}`;

const inputs = attn.tensor([[0.43, 0.15, 0.89], [0.55, 0.87, 0.66], [0.57, 0.85, 0.64],
                            [0.22, 0.58, 0.33], [0.77, 0.25, 0.10], [0.05, 0.80, 0.55]]);
document.querySelector('#weights').value = attn.format(await attn.softmax(await attn.attentionScoresForQuery(inputs, 1)));

const { model, tokenizer } = await attn.loadDefaultModel({ url: here(modelUrl) });
const prompt = await tokenizer.encode('The cats, which slept near the dog,');
const ids = await model.generate([prompt], { maxNewTokens: 1, temperature: 0 });
document.querySelector('#next-word').value = await tokenizer.decode(Array.from(ids.data).slice(prompt.length));
await attn.dispose();
