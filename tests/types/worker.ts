// The API in a worker (createAttention({ worker: true })) as the README's recipes use it, type-checked
// under every set-up and run by tests/js/types.test.js: every call a Promise, objects as proxies,
// generation with for await, and what the types refuse is refused at run time too.
import { createAttention, type AsyncBPETokenizer, type AsyncGPT, type AsyncAttention, type GPTTrace, type Tensor } from 'attention-step-by-step';

const attn: AsyncAttention = await createAttention({ worker: true, threads: 2 });
await attn.manualSeed(123);
// What the worker computes on is a plain value, read without await.
const threadCount: number = attn.threads.count;
if (threadCount !== 2 || typeof attn.threads.reason !== 'string') throw new Error('unexpected threads');
const x: Tensor = attn.tensor([[0.43, 0.15, 0.89], [0.55, 0.87, 0.66]]); // tensor() stays synchronous
const weights: Tensor = (await attn.scaledDotProductAttention(x, x, x, { causal: true })).weights;

// Streaming generation into a UI, stoppable.
const { model, tokenizer } = await attn.loadDefaultModel();
const ids: number[] = await tokenizer.encode('The cats, which slept near the dog,');
const controller = new AbortController();
let text = '';
for await (const [token] of model.stream([ids], { maxNewTokens: 4, temperature: 0, signal: controller.signal })) {
  text += await tokenizer.decode([token]);
}
// A model's generation defaults are a Promise of their value, as every property of a proxy.
const stopTokens: number[] = (await model.generationConfig).eosTokenId;
for await (const [token] of model.stream([ids], { maxNewTokens: 4, topP: 0.9, eosTokenId: stopTokens.concat([0]) })) text += token;

// Attention maps of a model trained here.
const trainer = await new attn.Trainer({ model: { nLayer: 1, nEmbd: 16, nHead: 2, blockSize: 8 },
  training: { batchSize: 2, tokenizer: 'word', warmupIters: 2, lrDecayIters: 5 }, text: 'abc abd abe '.repeat(40) });
let loss = 0;
for (let i = 0; i < 5; i++) loss = (await trainer.step()).loss;
const trained: AsyncGPT = await trainer.snapshot();
const trace: GPTTrace = (await trained.forward([[0, 1, 2]], { trace: true })).trace; // { trace: true }: never null
const maps: Tensor = await attn.layerAttention(trained, [0, 1, 2], 0);
if (!(trained instanceof attn.GPT) || maps.shape[0] !== 2 || trace.layers.length !== 1) throw new Error('maps');

// Saving: the checkpoint's bytes, read back anywhere.
const bytes: Uint8Array = await trainer.checkpoint();
const { model: reloaded, iter } = await attn.loadCheckpoint(bytes);
const config = await reloaded.config;

// `worker` decided at run time: either API.
const either = await createAttention({ worker: Math.random() > 2 });
if ((await either.softmax([0, 0])).data[0] !== 0.5) throw new Error('either API computes');

const refused = [
  // @ts-expect-error a callback cannot stop a run in the worker: stream() instead
  () => model.generate([ids], { onToken: () => false }),
  // @ts-expect-error a proxy is a Promise until awaited
  () => attn.probeAgreement(new attn.GPT(), tokenizer),
];
for (const call of refused) {
  let rejected = false;
  try { await call(); } catch { rejected = true; }
  if (!rejected) throw new Error('expected a rejection');
}
// Typed only (never called: no chat model here): a chat's text or ids, each as it resolves from the worker (a user
// found `tokenize: false` typed as number[], the overload lost by the mapped type).
async function chatTypes(chat: AsyncBPETokenizer): Promise<string[]> {
  const text: string = await chat.applyChatTemplate([{ role: 'user', content: 'Hi' }], { addGenerationPrompt: true, tokenize: false });
  const turnIds: number[] = await chat.applyChatTemplate([{ role: 'user', content: 'Hi' }]);
  const decoded: string = await chat.decode(turnIds, { skipSpecialTokens: true, cleanUpTokenizationSpaces: false });
  // @ts-expect-error the ids are not a string
  const wrong: string = await chat.applyChatTemplate([{ role: 'user', content: 'Hi' }]);
  return [text, decoded, wrong];
}
void chatTypes;
await Promise.all([trainer.dispose(), trained.dispose(), reloaded.dispose(), model.dispose(), tokenizer.dispose()]);
await attn.dispose();
console.log(JSON.stringify({ text: text.length > 0, loss: Number.isFinite(loss), iter, weights: weights.shape, nLayer: config.nLayer }));
export {};
