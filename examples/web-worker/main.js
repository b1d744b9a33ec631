// The page stays responsive: createAttention({ worker: true }) runs the WebAssembly module in a
// worker, and every call returns a Promise. The page streams a generation into itself as it is
// made (Stop aborts it), then trains a small model for 200 steps, drawing the loss as it falls.
import { createAttention } from 'attention-step-by-step';
import modelUrl from 'attention-step-by-step/model?url'; // the model, shipped because it is imported

const $ = (selector) => document.querySelector(selector);
const attn = await createAttention({ worker: true });

const inputs = attn.tensor([[0.43, 0.15, 0.89], [0.55, 0.87, 0.66], [0.57, 0.85, 0.64],
                            [0.22, 0.58, 0.33], [0.77, 0.25, 0.10], [0.05, 0.80, 0.55]]);
$('#weights').value = attn.format(await attn.softmax(await attn.attentionScoresForQuery(inputs, 1)));

// Streaming into the page, a word at a time; Stop aborts the generation in the worker.
const { model, tokenizer } = await attn.loadDefaultModel({ url: modelUrl });
const prompt = await tokenizer.encode('The cats, which slept near the dog,');
const stop = new AbortController();
$('#stop').addEventListener('click', () => stop.abort());
let words = 0;
try {
  for await (const [token] of model.stream([prompt], { maxNewTokens: 60, temperature: 0, signal: stop.signal })) {
    const word = await tokenizer.decode([token]);
    if (words++ === 0) $('#next-word').value = word;
    $('#continuation').value += word;
  }
} catch (error) {
  if (error.name !== 'AbortError') throw error;
}
await Promise.all([model.dispose(), tokenizer.dispose()]);

// Training in the worker: the page draws each step's loss while the next one computes.
const trainer = await new attn.Trainer({
  text: await attn.agreementCorpus(2000),
  model: { nLayer: 2, nHead: 2, nEmbd: 32, blockSize: 32 },
  training: { tokenizer: 'word', batchSize: 8, learningRate: 3e-3, warmupIters: 20, lrDecayIters: 200, minLr: 3e-4 },
});
for (let i = 0; i < 200; i++) {
  const { iter, loss } = await trainer.step();
  $('#progress').value = iter + 1;
  $('#loss').value = loss.toFixed(3);
}
await trainer.dispose();
$('#trained').value = 'done';
