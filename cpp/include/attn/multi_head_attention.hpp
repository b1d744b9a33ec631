// Multi-head attention in its two classic forms.
//
// MultiHeadAttention is notebook 001's module (§7): four bias-free
// Linear(d_model, d_model) layers W_q, W_k, W_v, W_o drawn in that order; Q,
// K, V split into heads of d_k = d_model / num_heads by view/transpose;
// per-head scaled dot-product attention; heads concatenated and mixed by W_o.
// Notebook 001 masks with masked_fill(mask == 0, -1e9): pass
// fill_value = -1e9 to reproduce it exactly (the default -inf gives the same
// weights whenever a row keeps at least one key).
//
// TorchMultiheadAttention is torch.nn.MultiheadAttention (batch_first=True):
// one packed in_proj (3E, E) with bias and an out_proj Linear(E, E),
// initialised in PyTorch's order (out_proj drawn as a Linear first, then
// xavier_uniform_ on in_proj_weight, then both biases set to 0).
#pragma once

#include "attn/linear.hpp"
#include "attn/scaled_dot_product_attention.hpp"
#include "attn/state_dict.hpp"
#include "attn/tensor.hpp"
#include "attn/torch_rng.hpp"

#include <string>

namespace attn {

struct MultiHeadAttentionTrace {
    Tensor queries;          // (B, H, T_q, d_k)
    Tensor keys;             // (B, H, T_k, d_k)
    Tensor values;           // (B, H, T_k, d_k)
    Tensor scores;           // (B, H, T_q, T_k) Q Kᵀ / √d_k, masked entries = fill value
    Tensor weights;          // (B, H, T_q, T_k) softmax per head
    Tensor concat;           // (B, T_q, d_model) heads side by side, before W_o
    Tensor output;           // (B, T_q, d_model)
    Tensor average_weights;  // (B, T_q, T_k) mean over heads (what PyTorch returns by default)
};

// The head split (notebook 001 §7): each of `heads` heads gets width / heads
// features, so heads must divide the width, both > 0. The one check of that
// rule, for the modules here and for GPTConfig; its message names the two as
// the caller's parameters are named (d_model and num_heads, n_embd and n_head).
void check_head_split(int64_t width, int64_t heads, const char* fn, const std::string& width_name,
                      const std::string& heads_name);

class MultiHeadAttention {
public:
    MultiHeadAttention(int64_t d_model, int64_t num_heads, Generator& gen = default_generator());

    // Self-attention. x (B, T, d_model), or (T, d_model) for one sequence (the
    // trace then has B = 1). options.mask as notebook 001 means it: (T_q, T_k)
    // for every row and head, (B, T_q, T_k) one per batch row (paddingMask's
    // (B, 1, T_k) too), or (B, H, T_q, T_k); nonzero = attend. With trace =
    // false only `output` is filled, computed without the (T_q, T_k) matrices;
    // a trace that would take more than kMaxTraceBytes is refused.
    MultiHeadAttentionTrace forward(const Tensor& x, const AttentionOptions& options = {}, bool trace = true) const;
    // torch's load_state_dict, names W_q.weight, W_k.weight, W_v.weight, W_o.weight (state_dict.hpp).
    void load_state_dict(const StateDict& state, bool strict = true);

    int64_t d_model() const { return W_q.in_features(); }
    int64_t num_heads() const { return num_heads_; }
    int64_t d_k() const { return d_model() / num_heads_; }

    Linear W_q;  // weight (d_model, d_model), no bias
    Linear W_k;  // weight (d_model, d_model), no bias
    Linear W_v;  // weight (d_model, d_model), no bias
    Linear W_o;  // weight (d_model, d_model), no bias

private:
    int64_t num_heads_;
};

class TorchMultiheadAttention {
public:
    TorchMultiheadAttention(int64_t embed_dim, int64_t num_heads, bool bias = true,
                            Generator& gen = default_generator());

    // query (B, T_q, E), key (B, T_k, E), value (B, T_k, E). For self-attention
    // pass the same tensor three times. options.mask takes attn_mask's shapes,
    // (T_q, T_k) or (B·num_heads, T_q, T_k); options.key_lengths plays
    // key_padding_mask, one length per batch row. Masks use this library's
    // convention (nonzero = attend), not PyTorch's (True = ignore). trace as
    // MultiHeadAttention::forward's (need_weights=False, in PyTorch's terms).
    MultiHeadAttentionTrace forward(const Tensor& query, const Tensor& key, const Tensor& value,
                                    const AttentionOptions& options = {}, bool trace = true) const;

    int64_t embed_dim() const { return out_proj.in_features(); }
    int64_t num_heads() const { return num_heads_; }

    Tensor in_proj_weight;  // (3E, E): rows [0, E) query, [E, 2E) key, [2E, 3E) value
    Tensor in_proj_bias;    // (3E), zeros after initialisation; empty without bias
    Linear out_proj;        // weight (E, E), bias (E) zeros; no bias when bias = false

private:
    int64_t num_heads_;
};

}  // namespace attn
