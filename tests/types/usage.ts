// The published types, used as the README and the tests use the API. Compiled
// by tests/js/types.test.js under three set-ups (a browser-only lib, Node's
// node16 resolution, a bundler's) and then run: every line that type-checks
// must also work, and each @ts-expect-error line is one the API refuses at
// run time too (the catch blocks check that it throws).
import {
  createAttention, format, tensor, toArray,
  type AttentionTrace, type CachedModel, type GPTConfig, type IntTensor, type NestedArray, type Tensor, type Tokenizer,
} from 'attention-step-by-step';

const attn = await createAttention({ threads: 'auto' });
attn.manualSeed(123);
if (attn.threads.count < 1 || attn.threads.requested !== 'auto') throw new Error('unexpected threads');

// Every accepted form of a tensor argument.
const nested: Tensor = tensor([[0.43, 0.15, 0.89], [0.55, 0.87, 0.66]]);
const flat: Tensor = tensor([0.43, 0.15, 0.89, 0.55, 0.87, 0.66], [2, 3]);
const typed: Tensor = tensor({ data: new Float64Array(6), shape: [2, 3] });
attn.softmax([1, 2, 3]);
attn.softmax({ data: [1, 2, 3, 4], shape: [2, 2] }, 0);
attn.softmax(nested, -1);
const printed: string = format(attn.softmax(flat, 0));
const rows: NestedArray = toArray(typed);
const ids: IntTensor = attn.randint(0, 10, [2, 3]);
const idRows = attn.toArray(ids) as number[][];
if (idRows[1].length !== 3 || !printed.startsWith('tensor([[') || !Array.isArray(rows)) throw new Error('unexpected result');
for (const bad of [() => {
  // @ts-expect-error strings are not numbers
  attn.softmax(['1', '2']);
}, async () => {
  // @ts-expect-error a thread count is a number or 'auto'
  await createAttention({ threads: '2' });
}, () => {
  // @ts-expect-error a tensor needs a shape
  attn.softmax({ data: [1, 2] });
}]) {
  let threw = false;
  try { await bad(); } catch { threw = true; }
  if (!threw) throw new Error('expected a throw');
}

const sa = new attn.SelfAttentionV1(3, 2);
const ctx: Float32Array = sa.forward(nested).context.data;
const explained: number = attn.explainScore(sa.forward(nested), 0, 1).scaledScore;
sa[Symbol.dispose]();
const a: AttentionTrace = attn.scaledDotProductAttention(nested, nested, nested, { causal: true, fillValue: -1e9 });
const fast: Tensor = attn.attention(nested, nested, nested, { causal: true });
if (fast.shape[0] !== a.output.shape[0]) throw new Error('attention');
const w: number[] = a.weights.shape;
const config: GPTConfig = attn.nanoGPTConfig({ vocabSize: 65, blockSize: 64, nLayer: 2, nHead: 2, nEmbd: 16 });
const model = new attn.GPT({ ...config, dropout: 0 });
const { logits, trace } = model.forward([[1, 2, 3]], { trace: true });
const heads: number = trace.layers[0].weights.shape[1]; // { trace: true }: never null, no `!` needed
const untraced: null = model.forward([1, 2]).trace;
const traceWhen = (wanted: boolean) => model.forward([1, 2], { trace: wanted }).trace; // GPTTrace | null
if (untraced !== null || traceWhen(false) !== null || traceWhen(true) === null) throw new Error('trace');
const ablated: Tensor = model.forward([1, 2], { headMask: [[1, 0], [1, 1]] }).logits;
const out: IntTensor = model.generate([1, 2], { maxNewTokens: 3, onToken: (t: number[], step: number) => step < 2 });
for (const step of model.stream([1], { maxNewTokens: 2, topK: 5 })) step.length;
for (const step of model.stream([[1], [2]], { maxNewTokens: 4, topP: 0.9, eosTokenId: [0, 1], padTokenId: null })) step.length;
model.generate([1], { maxNewTokens: 2, eosTokenId: 0 });
const stops: number[] = model.generationConfig.eosTokenId;
const nucleus: number = model.generationConfig.topP;
if (stops.length !== 0 || nucleus !== 1) throw new Error('a model made here has the library\'s generation defaults');
const defaults = attn.defaultGenerateOptions();
const cooler: number = defaults.temperature * 0.8;
model.generate([1], { ...defaults, temperature: cooler, seed: null });
const stream = model.stream([1]);
const first: number[] | undefined = stream.next().value;
stream.close();

// Tokenizers: both kinds are Tokenizers, and instanceof narrows as it does at run time.
const tok = new attn.CharTokenizer('abc');
const text: string = tok.decode(tok.encode('cab'));
const words = new attn.WordTokenizer('The cats purr.');
const kind: 'word' = words.kind;
const restored: Tokenizer = attn.Tokenizer.fromVocabulary('word', words.vocabulary);
if (!(restored instanceof attn.Tokenizer) || !(restored instanceof attn.WordTokenizer)) throw new Error('instanceof');
const pieces: readonly string[] = restored.pieces;
const wordModel = new attn.GPT({ ...config, vocabSize: words.vocabSize });
const saved: Uint8Array = wordModel.checkpoint(words);
wordModel.dispose();
const mha = new attn.MultiHeadAttention(8, 2);
mha.forward(attn.randn(1, 3, 8)).averageWeights.data;
const outputOnly: { output: Tensor } = mha.forward(attn.randn(1, 3, 8), { causal: true, trace: false });
if (outputOnly.output.shape[2] !== 8) throw new Error('trace: false');
mha.dispose();

const trainer = new attn.Trainer({ model: { nLayer: 1, nEmbd: 16, nHead: 2, blockSize: 8 },
  training: { batchSize: 2, tokenizer: 'word' }, text: 'abc abd abe '.repeat(40) });
const loss: number = trainer.step().loss;
const bytes: Uint8Array = trainer.checkpoint();
trainer.dispose();
const { model: loaded, iter, verified } = attn.loadCheckpoint(bytes);
loaded.dispose();
const { memoryBytes, heapBytes }: { memoryBytes: number; heapBytes: number } = attn.memoryUsage();
const pretrained = await attn.loadDefaultModel();
pretrained.tokenizer.encode('The cats');
const again = await attn.loadDefaultModel({ bytes: pretrained.model.checkpoint(pretrained.tokenizer) });
const induction = await attn.loadDefaultModel({ name: 'induction' });
const recipe = attn.inductionRecipe();
const attnOnly: boolean = recipe.model.attnOnly && recipe.training.task === 'repeats';
const scores = attn.headScores(induction.model, { batchSize: 2, ablation: false });
const prefix: Float32Array = scores.prefixMatching.data;
const gain: number | undefined = scores.inContextLossGain?.data[0];
const firstCopy: number = scores.repeats[0].first + scores.firstRepeatLoss + scores.secondRepeatLoss + scores.sequences.data[0];
const drawn = attn.repeatedSequences({ length: 8, vocabSize: 4, seed: 1 });
induction.model.dispose();
// Models by Hub id: the options, the texts beside the model, and the cache (empty here: the folder does not exist).
const byId = (signal: AbortSignal) => attn.loadPretrained('HuggingFaceTB/SmolLM2-135M', { revision: 'refs/pr/1',
  hubUrl: new URL('https://huggingface.co'), accessToken: 'hf_token', signal, onProgress: ({ loaded, total }) => loaded / total });
const template = async (): Promise<string | null> => (await byId(new AbortController().signal)).files.chatTemplateJinja;
const noCache = { cacheDir: '/nonexistent/attention-step-by-step-types-cache' };
const cachedList: CachedModel[] = await attn.cachedModels(noCache);
const removed: boolean = await attn.removeCachedModel('HuggingFaceTB/SmolLM2-135M', { ...noCache, revision: 'main' });
if (cachedList.length !== 0 || removed || typeof template !== 'function') throw new Error('an empty cache');
for (const bad of [async () => {
  // @ts-expect-error a revision is a string
  await attn.loadPretrained('HuggingFaceTB/SmolLM2-135M', { revision: 1 });
}, async () => {
  // @ts-expect-error a cached model's id is a string
  await attn.removeCachedModel({ id: 'x' });
}]) {
  let threw = false;
  try { await bad(); } catch { threw = true; }
  if (!threw) throw new Error('expected a throw');
}
const linear = new attn.Linear(2, 2);
linear.forward([[1, 2]]);
linear[Symbol.dispose]();
again.model.dispose();
pretrained.model.dispose();
model.dispose();
console.log(JSON.stringify({ ok: true, loss: Number.isFinite(loss), iter, verified, memory: memoryBytes > heapBytes,
  induction: attnOnly && prefix.length === 4 && gain === undefined && firstCopy >= 0 && drawn.repeats.length === 1 }));
export { ctx, w, logits, heads, out, text, kind, pieces, first, saved };
