/**
 * attention-step-by-step: self-attention exactly as the teaching notebooks
 * build it, computed by a C++ library compiled to WebAssembly.
 *
 * @example
 * import { createAttention } from 'attention-step-by-step';
 * const attn = await createAttention();
 * attn.manualSeed(123);                          // torch.manual_seed(123)
 * const sa = new attn.SelfAttentionV1(3, 2);     // SelfAttentionV1(d_in, d_out)
 * const trace = sa.forward([[0.43, 0.15, 0.89], [0.55, 0.87, 0.66]]);
 * trace.queries; // { data: Float32Array, shape: [2, 2] }
 * sa.dispose();
 */

// Symbol.dispose for TypeScript set-ups whose lib predates it (ES2022 + DOM):
// the same declaration TypeScript's own esnext.disposable lib makes, with which it merges.
declare global {
  interface SymbolConstructor {
    readonly dispose: unique symbol;
  }
}

// The language model (model.js) has its types in model.d.ts: used here, and exported with the rest.
import type { GPTConfig, GenerateOptions, GenerationConfig, GPT, TrainConfig, Trainer, LoadedCheckpoint, AgreementReport,
  TokenizerKind, Tokenizer, CharTokenizer, WordTokenizer } from './model.js';
export type { GPTConfig, GPTLayerTrace, GPTTrace, GenerateOptions, GenerationConfig, Ids, GPT, GenerationStream, TrainConfig,
  StepResult, EvalResult, Trainer, LoadedCheckpoint, AgreementReport, TokenizerKind, Tokenizer, CharTokenizer,
  WordTokenizer } from './model.js';
// Bringing your own model (pretrained.js) has its types in pretrained.d.ts: used here, and exported with the rest.
import type { ApplyChatTemplateOptions, BPETokenizer, BPETokenizerFiles, CachedModel, ChatMessage, HeadMap, HeadScores, HeadSummary, HubOptions, RepeatedSequences, LoadedPretrained, LoadPretrainedOptions, ModelFolder,
  PretrainedFiles } from './pretrained.js';
export type { ApplyChatTemplateOptions, BPETokenizer, BPETokenizerFiles, CachedModel, ChatMessage, HeadMap, HeadScores, HeadSummary, HubOptions, RepeatedSequences, LoadedPretrained, LoadPretrainedOptions, ModelFolder,
  PretrainedFiles } from './pretrained.js';
// createAttention's options and the threads it got are in options.d.ts, the errors every function throws in errors.d.ts.
import type { CreateAttentionOptions, Threads, UrlLike } from './options.js';
import type { AttentionError } from './errors.js';
import type { Positions } from './positions.js';
import type { AtScale } from './scale.js';
import type { ScoreExplanation } from './score-explanation.js';
export type { Positions, RopeSettings } from './positions.js';
export type { AtScale, OnlineSoftmaxTrace } from './scale.js';
export type { ScoreExplanation } from './score-explanation.js';
export type { CreateAttentionOptions, ModuleSource, Threads, UrlLike } from './options.js';
export type { AttentionError, AttentionErrorCode } from './errors.js';
// The same API in a worker (remote.js) has its types in remote.d.ts, derived from these.
import type { AsyncAttention } from './remote.js';
export type {
  AsyncAttention, AsyncBPETokenizer, AsyncGenerationStream, AsyncGPT, AsyncMultiHeadAttention, AsyncTorchMultiheadAttention, InWorker, Remote, RemoteHandle,
} from './remote.js';

/** A dense float32 tensor, row-major. Arrays returned by the API are JS-owned copies. */
export interface Tensor {
  data: Float32Array;
  shape: number[];
}

/** Integer tensor (token ids from `randint`). */
export interface IntTensor {
  data: Int32Array;
  shape: number[];
}

/** What a function accepts as a tensor: a Tensor, `{data: number[], shape}`, or nested arrays. */
export type TensorLike = Tensor | { data: ArrayLike<number>; shape: number[] } | number[] | number[][] | number[][][] | number[][][][];

/** Notebook 000's attention without trainable weights. */
export interface SimpleAttentionTrace {
  /** (T, T) ω = X Xᵀ */
  scores: Tensor;
  /** (T, T) α = softmax(ω, dim=-1) */
  weights: Tensor;
  /** (T, d) Z = α X */
  context: Tensor;
}

/** Every intermediate of a SelfAttention forward pass. */
export interface SelfAttentionTrace {
  /** (..., T, d_out) */
  queries: Tensor;
  /** (..., T, d_out) */
  keys: Tensor;
  /** (..., T, d_out) */
  values: Tensor;
  /** (..., T, T) queries @ keysᵀ */
  scores: Tensor;
  /** (..., T, T) scores / √d_k */
  scaledScores: Tensor;
  /** (..., T, T) softmax(scaledScores, dim=-1) */
  weights: Tensor;
  /** (..., T, d_out) weights @ values */
  context: Tensor;
}

export interface AttentionOptions {
  /** Query i attends to keys j ≤ i + (T_k − T_q) only (torch.tril for square scores). */
  causal?: boolean;
  /** Key padding: one length per batch row (dimension 0); keys at positions ≥ length are masked. */
  keyLengths?: ArrayLike<number> | null;
  /** Any mask broadcastable to (..., T_q, T_k): nonzero = attend, 0 = masked. */
  mask?: TensorLike | null;
  /** What masked scores become. Default −Infinity (masked weights exactly 0); notebook 001 uses −1e9. */
  fillValue?: number;
  /** Multiplier for the scores; default 1/√d_k. */
  scale?: number | null;
  /**
   * Sliding-window attention (Mistral, Gemma 3), with `causal`: query i sees only the `window` newest keys up to
   * its own, key j only if i + (T_k − T_q) − j < window. Default 0: no window.
   */
  window?: number;
}

/**
 * Every intermediate of scaled dot-product attention.
 * A query whose every key is masked gets all-zero weights and output with
 * fillValue −Infinity (PyTorch would give NaN), uniform weights with a finite fillValue.
 */
export interface AttentionTrace {
  /** (..., T_q, T_k) Q Kᵀ */
  scores: Tensor;
  /** (..., T_q, T_k) Q Kᵀ × scale */
  scaledScores: Tensor;
  /** (..., T_q, T_k) 1 = attend, 0 = masked */
  mask: Tensor;
  /** (..., T_q, T_k) scaled scores with masked entries set to fillValue */
  maskedScores: Tensor;
  /** (..., T_q, T_k) softmax(maskedScores, dim=-1) */
  weights: Tensor;
  /** (..., T_q, d_v) weights @ V */
  output: Tensor;
}

/** Parameters of an nn.Linear owned by another module. */
export interface LinearParams {
  /** (out, in) */
  weight: Tensor;
  /** (out), or null without bias */
  bias: Tensor | null;
}

/**
 * An object owning WASM memory: call dispose() (or use `using`) when done. One
 * you forget is freed after the garbage collector reclaims it, which may be late:
 * finalizers wait for the current task to end, and the JS engine does not see the
 * WASM memory it holds.
 */
export interface Disposable {
  /**
   * Frees the WASM memory. Safe to call twice; using the object afterwards throws.
   * Refused (throws) while one of the object's own calls is running a callback,
   * e.g. from inside generate()'s onToken.
   */
  dispose(): void;
  [Symbol.dispose](): void;
}

/** SelfAttentionV1: W_query/W_key/W_value = torch.rand(d_in, d_out), drawn in that order. */
export interface SelfAttentionV1 extends Disposable {
  /** x: (..., T, d_in) */
  forward(x: TensorLike): SelfAttentionTrace;
  /**
   * torch's `load_state_dict`: replaces the weights by name, `{ W_query, W_key, W_value }`, each (d_in, d_out).
   * Names, shapes and values are all checked before any is assigned; an unknown or (unless `strict: false`)
   * missing name is refused.
   */
  loadStateDict(stateDict: Record<string, TensorLike>, options?: { strict?: boolean }): void;
  /** (d_in, d_out) */
  readonly W_query: Tensor;
  /** (d_in, d_out) */
  readonly W_key: Tensor;
  /** (d_in, d_out) */
  readonly W_value: Tensor;
}

/** SelfAttentionV2: three nn.Linear(d_in, d_out, qkv_bias), drawn query, key, value. */
export interface SelfAttentionV2 extends Disposable {
  /** x: (..., T, d_in) */
  forward(x: TensorLike): SelfAttentionTrace;
  readonly W_query: LinearParams;
  readonly W_key: LinearParams;
  readonly W_value: LinearParams;
}

/** Notebook 003's Û matrices: (d, d) from torch.rand, applied as q_i = Û_q x_i. */
export interface SelfAttentionU extends Disposable {
  /** x: (..., T, d) */
  forward(x: TensorLike): SelfAttentionTrace;
  readonly U_query: Tensor;
  readonly U_key: Tensor;
  readonly U_value: Tensor;
}

/** nn.Linear: y = x Wᵀ + b, initialised as PyTorch does (weight, then bias). */
export interface Linear extends Disposable {
  /** x: (..., in) → (..., out) */
  forward(x: TensorLike): Tensor;
  /** (out, in) */
  readonly weight: Tensor;
  /** (out), or null */
  readonly bias: Tensor | null;
}

/** nn.Embedding: weight drawn with normal_(0, 1). */
export interface Embedding extends Disposable {
  /** ids: token ids, nested for batches → (*ids.shape, embeddingDim) */
  forward(ids: number[] | number[][] | { data: ArrayLike<number>; shape: number[] }): Tensor;
  /** (numEmbeddings, embeddingDim) */
  readonly weight: Tensor;
}

/** nn.LayerNorm over the last dimension; weight ones, bias zeros. */
export interface LayerNorm extends Disposable {
  forward(x: TensorLike): Tensor;
  readonly weight: Tensor;
  readonly bias: Tensor;
}

/** Every intermediate of multi-head attention. */
export interface MultiHeadAttentionTrace {
  /** (B, H, T_q, d_k) */
  queries: Tensor;
  /** (B, H, T_k, d_k) */
  keys: Tensor;
  /** (B, H, T_k, d_k) */
  values: Tensor;
  /** (B, H, T_q, T_k) Q Kᵀ / √d_k per head, masked entries = fillValue */
  scores: Tensor;
  /** (B, H, T_q, T_k) softmax per head */
  weights: Tensor;
  /** (B, T_q, d_model) heads side by side, before W_o */
  concat: Tensor;
  /** (B, T_q, d_model) */
  output: Tensor;
  /** (B, T_q, T_k) mean of the heads' weights (what PyTorch returns by default) */
  averageWeights: Tensor;
}

/** Notebook 001's MultiHeadAttention: bias-free W_q, W_k, W_v, W_o drawn in that order. */
export interface MultiHeadAttention extends Disposable {
  /**
   * x (B, T, dModel) or (T, dModel). Notebook 001 masks with `{ mask, fillValue: -1e9 }`; a mask is
   * (T_q, T_k) for every row and head, (B, T_q, T_k) one per batch row as notebook 001's
   * `mask.unsqueeze(1)` applies it (paddingMask's (B, 1, T_k) too), or (B, H, T_q, T_k).
   * With `trace: false` only the output is computed and returned, without forming the
   * (T_q, T_k) matrices: faster, and fit for long sequences. A trace that would take more
   * than 1 GiB is refused with an Error naming what it would need.
   */
  forward(x: TensorLike, options: AttentionOptions & { trace: false }): { output: Tensor };
  forward(x: TensorLike, options?: AttentionOptions & { trace?: true }): MultiHeadAttentionTrace;
  /**
   * torch's `load_state_dict`, with notebook 001's names: `'W_q.weight'`, `'W_k.weight'`, `'W_v.weight'`,
   * `'W_o.weight'`, each (dModel, dModel) as nn.Linear stores it (out, in). Checked as SelfAttentionV1's.
   */
  loadStateDict(stateDict: Record<string, TensorLike>, options?: { strict?: boolean }): void;
  readonly W_q: Tensor;
  readonly W_k: Tensor;
  readonly W_v: Tensor;
  readonly W_o: Tensor;
}

/** torch.nn.MultiheadAttention (batch_first): packed in_proj, PyTorch's initialisation order. */
export interface TorchMultiheadAttention extends Disposable {
  /**
   * query (B, T_q, E), key/value (B, T_k, E), defaulting to self-attention. `mask` takes attn_mask's
   * shapes, (T_q, T_k) or (B·numHeads, T_q, T_k); `keyLengths` plays key_padding_mask, one length per
   * batch row. Masks: nonzero = attend (PyTorch's boolean masks mean the opposite).
   * `trace: false` as MultiHeadAttention.forward's (PyTorch's need_weights=False).
   */
  forward(query: TensorLike, key: TensorLike | undefined, value: TensorLike | undefined,
    options: AttentionOptions & { trace: false }): { output: Tensor };
  forward(query: TensorLike, key?: TensorLike, value?: TensorLike, options?: AttentionOptions & { trace?: true }): MultiHeadAttentionTrace;
  /** (3E, E): query, key, value rows */
  readonly inProjWeight: Tensor;
  /** (3E) or null */
  readonly inProjBias: Tensor | null;
  readonly outProj: LinearParams;
}

/** What the WASM module holds, in bytes. */
export interface MemoryUsage {
  /** size of the WASM memory; it grows when needed and never shrinks (freed memory is reused) */
  memoryBytes: number;
  /** allocated and not yet freed */
  heapBytes: number;
  /** of the WASM stack, in use during this call (the same between calls) */
  stackBytes: number;
}

export interface Attention extends Positions, AtScale {
  /** torch.tensor: from nested arrays, or flat data and a shape. */
  tensor(data: TensorLike | ArrayLike<number>, shape?: number[]): Tensor;
  /** torch.manual_seed: reseeds the generator behind rand/randn/randint and module initialisation. */
  manualSeed(seed: number): void;
  /** torch.rand(*shape): uniform [0, 1), PyTorch's exact numbers. `rand(3, 2)` or `rand([3, 2])`. */
  rand(...shape: number[] | [number[]]): Tensor;
  /** torch.randn(*shape): standard normal, PyTorch's exact numbers (both of its code paths). */
  randn(...shape: number[] | [number[]]): Tensor;
  /** torch.randint(low, high, shape) */
  randint(low: number, high: number, shape: number[]): IntTensor;
  /**
   * torch.softmax(x, dim): stable softmax along `dim` (default −1, the last; negative counts from the
   * end). A line of only −Infinity gives zeros.
   */
  softmax(x: TensorLike, dim?: number): Tensor;
  /** exp(x) / Σ exp(x) along `dim` as written; overflows for scores above ~88 (the lesson of notebook 000). */
  softmaxNaive(x: TensorLike, dim?: number): Tensor;
  /** x / Σ x along `dim` (notebook 000's first normalisation). */
  normalizeSum(x: TensorLike, dim?: number): Tensor;
  /** tensor.tolist(): nested arrays of numbers (a number for a 0-D tensor). */
  toArray(t: TensorLike | IntTensor): NestedArray;
  /** print(tensor) as PyTorch writes it: `tensor([[0.2961, 0.5166], …])`, `precision` decimals (default 4). */
  format(t: TensorLike | IntTensor, options?: { precision?: number }): string;
  /** ω_q = [x_q · x_j for every j], loop form. inputs (T, d) → (T) */
  attentionScoresForQuery(inputs: TensorLike, queryIndex: number): Tensor;
  /** All scores with nested loops. (T, d) → (T, T) */
  attentionScoresLoop(inputs: TensorLike): Tensor;
  /** All scores as inputs @ inputsᵀ. (T, d) → (T, T) */
  attentionScores(inputs: TensorLike): Tensor;
  /** z_q = Σ_j α_qj x_j. weights (T), inputs (T, d) → (d) */
  contextVector(weights: TensorLike, inputs: TensorLike): Tensor;
  /** weights @ inputs. (T_q, T), (T, d) → (T_q, d) */
  contextVectors(weights: TensorLike, inputs: TensorLike): Tensor;
  /** Scores, softmax weights and context vectors in one call. */
  simpleSelfAttention(inputs: TensorLike): SimpleAttentionTrace;
  /** torch.tril(torch.ones(T, T)) */
  causalMask(T: number): Tensor;
  /** (B, 1, T_k): 1 for keys before each row's length. */
  paddingMask(lengths: ArrayLike<number>, keyLength: number): Tensor;
  /**
   * softmax(Q Kᵀ / √d_k) V with masks, every intermediate returned (for teaching). Its five
   * (..., T_q, T_k) intermediates may take at most 1 GiB; a larger problem is refused with an Error
   * naming the memory it would need.
   */
  scaledDotProductAttention(query: TensorLike, key: TensorLike, value: TensorLike, options?: AttentionOptions): AttentionTrace;
  /**
   * scaledDotProductAttention's output alone, (..., T_q, d_v): same arguments and options, the same
   * numbers to 1e-5. No (T_q, T_k) matrix is formed (keys stream through in blocks with a running
   * softmax, as FlashAttention computes it), so it is the fast path and fits long sequences:
   * 16,384 tokens take a few MB.
   */
  attention(query: TensorLike, key: TensorLike, value: TensorLike, options?: AttentionOptions): Tensor;
  /**
   * One number of an attention map taken apart (a "neuron view"): for query i and key j of one
   * head's map, the products whose sum is the score, its division by √d_k, row i of the weights
   * and how they mix the value rows into z_i. `map` is one head of a trace: queries (T_q, d_k),
   * keys (T_k, d_k), values (T_k, d_v), weights (T_q, T_k).
   */
  explainScore(map: { queries: TensorLike; keys: TensorLike; values: TensorLike; weights: TensorLike; divisor?: number }, query: number, key: number): ScoreExplanation;
  /** notebook 001: SimpleLanguageModel(vocab_size, d_model, num_heads, d_ff, max_seq_length) */
  notebook001Config(vocabSize: number, dModel: number, numHeads: number, dFF: number, maxSeqLength: number): GPTConfig;
  /** nanoGPT's GPTConfig; bias defaults to false and tieEmbeddings to true, as in train_shakespeare_char. */
  nanoGPTConfig(options: { vocabSize: number; blockSize: number; nLayer: number; nHead: number; nEmbd: number; bias?: boolean; tieEmbeddings?: boolean }): GPTConfig;
  MultiHeadAttention: new (dModel: number, numHeads: number) => MultiHeadAttention;
  TorchMultiheadAttention: new (embedDim: number, numHeads: number, options?: { bias?: boolean }) => TorchMultiheadAttention;
  GPT: new (config?: Partial<GPTConfig>) => GPT;
  /** The sorted set of a text's characters. */
  CharTokenizer: new (text: string) => CharTokenizer;
  /** The sorted set of a text's words and punctuation. */
  WordTokenizer: new (text: string) => WordTokenizer;
  /** The base of CharTokenizer and WordTokenizer: `t instanceof attn.Tokenizer`. */
  Tokenizer: (abstract new (...args: never) => Tokenizer) & {
    /** From a saved vocabulary (Tokenizer.vocabulary); throws if it is not one. */
    fromVocabulary(kind: TokenizerKind, vocabulary: string): Tokenizer;
  };
  /** Starts a training run; vocabSize comes from the text. */
  Trainer: {
    new (options: { model?: Partial<GPTConfig>; training?: Partial<TrainConfig>; text: string }): Trainer;
    /** Continues a run from trainer.checkpoint() bytes. */
    resume(bytes: Uint8Array, text: string): Trainer;
  };
  /**
   * Reads safetensors bytes (validated; corrupt files throw, and a file whose digest does not
   * match is refused as damaged).
   */
  loadCheckpoint(bytes: Uint8Array): LoadedCheckpoint;
  /**
   * A model from a Hugging Face folder (GPT-2, Llama, Mistral, Qwen2, Qwen3, Gemma 3), or from the Hugging Face Hub
   * by its id ('HuggingFaceTB/SmolLM2-135M', {@link HubOptions}): config.json, model.safetensors or the shards
   * model.safetensors.index.json lists (float32, float16 or bfloat16; read 16 MiB at a time, never whole) and the
   * tokenizer as tokenizer.json or vocab.json + merges.txt; `files` gives the texts of tokenizer_config.json,
   * generation_config.json and the chat templates. Computes as transformers' modeling files do. A config asking
   * for what the engine does not do, a tensor of the wrong name, dtype or shape, or a model beyond the library's
   * limits (weights of more than 1.25 GiB as stored, `kMaxWeightBytes` in cpp/include/attn/config.hpp: 335 M
   * parameters in float32, 671 M in 16 bits, Qwen3-0.6B included) is an Error naming the file and the key or
   * tensor, before the model is allocated. The Hub's refusals
   * are ERR_ATTN_HUB_AUTH (a gated or private model), ERR_ATTN_NOT_FOUND and ERR_ATTN_OFFLINE (not cached, and no
   * Hub to ask).
   */
  loadPretrained(source: ModelFolder, options?: LoadPretrainedOptions): Promise<LoadedPretrained>;
  /**
   * Every file loadPretrained(id) reads, brought into the cache without loading the model (Node: Hugging Face's
   * cache folder, whose snapshot `folder` the entry gives; a browser: its Cache API): a "download for later".
   * Progress counts the bytes as loadPretrained's does; files already cached count at once.
   */
  cacheModel(id: string, options?: LoadPretrainedOptions): Promise<CachedModel>;
  /**
   * The models the cache holds, one entry per id and revision: in Node every model of Hugging Face's cache folder
   * (`cacheDir`, as {@link HubOptions} says), transformers' downloads included; in a browser those kept from
   * `hubUrl` (default https://huggingface.co).
   */
  cachedModels(options?: { hubUrl?: UrlLike; cacheDir?: string }): Promise<CachedModel[]>;
  /**
   * Removes a model from the cache: every revision of it, or `revision`'s alone (with, in Node, the files no other
   * revision shares, as huggingface_hub's cache deletion does). Resolves to whether anything was removed.
   */
  removeCachedModel(id: string, options?: { revision?: string; hubUrl?: UrlLike; cacheDir?: string }): Promise<boolean>;
  /**
   * A BPE tokenizer from its files: { tokenizerJson } (a Hugging Face tokenizer.json, byte-level as GPT-2's, Llama
   * 3's and Qwen's or SentencePiece-style with byte fallback as Llama 2's, Mistral's and Gemma 3's) or { vocab,
   * merges } (GPT-2's vocab.json and merges.txt), with tokenizerConfig (tokenizer_config.json) and chatTemplate
   * (chat_template.jinja).
   */
  BPETokenizer: new (files: BPETokenizerFiles) => BPETokenizer;
  /**
   * Measures every head of `model` on one text (ids of one sequence, 2 tokens or more) in one pass, at the
   * memory of one layer's maps: GPT-2 small on 1,024 tokens included.
   */
  summarizeHeads(model: GPT, ids: ArrayLike<number>, options?: { thumbnailSize?: number; headMask?: TensorLike | null }): HeadSummary;
  /**
   * One head of one layer on ids (one sequence): queries, keys, values (T, dHead) and weights (T, T), the
   * form explainScore takes; layer and head count from 0.
   */
  headAttention(model: GPT, ids: ArrayLike<number>, layer: number, head: number, options?: { headMask?: TensorLike | null }): HeadMap;
  /**
   * Which heads of `model` are induction heads, on `batchSize` (default 16) sequences of `length` random
   * tokens (default: the block size, at most 128; 8 or more) drawn from `seed` (default 0), each with one
   * segment of ⌊length/4⌋ to ⌊length/3⌋ tokens repeated at random places. With `ablation` (default true)
   * every head is also switched off in turn (one more forward pass each). A model of one layer is an Error:
   * an induction head composes two.
   */
  headScores(model: GPT, options?: { batchSize?: number; length?: number; seed?: number; ablation?: boolean }): HeadScores;
  /**
   * `batchSize` (default 1) sequences of `length` (8 or more) random tokens in [0, vocabSize), each with one
   * segment of ⌊length/4⌋ to ⌊length/3⌋ tokens repeated at random places, drawn from `seed` (default 0): what
   * headScores measures on and the 'repeats' task trains on.
   */
  repeatedSequences(options: { batchSize?: number; length: number; vocabSize: number; seed?: number }): RepeatedSequences;
  /** Every head's attention weights (nHead, T, T) of one layer on ids (one sequence): what a head view draws. */
  layerAttention(model: GPT, ids: ArrayLike<number>, layer: number, options?: { headMask?: TensorLike | null }): Tensor;
  /** What the WASM module holds: for tests and apps that watch their memory. */
  memoryUsage(): MemoryUsage;
  /** The threads this API computes on, and why that many (see {@link CreateAttentionOptions.threads}). */
  readonly threads: Threads;
  /**
   * A model shipped with the package: `name` 'agreement' (default; the synthetic agreement corpus, word
   * tokens) or 'induction' (the induction recipe's attention-only model on repeated random letters, see
   * inductionRecipe), read from next to this module (Node, an unbundled page, and the copy Vite and webpack put in
   * every build), from `url`, or from `bytes` you loaded yourself. A URL can also be imported:
   * `import url from 'attention-step-by-step/model'` (Vite: `…/model?url`; `…/models/induction` for the other;
   * esbuild with its `file` loader). A server's page where the file was expected is `ERR_ATTN_WRONG_FILE`.
   */
  loadDefaultModel(options?: { name?: 'agreement' | 'induction'; url?: UrlLike; bytes?: Uint8Array }): Promise<LoadedCheckpoint>;
  defaultTrainConfig(): TrainConfig;
  /**
   * The attention-only model and the run that form induction heads fast (2 layers of 2 heads, width 64,
   * context 32, the 'repeats' task): pass both to new Trainer({ model, training, text }) with a text of
   * the alphabet to draw tokens from.
   */
  inductionRecipe(): { model: GPTConfig; training: TrainConfig };
  /** generate()'s options with the library's defaults filled in (a model's own are `model.generationConfig`). */
  defaultGenerateOptions(): GenerationConfig;
  /**
   * The distribution generate() draws the next token from, in nanoGPT's order: logits / temperature, every logit
   * below the k-th largest to −∞, then top-p's cut as transformers' TopPLogitsWarper makes it (sorted ascending, a
   * token goes while the cumulative probability up to it is ≤ 1 − topP; the likeliest stays), softmax;
   * temperature 0 (greedy) puts all the mass on the first largest logit. logits (V) or (B, V) → probabilities of
   * the same shape, each row summing to 1. Defaults and limits as generate()'s: temperature 1, topK 0 (every
   * token), topP 1 (every token).
   */
  samplingDistribution(logits: TensorLike, options?: { temperature?: number; topK?: number; topP?: number }): Tensor;
  /**
   * The synthetic corpus, one sentence per line: "The cats, which slept near the dog, purr.", every third in
   * the short form "The cats purr."; each subject does four verbs of its own (cats purr, dogs bark).
   * `sentences` (default 20,000) at most 4,628,197: as many as fit the 256 MiB of a training text at the
   * longest a sentence can be, checked before anything is built (docs/limits.md).
   */
  agreementCorpus(sentences?: number, seed?: number): string;
  /**
   * What a model learned on the agreement corpus, on generated sentences (seed 4242 by default, held out
   * from the corpus's 1337). Throws if the model's vocabulary lacks the corpus's tokens. With a
   * `headMask` (see GPT.forward) every forward runs with those heads scaled or switched off; a head
   * switched off never counts as looking at the subject. `sentences` (default 500) from 1 to 100,000.
   */
  probeAgreement(model: GPT, tokenizer: Tokenizer, options?: { sentences?: number; seed?: number; headMask?: TensorLike | null }): AgreementReport;
  SelfAttentionV1: new (dIn: number, dOut: number) => SelfAttentionV1;
  SelfAttentionV2: new (dIn: number, dOut: number, qkvBias?: boolean) => SelfAttentionV2;
  SelfAttentionU: new (d: number) => SelfAttentionU;
  Linear: new (inFeatures: number, outFeatures: number, bias?: boolean) => Linear;
  Embedding: new (numEmbeddings: number, embeddingDim: number) => Embedding;
  LayerNorm: new (normalizedShape: number) => LayerNorm;
}

/**
 * Loads the WASM module: by default the .wasm next to this module, read from disk
 * in Node and fetched in a browser. Rejects with an Error naming what is missing
 * on an engine without WebAssembly SIMD or exception handling, and with the
 * Content-Security-Policy a page needs when compiling is refused.
 * Every function of the API throws an {@link AttentionError}: its message names the function,
 * what it expected and what it got, and its `code` says which kind of failure it is.
 */
export function createAttention(options: CreateAttentionOptions & { worker: true }): Promise<AsyncAttention>;
/**
 * Loads the WASM module on this thread: every call of the API computes at once and returns its result.
 * A page that must keep painting while a model trains or generates passes `{ worker: true }`.
 */
export function createAttention(options?: CreateAttentionOptions & { worker?: false; workerUrl?: undefined }): Promise<Attention>;
/** `worker` known only at run time: the API on this thread or in a worker, as it says. */
export function createAttention(options: CreateAttentionOptions): Promise<Attention | AsyncAttention>;

/** A tensor's values as nested arrays: toArray's result. */
export type NestedArray = number | NestedArray[];

/** tensor.tolist() without loading WASM. */
export function toArray(t: TensorLike | IntTensor): NestedArray;

/** print(tensor) as PyTorch writes it, without loading WASM. */
export function format(t: TensorLike | IntTensor, options?: { precision?: number }): string;

/** torch.tensor without loading WASM. */
export function tensor(data: TensorLike | ArrayLike<number>, shape?: number[]): Tensor;
