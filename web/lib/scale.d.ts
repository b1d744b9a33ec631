// Attention at scale: what generation keeps per token (the KV cache, shrunk by grouped heads and sliding
// windows), and the softmax computed in one streaming pass, as long sequences need. Part of the Attention API
// (index.d.ts).
import type { Tensor, TensorLike } from './index.js';

/** onlineSoftmax's answer: the running maximum and sum after each step, and the weights they give. */
export interface OnlineSoftmaxTrace {
  /** (S): the running maximum m after each of the S = ⌈n / block⌉ steps */
  maxima: Tensor;
  /** (S): the running sum l = Σ e^(ω − m) over the keys seen so far, after each step */
  sums: Tensor;
  /** (n): e^(ω − m) / l with the last m and l — equal to softmax(scores) */
  weights: Tensor;
}

export interface AtScale {
  /**
   * The softmax of one row of scores (n) in one pass, `block` keys at a time (default 1), as FlashAttention
   * streams keys and this library's kernel does: a running maximum and a running sum of e^(ω − m), rescaled by
   * e^(m_old − m_new) when the maximum grows. Scores may be −Infinity (masked keys), not NaN or +Infinity.
   */
  onlineSoftmax(scores: TensorLike, options?: { block?: number }): OnlineSoftmaxTrace;
  /**
   * How many numbers a KV cache holds after `tokens` tokens for a model of this Hugging Face config.json (GPT-2,
   * Llama, Mistral, Qwen2/3, Gemma 3, as loadPretrained reads them): a key and a value per key/value head per
   * layer per token — num_key_value_heads, not the query heads — and, on a sliding-window layer, at most the
   * window's tokens. Times 2 for the bytes of 16-bit numbers. The config is read for its shape only, so a model
   * too large for this library to load (Llama-3.2-1B) is sized too.
   */
  kvCacheNumbers(config: Record<string, unknown>, tokens: number): number;
}
