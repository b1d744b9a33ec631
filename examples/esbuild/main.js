import { createAttention } from 'attention-step-by-step';
// esbuild does not follow new URL(…, import.meta.url), so the two files are imported
// by their export names and its file loader (--loader:.wasm=file) copies them to dist/.
import wasmUrl from 'attention-step-by-step/wasm';
import modelUrl from 'attention-step-by-step/model';

// The URLs esbuild gives are relative to the page; resolve them against this module instead.
const here = (url) => new URL(url, import.meta.url);
const attn = await createAttention({ wasmUrl: here(wasmUrl) });

const inputs = attn.tensor([[0.43, 0.15, 0.89], [0.55, 0.87, 0.66], [0.57, 0.85, 0.64],
                            [0.22, 0.58, 0.33], [0.77, 0.25, 0.10], [0.05, 0.80, 0.55]]);
document.querySelector('#weights').value = attn.format(attn.softmax(attn.attentionScoresForQuery(inputs, 1)));

const { model, tokenizer } = await attn.loadDefaultModel({ url: here(modelUrl) });
const prompt = tokenizer.encode('The cats, which slept near the dog,');
const ids = model.generate([prompt], { maxNewTokens: 1, temperature: 0 });
document.querySelector('#next-word').value = tokenizer.decode(Array.from(ids.data).slice(prompt.length));
model.dispose();
