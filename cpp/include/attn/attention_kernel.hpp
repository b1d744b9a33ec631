// The fused multi-head attention the models run (notebook 001's
// MultiHeadAttention.forward after the projections):
//
//   for every batch row b and head h:  y_bh = softmax(mask(Q_bh K_bhᵀ / √d_k)) V_bh
//
// Heads are not copied out: head h of Q, K and V is the column block
// [h·d_k, (h+1)·d_k) of row-major (rows, H·d_k) matrices, which is what the
// notebook's view(B, T, H, d_k).transpose(1, 2) means. The mask semantics are
// those of scaled_dot_product_attention (and tests hold the two equal).
#pragma once

#include "attn/scaled_dot_product_attention.hpp"
#include "attn/tensor.hpp"

namespace attn {

using ConstMatrixRef = Eigen::Ref<const Matrix, 0, Eigen::OuterStride<>>;
using MatrixRef = Eigen::Ref<Matrix, 0, Eigen::OuterStride<>>;

// q (B·T_q, H·d_k), k (B·T_k, H·d_k), v (B·T_k, H·d_v) -> y (B·T_q, H·d_v).
// options.key_lengths has B entries; options.mask broadcasts to (B, H, T_q, T_k).
// scores and weights, when not null, receive (B, H, T_q, T_k) each: the scaled
// and masked scores, and the softmax weights.
void multi_head_attention_forward(ConstMatrixRef q, ConstMatrixRef k, ConstMatrixRef v, int64_t B,
                                  int64_t H, const AttentionOptions& options, MatrixRef y,
                                  float* scores = nullptr, float* weights = nullptr,
                                  const char* fn = "multiHeadAttention");

// Copies head h's columns out of (B·T, H·d) rows into a (B, H, T, d) tensor,
// for traces.
Tensor split_heads(ConstMatrixRef x, int64_t B, int64_t H);

}  // namespace attn
