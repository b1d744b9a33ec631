// Compiled (not run) by types.test.js: the published .d.ts must describe the
// API as the README and the tests use it.
import { createAttention, tensor, type AttentionTrace, type GPTConfig, type Tensor } from '../../web/lib/index.js';

const attn = await createAttention();
attn.manualSeed(123);
const inputs: Tensor = tensor([[0.43, 0.15, 0.89], [0.55, 0.87, 0.66]]);
const sa = attn.SelfAttentionV1 ? new attn.SelfAttentionV1(3, 2) : null;
const ctx: Float32Array | undefined = sa?.forward(inputs).context.data;
sa?.[Symbol.dispose]();
const a: AttentionTrace = attn.scaledDotProductAttention(inputs, inputs, inputs, { causal: true, fillValue: -1e9 });
const w: number[] = a.weights.shape;
const config: GPTConfig = attn.nanoGPTConfig({ vocabSize: 65, blockSize: 64, nLayer: 4, nHead: 4, nEmbd: 128 });
const model = new attn.GPT({ ...config, dropout: 0 });
const { logits, trace } = model.forward([[1, 2, 3]], { trace: true });
const heads: number | undefined = trace?.layers[0].weights.shape[1];
const out = model.generate([1, 2], { maxNewTokens: 3, onToken: (t: number[], step: number) => step < 2 });
for (const step of model.stream([1], { maxNewTokens: 2, topK: 5 })) step.length;
const stream = model.stream([1]);
const first: number[] | undefined = stream.next().value;
stream.close();
const tok = new attn.CharTokenizer('abc');
const text: string = tok.decode(tok.encode('cab'));
const words = new attn.WordTokenizer('The cats purr.');
const kind: 'word' = words.kind;
const pieces: readonly string[] = attn.Tokenizer.fromVocabulary('word', words.vocabulary).pieces;
model.checkpoint(words);
const mha = new attn.MultiHeadAttention(8, 2);
mha.forward(attn.randn(1, 3, 8)).averageWeights.data;
const trainer = new attn.Trainer({ model: { nLayer: 1 }, training: { batchSize: 4, tokenizer: 'word' }, text: 'abc abc abc' });
const step: number = trainer.step().loss;
const bytes: Uint8Array = trainer.checkpoint();
const { model: loaded, iter, verified } = attn.loadCheckpoint(bytes);
const { memoryBytes, heapBytes }: { memoryBytes: number; heapBytes: number } = attn.memoryUsage();
const pretrained = await attn.loadDefaultModel();
pretrained.tokenizer.encode('The cats');
model.dispose();
export { step, loaded, iter, verified, first, memoryBytes, heapBytes };
export { ctx, w, logits, heads, out, text, kind, pieces };
