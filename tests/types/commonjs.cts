// A CommonJS TypeScript file (module node16), as in a project without "type": "module": the package's
// require entry (index.cjs, index.d.cts) gives the same API and types. Compiled and run by types.test.js.
import { createAttention, format, type GPTConfig, type Tensor } from 'attention-step-by-step';

createAttention().then((attn) => {
  attn.manualSeed(123);
  const t: Tensor = attn.softmax([1, 2, 3]);
  const config: GPTConfig = attn.nanoGPTConfig({ vocabSize: 8, blockSize: 4, nLayer: 1, nHead: 1, nEmbd: 4 });
  const model = new attn.GPT(config);
  const { trace } = model.forward([1, 2], { trace: true });
  console.log(JSON.stringify({ softmax: format(t), heads: trace.layers[0].weights.shape[1] }));
  model.dispose();
});
