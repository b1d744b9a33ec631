// Self-attention without trainable weights (notebook 000 "Simple self-attention
// mechanism without trainable weights", notebook 003 "Self-attention"):
//   ω_ij = x_i · x_j,   α_ij = softmax_j(ω_ij),   z_i = Σ_j α_ij x_j.
// Each step has a loop form, written as the notebook's for-loops, and a
// matrix form; tests check they agree.
#pragma once

#include "attn/tensor.hpp"

namespace attn {

// ω_q = [x_q · x_j for j] with explicit loops (notebook 000 §2.2).
// inputs (T, d) -> (T)
Tensor attention_scores_for_query(const Tensor& inputs, int64_t query_index);

// All scores with two nested loops of dot products (notebook 000 §3.1). (T, d) -> (T, T)
Tensor attention_scores_loop(const Tensor& inputs);

// All scores as one product, inputs @ inputs.T (§3.2). (T, d) -> (T, T)
Tensor attention_scores(const Tensor& inputs);

// z_q = Σ_j α_qj x_j accumulated in a loop (§2.6).
// weights (T), inputs (T, d) -> (d)
Tensor context_vector(const Tensor& weights, const Tensor& inputs);

// All context vectors, weights @ inputs (§3.4). (T, T), (T, d) -> (T, d)
Tensor context_vectors(const Tensor& weights, const Tensor& inputs);

struct SimpleAttentionTrace {
    Tensor scores;   // (T, T) ω = X Xᵀ
    Tensor weights;  // (T, T) α = softmax(ω, dim=-1)
    Tensor context;  // (T, d) Z = α X
};

// The whole of notebook 000's first half in one call. inputs (T, d)
SimpleAttentionTrace simple_self_attention(const Tensor& inputs);

}  // namespace attn
