import { createAttention } from 'attention-step-by-step';
// The model is shipped only by apps that ask for it: its URL, as an asset/resource (webpack.config.mjs).
import modelUrl from 'attention-step-by-step/model';

// webpack 5 sees the package's new URL('…wasm', import.meta.url) and emits the file: no set-up.
const attn = await createAttention();

const inputs = attn.tensor([[0.43, 0.15, 0.89], [0.55, 0.87, 0.66], [0.57, 0.85, 0.64],
                            [0.22, 0.58, 0.33], [0.77, 0.25, 0.10], [0.05, 0.80, 0.55]]);
document.querySelector('#weights').value = attn.format(attn.softmax(attn.attentionScoresForQuery(inputs, 1)));

const { model, tokenizer } = await attn.loadDefaultModel({ url: modelUrl });
const prompt = tokenizer.encode('The cats, which slept near the dog,');
const ids = model.generate([prompt], { maxNewTokens: 1, temperature: 0 });
document.querySelector('#next-word').value = tokenizer.decode(Array.from(ids.data).slice(prompt.length));
model.dispose();
