// A CommonJS TypeScript file (module node16), as in a project without "type": "module": the package's
// require entries (index.cjs, single-thread.cjs, the files' URLs and the worker, with their .d.cts) give the same API
// and types. Compiled and run by types.test.js. Every entry is required here: arethetypeswrong once found that
// CommonJS reached ES modules (which TypeScript's node16 refuses to require) and a worker without types.
import { createAttention, format, type GPTConfig, type Tensor } from 'attention-step-by-step';
import single = require('attention-step-by-step/single-thread');
import wasmUrl = require('attention-step-by-step/wasm');
import modelUrl = require('attention-step-by-step/model');
import inductionUrl = require('attention-step-by-step/models/induction');

const workerPath: string = require.resolve('attention-step-by-step/worker');

Promise.all([createAttention(), single.createAttention({ wasmUrl })]).then(async ([attn, oneThread]) => {
  attn.manualSeed(123);
  const t: Tensor = attn.softmax([1, 2, 3]);
  const config: GPTConfig = attn.nanoGPTConfig({ vocabSize: 8, blockSize: 4, nLayer: 1, nHead: 1, nEmbd: 4 });
  const model = new attn.GPT(config);
  const { trace } = model.forward([1, 2], { trace: true });
  const agreement = await oneThread.loadDefaultModel({ url: modelUrl });
  const induction = await oneThread.loadDefaultModel({ name: 'induction', url: inductionUrl });
  console.log(JSON.stringify({
    softmax: format(t), heads: trace.layers[0].weights.shape[1], threads: oneThread.threads.count,
    layers: [agreement.model.config.nLayer, induction.model.config.nLayer], worker: workerPath.endsWith('worker.cjs'),
  }));
  model.dispose();
  agreement.model.dispose();
  induction.model.dispose();
});
