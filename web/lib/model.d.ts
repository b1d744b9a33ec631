// The types of the language model (model.js): its config, GPT and its traces, generation, training,
// checkpoints and tokenizers. index.d.ts re-exports them; the functions that make them are members of
// Attention there.
import type { Disposable, IntTensor, Tensor, TensorLike } from './index.js';

/**
 * The language model's configuration. Every field has a default; the names are nanoGPT's in camelCase
 * (checkpoints and attn-train spell them n_embd, --n-embd). An unknown name, a wrong type or a value out
 * of its range is an Error naming the field.
 */
export interface GPTConfig {
  /** tokens in the vocabulary */
  vocabSize: number;
  /** width of the residual stream (d_model), divisible by nHead */
  nEmbd: number;
  nHead: number;
  nLayer: number;
  /** feed-forward width (nanoGPT: 4 · nEmbd; GPT-2's config calls it n_inner); unused when attnOnly */
  nInner: number;
  /**
   * Blocks of attention alone, without the feed-forward sublayer and its LayerNorm (Elhage et al. 2021's
   * attention-only transformers: what inductionRecipe() trains). Default false.
   */
  attnOnly: boolean;
  /** longest context */
  blockSize: number;
  /** "post": LN(x + sublayer(x)) as notebook 001; "pre": x + sublayer(LN(x)) and a final LN, as nanoGPT */
  norm: 'pre' | 'post';
  /**
   * "gelu": nanoGPT's exact GELU; "gelu_new": GPT-2's tanh approximation; "relu": notebook 001's; "silu": only as
   * a gated MLP's gate (SwiGLU)
   */
  activation: 'gelu' | 'gelu_new' | 'relu' | 'silu';
  /** ε of every norm (GPT-2's config.json: layer_norm_epsilon; Llama's rms_norm_eps), default 1e-5 */
  layerNormEpsilon: number;
  /** "pytorch": module defaults in construction order; "gpt2": nanoGPT's normal(0, 0.02) scheme */
  init: 'gpt2' | 'pytorch';
  /** q/k/v and output projection biases */
  attentionBias: boolean;
  /** feed-forward and LayerNorm biases */
  bias: boolean;
  /** vocabulary projection bias */
  headBias: boolean;
  /** lm_head shares the token embedding */
  tieEmbeddings: boolean;
  /** in [0, 1) */
  dropout: number;
  /** initial weights = torch.manual_seed(seed); Model(config) */
  seed: number;

  // What today's decoders (Llama, Mistral, Qwen, Gemma) change; the defaults are GPT-2's (docs/pretrained.md).
  /** "layer_norm" (GPT-2), "rms_norm" (Llama, Qwen), "gemma_rms_norm" (× (1 + w)) */
  normType: 'layer_norm' | 'rms_norm' | 'gemma_rms_norm';
  /** "learned": a position table (GPT-2's wpe); "rope": rotary embeddings of queries and keys */
  positions: 'learned' | 'rope';
  /** the base of RoPE's wavelengths, default 10000 */
  ropeTheta: number;
  /** RoPE's base on sliding-window layers (Gemma 3); 0: ropeTheta */
  ropeLocalTheta: number;
  /** "llama3": RoPE's slow pairs stretched for a longer context (Llama 3.1+) */
  ropeScaling: 'none' | 'llama3';
  /** llama3 scaling's factor, default 8 */
  ropeFactor: number;
  ropeLowFreqFactor: number;
  ropeHighFreqFactor: number;
  /** llama3 scaling: the context the model was trained for */
  ropeOriginalContext: number;
  /** key/value heads: 0 = nHead; a divisor of nHead (grouped-query attention; 1: multi-query) */
  nKvHead: number;
  /** dimensions of a head; 0 = nEmbd / nHead */
  headDim: number;
  /** biases on q, k and v only (Qwen2) */
  qkvBias: boolean;
  /** an RMSNorm over each head's queries and keys, before RoPE (Qwen3, Gemma 3) */
  qkNorm: boolean;
  /** down(act(gate(x)) · up(x)): SwiGLU with "silu", GeGLU with "gelu_new" */
  gatedMlp: boolean;
  /** norms on the attention and MLP outputs too (Gemma's four per block) */
  sandwichNorm: boolean;
  /** token embeddings × √nEmbd (Gemma) */
  scaleEmbeddings: boolean;
  /** keys a query sees on a sliding layer (i − j < window); 0: every earlier key */
  slidingWindow: number;
  /** 0: every layer slides; p: every p-th layer attends fully (Gemma 3: 6) */
  slidingWindowPattern: number;
  /** scores × 1/√this (Gemma); 0: headDim */
  queryPreAttnScalar: number;
}

/** One transformer block's intermediates. */
export interface GPTLayerTrace {
  /** (B, T, C) residual stream entering the block */
  input: Tensor;
  /** (B, H, T, D) after any q/k norm and RoPE: what met the keys */
  queries: Tensor;
  /** (B, KV, T, D): one per key/value head (KV = H but under grouped-query attention) */
  keys: Tensor;
  /** (B, KV, T, D) */
  values: Tensor;
  /** (B, H, T, T) scaled; future positions −Infinity */
  scores: Tensor;
  /** (B, H, T, T) */
  weights: Tensor;
  /** (B, T, C) residual stream leaving the block */
  output: Tensor;
}

export interface GPTTrace {
  /** (B, T, C) token + position embeddings */
  embeddings: Tensor;
  layers: GPTLayerTrace[];
}

/**
 * generate()'s and stream()'s options. Their defaults and limits are the library's table of them
 * (`defaultGenerateOptions()` returns the defaults); an unknown name is refused with the nearest known one.
 * An option left out takes the model's default (`model.generationConfig`: for a model loaded from a folder, what
 * its generation_config.json says).
 */
export interface GenerateOptions {
  /** default 100; generate() takes at most 10000 (it runs to the end in one call), stream() more */
  maxNewTokens?: number;
  /** ≥ 0; 0 = greedy; default 1 */
  temperature?: number;
  /** keep the k most likely tokens; 0 (default) keeps all */
  topK?: number;
  /**
   * In (0, 1]: then keep the likeliest tokens whose probabilities sum to topP (nucleus sampling, as transformers'
   * TopPLogitsWarper, after temperature and topK); 1 (default) keeps all.
   */
  topP?: number;
  /** an integer ≥ 0: sample as after torch.manual_seed(seed); default null: the global generator */
  seed?: number | null;
  /** default true; false recomputes the whole context every step (same tokens) */
  useKvCache?: boolean;
  /**
   * Stop tokens, one id or a list (transformers' eos_token_id): a batch row that produces one is finished (the
   * token is kept in its output) and gets `padTokenId` from then on; the generation ends when every row is
   * finished. Default [] (never stop early). Each must be an id of the model's vocabulary.
   */
  eosTokenId?: number | number[];
  /** What a finished row gets while the others go on; default null: the first stop token (as transformers). */
  padTokenId?: number | null;
}

/** Every generation option with its value: what `defaultGenerateOptions()` and `model.generationConfig` give. */
export interface GenerationConfig extends Required<Omit<GenerateOptions, 'eosTokenId'>> {
  eosTokenId: number[];
}

/** Token ids: (T) flat, (B, T) nested, or {data, shape}. */
export type Ids = number[] | number[][] | ArrayLike<number> | { data: ArrayLike<number>; shape: number[] };

/** The tiny language model (notebook 001's SimpleLanguageModel or nanoGPT's GPT). */
export interface GPT extends Disposable {
  readonly config: GPTConfig;
  /** nanoGPT's count: tied tensors once; nonEmbedding (default) leaves out the position embedding. */
  numParameters(options?: { nonEmbedding?: boolean }): number;
  /** nanoGPT's state_dict names, e.g. "transformer.h.0.attn.c_attn.weight". */
  parameterNames(): string[];
  parameter(name: string): Tensor;
  /**
   * logits (B, T, vocabSize); with `{ trace: true }` every layer's and head's intermediates.
   * `headMask` (nLayer, nHead) multiplies each head's attention weights, hence its output, before
   * the output projection: 0 switches a head off (Hugging Face's `head_mask`). The trace's weights
   * are the multiplied ones.
   */
  forward(ids: Ids, options: { trace: true; headMask?: TensorLike | null }): { logits: Tensor; trace: GPTTrace };
  forward(ids: Ids, options?: { trace?: false; headMask?: TensorLike | null }): { logits: Tensor; trace: null };
  forward(ids: Ids, options?: { trace?: boolean; headMask?: TensorLike | null }): { logits: Tensor; trace: GPTTrace | null };
  /**
   * The options generate() and stream() take when a call leaves them out (a copy): the library's defaults, or
   * for a model loaded from a Hugging Face folder, its generation_config.json's sampling and stop tokens (do_sample
   * false is temperature 0; without the file, config.json's eos_token_id and the library's sampling).
   */
  readonly generationConfig: GenerationConfig;
  /**
   * Generates after the prompt, until maxNewTokens or until every row produced a stop token (eosTokenId; finished
   * rows are padded, as transformers pads them). onToken(tokens, step) gets each step's tokens (one per batch
   * row); returning false stops, and an error it throws ends the call. The model cannot be
   * disposed while this runs. Returns every token, shape [B, T].
   */
  generate(prompt: Ids, options?: GenerateOptions & { onToken?: (tokens: number[], step: number) => boolean | void }): IntTensor;
  /** The same generation as an iterator of each step's tokens. */
  stream(prompt: Ids, options?: GenerateOptions): GenerationStream;
  /** safetensors bytes of the model alone, with its tokenizer (vocabSize must match). */
  checkpoint(tokenizer: Tokenizer): Uint8Array;
}

/**
 * A generation in progress, as an iterator of each step's tokens (one per batch row). Its
 * WASM memory is freed when it ends, when it is returned early (`break` in for...of),
 * by close(), or, if dropped half-way, once it is garbage-collected. If its model is
 * disposed meanwhile, next() throws.
 */
export interface GenerationStream extends IterableIterator<number[]> {
  next(): IteratorResult<number[], undefined>;
  return(value?: undefined): IteratorResult<number[], undefined>;
  /** Frees the generation's memory; the iterator is then done. Safe to call twice. */
  close(): void;
  [Symbol.dispose](): void;
}

/** Training hyper-parameters, nanoGPT's train.py names in camelCase; defaults are its shakespeare_char at laptop size. */
export interface TrainConfig {
  /** default 12 */
  batchSize: number;
  /** peak learning rate, default 1e-3 */
  learningRate: number;
  /** end of the cosine decay, default 1e-4 */
  minLr: number;
  /** linear warm-up steps, default 100 */
  warmupIters: number;
  /** where the cosine reaches minLr, default 2000 */
  lrDecayIters: number;
  /** nanoGPT's decay_lr: warm-up and cosine decay; false: a constant learningRate */
  decayLr: boolean;
  /** AdamW, default 0.9 */
  beta1: number;
  /** AdamW, default 0.99 */
  beta2: number;
  /** AdamW, default 1e-8 */
  eps: number;
  /** on matrices and embeddings only, default 0.1 */
  weightDecay: number;
  /** global gradient norm limit, 0 = off; default 1 */
  gradClip: number;
  /** batches per split in evaluate(), default 200 */
  evalIters: number;
  /** torch.manual_seed for the initial weights, batches and dropout; default 1337 */
  seed: number;
  /** how a fresh run splits its text: 'char' (default, nanoGPT) or 'word'; a resumed run keeps its checkpoint's */
  tokenizer: TokenizerKind;
  /**
   * What the run learns from: 'text' (default), windows of the text as nanoGPT; 'repeats', random sequences
   * of the text's tokens in which one segment appears twice at random places (the task induction heads form
   * on), when the text only gives the vocabulary (each character a token, e.g. "abcdefghijklmnopqrstuvwxyzABCDEF").
   */
  task: 'text' | 'repeats';
  /** tokens a training window holds, at most the model's blockSize; 0 (default): the blockSize */
  context: number;
}

export interface StepResult {
  /** the step just taken, from 0 */
  iter: number;
  lr: number;
  /** training loss of the step's batch */
  loss: number;
  /** global gradient norm before clipping */
  gradNorm: number;
}

export interface EvalResult {
  train: number;
  val: number;
}

/** nanoGPT's training loop, a step at a time (90/10 split of the text, random windows). */
export interface Trainer extends Disposable {
  /**
   * One optimisation step. If its loss, gradient norm or new weights are not finite it
   * throws ("training diverged …") and leaves the model, the optimizer and the batch as
   * they were before it, so trainer.checkpoint() still saves the last good state.
   */
  step(): StepResult;
  /** Mean loss over evalIters random batches of each split. */
  evaluate(evalIters?: number): EvalResult;
  readonly iter: number;
  /** The model's vocabulary as checkpoints store it (see Tokenizer.vocabulary); its kind is config.tokenizer. */
  readonly vocabulary: string;
  readonly config: TrainConfig;
  readonly modelConfig: GPTConfig;
  /** A copy of the model as it is now; dispose it. */
  snapshot(): GPT;
  /** Model, vocabulary, AdamW state and progress as safetensors bytes. */
  checkpoint(): Uint8Array;
}

/** A loaded checkpoint. model and tokenizer are yours to dispose. */
export interface LoadedCheckpoint {
  model: GPT;
  /** a CharTokenizer or WordTokenizer, as the model was trained */
  tokenizer: Tokenizer;
  vocabulary: string;
  /** training progress when saved by a Trainer, else null */
  iter: number | null;
  /**
   * true: the file's digest matched its contents. false: the file had no digest (written by
   * another tool), so damage could not be detected. A damaged file with a digest throws.
   */
  verified: boolean;
}

export interface AgreementReport {
  sentences: number;
  /** fraction of sentences where the agreeing verb form ("purr" after "cats") is the more likely */
  accuracy: number;
  /**
   * (nLayer · nHead), layer-major: per head, the fraction of sentences where the largest attention weight at
   * the verb position (the last token both forms share) falls on the subject noun
   */
  subjectAttention: Float64Array;
  bestLayer: number;
  bestHead: number;
  bestSubjectAttention: number;
}

export type TokenizerKind = 'char' | 'word';

/**
 * Ids are indices into the sorted set of a text's pieces (nanoGPT's prepare.py):
 * - 'char': its characters (code points): "The cat" → T h e ␣ c a t
 * - 'word': runs of letters/digits or single other characters, each with the
 *   space before it attached: "The cats, purr.\n" → "The" " cats" "," " purr" "." "\n"
 * decode(encode(text)) === text.
 */
export interface Tokenizer extends Disposable {
  readonly kind: TokenizerKind;
  /**
   * Throws on a piece outside the vocabulary, naming it and its position. `addSpecialTokens` is taken as
   * BPETokenizer takes it; these tokenizers have no special tokens.
   */
  encode(text: string, options?: { addSpecialTokens?: boolean }): number[];
  /** `skipSpecialTokens` is taken as BPETokenizer takes it; these tokenizers have no special tokens. */
  decode(ids: ArrayLike<number>, options?: { skipSpecialTokens?: boolean }): string;
  readonly vocabSize: number;
  /** The pieces in id order: decode([i]) === pieces[i]. Read-only, copied once. */
  readonly pieces: readonly string[];
  /** As checkpoints store it: 'char' the characters in id order, 'word' a JSON array of the pieces. */
  readonly vocabulary: string;
}
export interface CharTokenizer extends Tokenizer {
  readonly kind: 'char';
}
export interface WordTokenizer extends Tokenizer {
  readonly kind: 'word';
}
