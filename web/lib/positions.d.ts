// Where attention gets order from: the fixed sinusoidal positions of "Attention Is All You Need" and the rotary
// positions (RoPE) of today's decoders. Part of the Attention API (index.d.ts).
import type { Tensor, TensorLike } from './index.js';

/**
 * RoPE's settings as a model config names them (GPTConfig's fields of the same names), each with the config's
 * default and limits: ropeTheta 10000 (the base of the wavelengths, > 1); ropeScaling 'none' or 'llama3' (Llama
 * 3.1's stretch of the slow pairs) with ropeFactor 8, ropeLowFreqFactor 1, ropeHighFreqFactor 4 and
 * ropeOriginalContext 8192 (the context the model was trained for).
 */
export interface RopeSettings {
  ropeTheta?: number;
  ropeScaling?: 'none' | 'llama3';
  ropeFactor?: number;
  ropeLowFreqFactor?: number;
  ropeHighFreqFactor?: number;
  ropeOriginalContext?: number;
}

export interface Positions {
  /**
   * The sinusoidal position encoding (Vaswani et al. 2017, §3.5): PE[pos][2i] = sin(pos / 10000^(2i/d)),
   * PE[pos][2i + 1] = cos(…), for positions 0 … T − 1 → (T, d); d even. Added to the token embeddings.
   */
  sinusoidalPositions(T: number, d: number): Tensor;
  /**
   * The frequency of each pair of dimensions of a head of `headDim` (even): 1 / θ^(2i / headDim), llama3-scaled
   * if asked, in float32 as Hugging Face computes inv_freq → (headDim / 2). A pair's wavelength is 2π / frequency
   * positions.
   */
  ropeFrequencies(headDim: number, options?: RopeSettings): Tensor;
  /**
   * Rotary positions (RoFormer; Hugging Face's apply_rotary_pos_emb): x (..., T, D) with each row t turned by
   * its position — dimension i with i + D/2 ("rotate_half"), by position × ropeFrequencies(D)[i]. A query and a
   * key so turned score as the unturned pair turned by their distance: shifting both positions leaves the score.
   * positions: T whole numbers ≥ 0, one per row (default 0 … T − 1).
   */
  rope(x: TensorLike, options?: RopeSettings & { positions?: ArrayLike<number> }): Tensor;
}
