// The same recipe as bench/train-shakespeare.sh, through the JS API on the
// WASM build in Node (one thread):
//   node bench/train-shakespeare-wasm.mjs path/to/tinyshakespeare.txt [maxIters]
import { readFileSync } from 'node:fs';

import { createAttention } from '../web/lib/index.js';

const [file, maxItersArg] = process.argv.slice(2);
if (!file) throw new Error('usage: node bench/train-shakespeare-wasm.mjs TEXT_FILE [maxIters]');
const maxIters = Number(maxItersArg ?? 2000);
const attn = await createAttention();
const text = readFileSync(file, 'utf8');
const trainer = new attn.Trainer({
  model: { ...attn.nanoGPTConfig({ vocabSize: 65, blockSize: 64, nLayer: 4, nHead: 4, nEmbd: 128 }), dropout: 0 },
  training: { batchSize: 12, learningRate: 1e-3, minLr: 1e-4, warmupIters: 100, lrDecayIters: 2000, beta2: 0.99, weightDecay: 0.1, gradClip: 1, seed: 1337 },
  text,
});
const start = performance.now();
const elapsed = () => ((performance.now() - start) / 1000).toFixed(1);
let trainSeconds = 0;
while (trainer.iter < maxIters) {
  if (trainer.iter % 250 === 0) {
    const e = trainer.evaluate(20);
    console.log(`step ${trainer.iter}: train loss ${e.train.toFixed(4)}, val loss ${e.val.toFixed(4)}, elapsed ${elapsed()}s`);
  }
  const t0 = performance.now();
  const r = trainer.step();
  trainSeconds += (performance.now() - t0) / 1000;
  if (r.iter % 250 === 0) {
    console.log(`iter ${r.iter}: loss ${r.loss.toFixed(4)}, ${((r.iter + 1) * 768 / trainSeconds).toFixed(0)} tokens/s, elapsed ${elapsed()}s`);
  }
}
const e = trainer.evaluate(200);
console.log(`step ${trainer.iter}: train loss ${e.train.toFixed(4)}, val loss ${e.val.toFixed(4)} (200 eval batches), elapsed ${elapsed()}s`);
trainer.dispose();
