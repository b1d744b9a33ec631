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

#include "attn/attention_options.hpp"
#include "attn/tensor.hpp"

namespace attn {

using ConstMatrixRef = Eigen::Ref<const Matrix, 0, Eigen::OuterStride<>>;
using MatrixRef = Eigen::Ref<Matrix, 0, Eigen::OuterStride<>>;

// q (B·T_q, H·d_k), k (B·T_k, KV·d_k), v (B·T_k, KV·d_v) -> y (B·T_q, H·d_v). KV, the key/value heads, is H
// (multi-head attention) or a divisor of it (grouped-query attention; 1: multi-query): query head h reads
// key/value head h / (H / KV), as Hugging Face's repeat_kv repeats them.
// options.key_lengths has B entries; options.mask broadcasts to (B, H, T_q, T_k).
// scores and weights, when not null, receive (B, H, T_q, T_k) each: the scaled
// and masked scores, and the softmax weights. When neither they nor `keep` is
// asked for, no T_q × T_k matrix is formed: keys stream through in blocks with
// a running softmax (FlashAttention, Dao et al. 2022), the same numbers to rounding. keep, when not null, holds
// attention-dropout multipliers (B, H, T_q, T_k), 0 or 1/(1-p), applied to the
// weights before they multiply V (`weights` still receives them undropped).
void multi_head_attention_forward(ConstMatrixRef q, ConstMatrixRef k, ConstMatrixRef v, int64_t B,
                                  int64_t H, const AttentionOptions& options, MatrixRef y,
                                  float* scores = nullptr, float* weights = nullptr,
                                  const char* fn = "multiHeadAttention", const float* keep = nullptr);

// The same kernel, streaming, on `slices` independent problems stored back to
// back as scaled_dot_product_attention's tensors are: q (slices, T_q, d_k),
// k (slices, T_k, d_k), v (slices, T_k, d_v) -> y (slices, T_q, d_v).
// slice_key_lengths has one entry per slice (or none); options.mask
// broadcasts to score_shape = (..., T_q, T_k), whose leading dimensions
// number the slices. Memory: a few score tiles, whatever T is.
void attention_forward(const float* q, const float* k, const float* v, float* y, int64_t slices, int64_t T_q,
                       int64_t T_k, int64_t d_k, int64_t d_v, const AttentionOptions& options,
                       const std::vector<int64_t>& slice_key_lengths, const Shape& score_shape, const char* fn);

// Gradients of multi_head_attention_forward given its weights (B, H, T_q, T_k), with as many key/value heads
// (dk and dv of a key/value head sum over the query heads that read it)
// (after any dropout: `weights` must be what multiplied V). dq, dk, dv are
// accumulated (+=). For each (b, h), with P the weights and s the scale:
//   dV += Pᵀ dY,  dP = dY Vᵀ,  dS = P ⊙ (dP - rowsum(dP ⊙ P)),  dQ += s dS K,  dK += s dSᵀ Q.
// `keep` (B, H, T_q, T_k), when not null, is the dropout multiplier applied to P
// (0 or 1/(1-p)); then `weights` are the pre-dropout softmax. `scale` is the forward's options.scale (unset: 1/√d_k).
void multi_head_attention_backward(MatrixRef dq, MatrixRef dk, MatrixRef dv, ConstMatrixRef dy, ConstMatrixRef q,
                                   ConstMatrixRef k, ConstMatrixRef v, const float* weights, const float* keep,
                                   int64_t B, int64_t H, std::optional<float> scale = std::nullopt);

// Refuses a negative window, or a window without causal attention (it bounds how far back a causal query sees).
void check_window(const AttentionOptions& o, const char* fn);

// Copies head h's columns out of (B·T, H·d) rows into a (B, H, T, d) tensor,
// for traces.
Tensor split_heads(ConstMatrixRef x, int64_t B, int64_t H);

}  // namespace attn
