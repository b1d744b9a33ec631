// One score taken apart (Attention.explainScore; score_explanation.hpp): the products of q and k, the division,
// the row's softmax and the mixing of the values. Exported with the rest from index.d.ts.
import type { Tensor } from './index.js';

/** Attention.explainScore's answer for query i and key j. */
export interface ScoreExplanation {
  /** (d_k) q_i */
  query: Tensor;
  /** (d_k) k_j */
  key: Tensor;
  /** (d_k) q_i[d] · k_j[d] */
  products: Tensor;
  /** their sum: entry (i, j) of Q Kᵀ */
  score: number;
  /** √d_k, or the map's `divisor` when it has one */
  divisor: number;
  /** score / divisor, before any mask */
  scaledScore: number;
  /** (T_k) row i of the weights, the mask included */
  weights: Tensor;
  /** (T_k, d_v) w_ij' · v_j' for every key j' */
  mixed: Tensor;
  /** (d_v) z_i, the sum of mixed's rows */
  output: Tensor;
}
