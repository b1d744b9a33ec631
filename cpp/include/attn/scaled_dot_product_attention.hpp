// Scaled dot-product attention, softmax(Q Kᵀ / √d_k) V (Vaswani et al. 2017,
// eq. 1; notebook 004 §4 "Scaling" and §5 "Masking"; notebook 001 §6), with
// every intermediate returned so a page can draw it.
//
// Shapes follow PyTorch: the last two dimensions are (tokens, features) and any
// leading dimensions are batch dimensions, e.g. (T, d), (B, T, d), (B, H, T, d).
#pragma once

#include "attn/attention_options.hpp"
#include "attn/tensor.hpp"

namespace attn {

// All five tensors share the shape (..., T_q, T_k) but `output`.
//
// A query whose every key is masked: with fill_value -Infinity its weights are
// all 0 and its output row is 0 (PyTorch would give NaN); with a finite fill
// value every score in the row is equal, so the weights are uniform 1/T_k, as
// in PyTorch. Either way no NaN reaches weights or output.
struct AttentionTrace {
    Tensor scores;         // (..., T_q, T_k) Q Kᵀ
    Tensor scaled_scores;  // (..., T_q, T_k) Q Kᵀ / √d_k (or × scale)
    Tensor mask;           // (..., T_q, T_k) 1 = attend, 0 = masked (all 1 without masks)
    Tensor masked_scores;  // (..., T_q, T_k) scaled scores, masked ones = fill_value
    Tensor weights;        // (..., T_q, T_k) softmax(masked_scores, dim=-1)
    Tensor output;         // (..., T_q, d_v) weights @ V
};

// query (..., T_q, d_k), key (..., T_k, d_k), value (..., T_k, d_v), with equal
// leading dimensions.
// Refuses (Error) a problem whose five (..., T_q, T_k) tensors would exceed
// kMaxTraceBytes, naming the memory it would need.
AttentionTrace scaled_dot_product_attention(const Tensor& query, const Tensor& key,
                                            const Tensor& value,
                                            const AttentionOptions& options = {});

// The output of scaled_dot_product_attention alone, (..., T_q, d_v): the same
// arguments, options and numbers (to rounding), computed without forming the
// (T_q, T_k) matrices, so that long sequences fit in memory and run fast. The
// API for speed; the trace above is for teaching.
Tensor attention(const Tensor& query, const Tensor& key, const Tensor& value,
                 const AttentionOptions& options = {});

// The most memory the intermediates of one traced call may take (1 GiB): a
// trace beyond it is refused at once rather than exhausting memory (WASM's heap
// ends at 2 GiB).
constexpr int64_t kMaxTraceBytes = int64_t{1} << 30;

}  // namespace attn
