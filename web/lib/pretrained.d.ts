// The types of bringing your own model (pretrained.js): GPT-2's tokenizer, a Hugging Face folder and its
// loading, and what attn.summarizeHeads and attn.headAttention measure. index.d.ts re-exports them; the
// functions themselves are members of Attention there.
import type { CharTokenizer, Disposable, GPT, IntTensor, Tensor, UrlLike } from './index.js';

/**
 * GPT-2's tokenizer: byte-level byte-pair encoding (the same ids as js-tiktoken's "gpt2" encoding and
 * Hugging Face's GPT2Tokenizer). Any text encodes (a lone surrogate as U+FFFD, as TextEncoder makes it);
 * "<|endoftext|>" in the text is one token; decode(encode(text)) === text for well-formed text.
 */
export interface BPETokenizer extends Disposable {
  readonly kind: 'bpe';
  encode(text: string): number[];
  /** Bytes that end inside a character show as U+FFFD (as TextDecoder shows them). */
  decode(ids: ArrayLike<number>): string;
  readonly vocabSize: number;
  /** Each token's text in id order (U+FFFD for a byte that does not complete a character). */
  readonly pieces: readonly string[];
}

/** A Hugging Face model folder's files, as loadPretrained takes them. */
export type ModelFolder =
  /**
   * a folder path (Node), or a folder's http(s) address: config.json, model.safetensors, and tokenizer.json or
   * else vocab.json + merges.txt are fetched from it (a file that answers 404 is absent, and the error lists them)
   */
  | string
  /** a drop's or a file picker's files (a FileList) or any array of File */
  | ArrayLike<File>
  /** file name → its bytes, a Blob or File, or a URL to fetch */
  | Record<string, Uint8Array | ArrayBuffer | Blob | UrlLike>
  | Map<string, Uint8Array | ArrayBuffer | Blob | UrlLike>;

export interface LoadPretrainedOptions {
  /** Called as the weights are read: bytes of tensors read so far, and of all of them. */
  onProgress?: (progress: { loaded: number; total: number }) => void;
  /**
   * Stops the load: the promise rejects with the signal's reason at once, whatever it was waiting for (a slow
   * download, a read), and nothing stays allocated. The signal also goes to fetch.
   */
  signal?: AbortSignal;
}

export interface LoadedPretrained {
  model: GPT;
  /** GPT-2's BPE; a CharTokenizer for a character-level tokenizer.json (nanoGPT's character models, tools/nanogpt_to_hf.py) */
  tokenizer: BPETokenizer | CharTokenizer;
  /** config.json as the folder has it */
  config: Record<string, unknown>;
}

/**
 * What each head does on one text, each statistic a mean over the queries after the first (Clark et al.
 * 2019, "What Does BERT Look At?").
 */
export interface HeadSummary {
  /** (nLayer, nHead): weight on the token just before the query */
  previousToken: Tensor;
  /** (nLayer, nHead): weight on the text's first token */
  firstToken: Tensor;
  /** (nLayer, nHead): Σ_j w_ij (i − j), how many tokens back on average */
  meanDistance: Tensor;
  /** (nLayer, nHead): −Σ_j w_ij ln w_ij in nats (0: all on one token) */
  entropy: Tensor;
  /**
   * (nLayer, nHead, P): the weight on the key d tokens back, d = 0 … P − 1 (P = min(T, 16)), a mean over the queries
   * that have such a key: a previous-token head peaks at 1, a head reading its own token at 0
   */
  distanceProfile: Tensor;
  /** (nLayer): the keys a query of each layer may see — its sliding window (Mistral, Gemma 3) — or 0 for all */
  layerWindow: Tensor;
  /** (nLayer, nHead, S, S): every map max-pooled to S ≤ thumbnailSize cells a side; empty for thumbnailSize 0 */
  thumbnails: Tensor;
  /** (vocabSize): the logits after the last token */
  nextLogits: Tensor;
}

/** Random token sequences, each with one segment repeated (repeatedSequences; headScores measures on them). */
export interface RepeatedSequences {
  /** (batchSize, length): the token ids */
  sequences: IntTensor;
  /** per sequence: tokens [first, first + length) repeat at [second, second + length) */
  repeats: { first: number; second: number; length: number }[];
}

/** What headScores measured: which heads are induction heads (Olsson et al. 2022; Elhage et al. 2021). */
export interface HeadScores extends RepeatedSequences {
  /**
   * (nLayer, nHead): mean attention from a token of the second copy to the token just after its first
   * occurrence (over the first L − 1 tokens of each copy of length L); ~0.7 on a trained induction head
   */
  prefixMatching: Tensor;
  /** (nLayer, nHead): mean attention from every token to the one before it */
  previousToken: Tensor;
  /**
   * (nLayer, nHead): Σλ / Σ|λ| over the eigenvalues of the head's OV circuit from token embedding to logits,
   * W_U diag(γ_f) W_O W_V diag(γ₁) W_Eᵀ, in [−1, 1]: near 1 when attending to a token raises that token's logit
   */
  copying: Tensor;
  /**
   * (nLayer, nHead): the second copy's loss with that head switched off, minus secondRepeatLoss; null when
   * measured with `ablation: false` (it costs one forward pass per head)
   */
  inContextLossGain: Tensor | null;
  /** mean cross-entropy in nats predicting tokens 1…L−1 of the first copy: ≈ ln(vocabSize), unpredictable */
  firstRepeatLoss: number;
  /** the same on the second copy: far lower once the model has induction heads */
  secondRepeatLoss: number;
}

/** One head of one layer on a text (headAttention). */
export interface HeadMap {
  /** (T, dHead) */
  queries: Tensor;
  /** (T, dHead) */
  keys: Tensor;
  /** (T, dHead) */
  values: Tensor;
  /** (T, T), each row summing to 1 (0 for a head switched off) */
  weights: Tensor;
  /** what the head divided its scores by: √dHead, or √queryPreAttnScalar for Gemma 3 (explainScore reads it) */
  divisor: number;
}
