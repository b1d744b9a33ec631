// Node: a model you bring. Loads a Hugging Face GPT-2 folder (config.json, model.safetensors, and vocab.json +
// merges.txt or tokenizer.json) and prints what each of its heads does on a text, the heads that attend most to
// the previous token first, then the model's next token. Layers and heads are numbered from 0, as the API, the CLI's
// --ablate and the site's links number them.
//
//   node index.mjs path/to/gpt2 "The cat sat on the mat. The cat sat on the"
import { createAttention } from 'attention-step-by-step';

const [folder, text = 'The cat sat on the mat. The cat sat on the'] = process.argv.slice(2);
if (!folder) {
  console.error('usage: node index.mjs MODEL_FOLDER [TEXT]');
  process.exit(2);
}

const attn = await createAttention();
const { model, tokenizer } = await attn.loadPretrained(folder, {
  onProgress: ({ loaded, total }) => process.stderr.write(`\rreading the weights: ${Math.round((100 * loaded) / total)}%`),
});
process.stderr.write('\n');
const { nLayer, nHead } = model.config;
const ids = tokenizer.encode(text);
const s = attn.summarizeHeads(model, ids);

const rows = [];
for (let l = 0; l < nLayer; l++) {
  for (let h = 0; h < nHead; h++) {
    const k = l * nHead + h;
    rows.push([l, h, s.previousToken.data[k], s.firstToken.data[k], s.meanDistance.data[k], s.entropy.data[k]]);
  }
}
rows.sort((a, b) => b[2] - a[2] || a[0] - b[0] || a[1] - b[1]);
console.log(`${ids.length} tokens; ${nLayer} layers × ${nHead} heads`);
console.log('layer head  previous  first  distance  entropy');
for (const [l, h, prev, first, distance, entropy] of rows) {
  console.log(`${String(l).padStart(5)} ${String(h).padStart(4)}  ${prev.toFixed(3).padStart(8)}  ${first.toFixed(3).padStart(5)}` +
    `  ${distance.toFixed(2).padStart(8)}  ${entropy.toFixed(2).padStart(7)}`);
}
const next = s.nextLogits.data.indexOf(Math.max(...s.nextLogits.data));
console.log(`next token: ${JSON.stringify(tokenizer.decode([next]))}`);
model.dispose();
tokenizer.dispose();
