// The types of bringing your own model (pretrained.js): the BPE tokenizer, a Hugging Face folder and its
// loading, and what attn.summarizeHeads and attn.headAttention measure. index.d.ts re-exports them; the
// functions themselves are members of Attention there.
import type { CharTokenizer, Disposable, GPT, IntTensor, Tensor, UrlLike } from './index.js';

/** How a BPETokenizer is made: a Hugging Face tokenizer.json, or GPT-2's vocab.json and merges.txt (texts). */
export type BPETokenizerFiles = ({ tokenizerJson: string } | { vocab: string; merges: string }) & {
  /** tokenizer_config.json's text: the special tokens by name, the chat template, Llama's and Gemma's BOS/EOS */
  tokenizerConfig?: string;
  /** chat_template.jinja's text, which wins over tokenizer_config.json's chat_template (as in transformers) */
  chatTemplate?: string;
};

/** One turn of a conversation, as chat templates read it. */
export interface ChatMessage {
  /** 'system', 'user', 'assistant', 'tool', … as the model's template knows them */
  role: string;
  /** the text, or a list of parts ({ type: 'text', text }, …) for the templates that take them */
  content: string | Record<string, unknown>[];
  [key: string]: unknown;
}

export interface ApplyChatTemplateOptions {
  /** Ends with the start of the assistant's turn, for the model to write it (default false). */
  addGenerationPrompt?: boolean;
  /** The ids of the rendered text, encoded without adding special tokens (default true); false: the text. */
  tokenize?: boolean;
  /** Tool descriptions (JSON schemas) for templates that take them; "tool_use" is chosen among named templates. */
  tools?: Record<string, unknown>[] | null;
  /** Documents for retrieval-augmented templates. */
  documents?: Record<string, unknown>[] | null;
  /** One of the tokenizer's named templates, or a template's own text. */
  chatTemplate?: string;
  /** Other values the template reads, e.g. { enable_thinking: false } (Qwen3). */
  variables?: Record<string, unknown>;
}

/**
 * A byte-pair-encoding tokenizer exactly as transformers runs it: a Hugging Face tokenizer.json's whole pipeline
 * (normalizer, pre-tokenizer, added tokens with their lstrip/rstrip/single_word/normalized flags, byte fallback,
 * post-processor, decoder), or GPT-2's vocab.json + merges.txt, with tokenizer_config.json's special tokens and chat
 * template. Any text encodes (a lone surrogate as U+FFFD, as TextEncoder makes it). It may hold more tokens than its
 * model's embedding has rows (Gemma 3's does); the model names an id past the embedding when a text gives one.
 */
export interface BPETokenizer extends Disposable {
  readonly kind: 'bpe';
  /**
   * The ids of a text as transformers' tokenizer(text) gives them: with what the post-processor adds (the BOS of
   * Llama, Gemma, Mistral …) unless `addSpecialTokens` is false.
   */
  encode(text: string, options?: { addSpecialTokens?: boolean }): number[];
  /**
   * The text of ids, special added tokens left out with `skipSpecialTokens`. Bytes that end inside a character show
   * as U+FFFD (as TextDecoder shows them). decode(encode(text, { addSpecialTokens: false })) === text for byte-level
   * tokenizers and well-formed text, unless the spaces are cleaned up.
   *
   * `cleanUpTokenizationSpaces` removes the space before `.` `?` `!` `,` and the contractions `n't` `'m` `'s` `'ve`
   * `'re` (transformers' clean_up_tokenization). Default: tokenizer_config.json's `clean_up_tokenization_spaces`,
   * false without one, as in transformers (Llama 3's and GPT-2's files say true; @huggingface/tokenizers takes a
   * missing key as true).
   */
  decode(ids: ArrayLike<number>, options?: { skipSpecialTokens?: boolean; cleanUpTokenizationSpaces?: boolean }): string;
  /** Every token, added ones included. */
  readonly vocabSize: number;
  /** Each token's text in id order (U+FFFD for a byte that does not complete a character). */
  readonly pieces: readonly string[];
  /** tokenizer_config.json's special tokens and their ids (null where it names none, or has none). */
  readonly bosToken: string | null;
  readonly bosTokenId: number | null;
  readonly eosToken: string | null;
  readonly eosTokenId: number | null;
  readonly padToken: string | null;
  readonly padTokenId: number | null;
  readonly unkToken: string | null;
  readonly unkTokenId: number | null;
  /** Whether the tokenizer's files have a chat template. */
  readonly hasChatTemplate: boolean;
  /**
   * A conversation rendered by the tokenizer's chat template as transformers' apply_chat_template renders it (with
   * @huggingface/jinja): the ids (default), or the text with `tokenize: false`. Messages that are not an array of
   * { role, content }, a template that throws or renders more than 2²⁰ characters, or no template at all are
   * ERR_ATTN_INVALID_ARGUMENT (ERR_ATTN_INVALID_FILE where the tokenizer's own template is at fault).
   */
  applyChatTemplate(messages: ChatMessage[], options: ApplyChatTemplateOptions & { tokenize: false }): string;
  applyChatTemplate(messages: ChatMessage[], options?: ApplyChatTemplateOptions): number[];
}

/**
 * A Hugging Face model folder's files, as loadPretrained takes them, or a model on the Hugging Face Hub by its id.
 * A string is told apart as transformers tells it: a folder that exists (Node) is a folder; a string that starts with
 * http:// or https:// (or, in a browser, with ./, ../ or /, read against the page) is a folder's address; any other
 * string is a Hub id, "name" or "namespace/name" (letters, digits, "-", "_", "."; no "--" or ".."), and a string
 * that is not one is refused with ERR_ATTN_INVALID_ARGUMENT.
 */
export type ModelFolder =
  /**
   * a folder path (Node); a folder's address, from which config.json, model.safetensors, and tokenizer.json or else
   * vocab.json + merges.txt are fetched (a file that answers 404 is absent, and the error lists them); or a Hub id
   * such as "HuggingFaceTB/SmolLM2-135M" ({@link HubOptions} say where from and where it is kept)
   */
  | string
  /** a drop's or a file picker's files (a FileList) or any array of File */
  | ArrayLike<File>
  /** file name → its bytes, a Blob or File, or a URL to fetch */
  | Record<string, Uint8Array | ArrayBuffer | Blob | UrlLike>
  | Map<string, Uint8Array | ArrayBuffer | Blob | UrlLike>;

/**
 * Where a Hub id's files come from and where they are kept, as huggingface_hub decides (docs/pretrained.md, "Models
 * by their Hub id"). Node keeps them in Hugging Face's own cache folder, the one transformers reads and writes; a
 * browser (a page or a worker) in its Cache API, so that a second load of the same id and revision sends no request.
 * Given with a model folder instead of an id, any of these is refused.
 */
export interface HubOptions {
  /** A branch, a tag or a commit hash (default 'main'), quoted whole in the address: refs/pr/1 is refs%2Fpr%2F1. */
  revision?: string;
  /**
   * The Hub, or a mirror in its URL layout: files come from {hubUrl}/{id}/resolve/{revision}/{file}. Default: in
   * Node the environment's HF_ENDPOINT, else https://huggingface.co.
   */
  hubUrl?: UrlLike;
  /**
   * Node only: the cache folder. Default: HF_HUB_CACHE, else $HF_HOME/hub, else $XDG_CACHE_HOME/huggingface/hub,
   * else ~/.cache/huggingface/hub. With HF_HUB_OFFLINE=1 no request is made and the cache alone answers.
   */
  cacheDir?: string;
  /**
   * A Hugging Face token for a gated or private model, sent as `Authorization: Bearer …` to hubUrl's origin only,
   * never to the hosts the Hub redirects downloads to. Default in Node: HF_TOKEN, else the token file
   * (HF_TOKEN_PATH, else $HF_HOME/token).
   */
  accessToken?: string;
}

export interface LoadPretrainedOptions extends HubOptions {
  /**
   * Called as the files arrive: bytes of all the model's files (config.json, the tokenizer's, the weights, …) taken
   * in so far, each counted once, as it is downloaded or else as it is read, and their total. The total is known
   * before the first byte of the weights and never changes; the last call has loaded === total.
   */
  onProgress?: (progress: { loaded: number; total: number }) => void;
  /**
   * Stops the load: the promise rejects with the signal's reason at once, whatever it was waiting for (a slow
   * download, a read), and nothing stays allocated. The signal also goes to fetch.
   */
  signal?: AbortSignal;
}

/**
 * The texts of the files beside the model that its tokenizer's and generation's settings come from, as the folder
 * has them, or null where it has none.
 */
export interface PretrainedFiles {
  /** tokenizer_config.json (special tokens, the chat template of older models, …) */
  tokenizerConfig: string | null;
  /** generation_config.json (the model's sampling defaults, its end-of-text ids) */
  generationConfig: string | null;
  /** chat_template.jinja, the chat template of newer models */
  chatTemplateJinja: string | null;
  /** chat_template.json, `{ "chat_template": … }` */
  chatTemplateJson: string | null;
}

export interface LoadedPretrained {
  model: GPT;
  /**
   * The folder's tokenizer as transformers runs it: a BPETokenizer for tokenizer.json's pipeline (byte-level BPE as
   * GPT-2, Llama 3, SmolLM2 and Qwen have it, or SentencePiece-style with byte fallback as Llama 2, Mistral and
   * Gemma 3 have it) or GPT-2's vocab.json + merges.txt; a CharTokenizer for a character-level tokenizer.json
   * (nanoGPT's character models, tools/nanogpt_to_hf.py)
   */
  tokenizer: BPETokenizer | CharTokenizer;
  /** config.json as the folder has it */
  config: Record<string, unknown>;
  /** the texts of tokenizer_config.json, generation_config.json and the chat templates, or null */
  files: PretrainedFiles;
}

/** A model in the cache: one revision of one Hub id. */
export interface CachedModel {
  /** "namespace/name" */
  id: string;
  /** the revision it was asked for (a commit hash for a snapshot no branch or tag names) */
  revision: string;
  /** the commit its files are of; null where it is not known (a browser that never saw the Hub's X-Repo-Commit) */
  commit: string | null;
  /** the names of the files kept, sorted */
  files: string[];
  /** their bytes */
  size: number;
  /** Node: the snapshot folder, a model folder like any other (attn-train --model takes it); a browser: null */
  folder: string | null;
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
