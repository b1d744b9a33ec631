// Self-attention with trainable weights, as notebooks 000 and 002 build it:
//   Q = X W_query,  K = X W_key,  V = X W_value,
//   weights = softmax(Q Kᵀ / √d_k),  context = weights V.
// Three classes differ only in how the projections are stored and drawn:
//   SelfAttentionV1  raw (d_in, d_out) parameters from torch.rand (notebook 000 §5.1)
//   SelfAttentionV2  nn.Linear layers, optional bias            (notebook 000 §5.2)
//   SelfAttentionU   notebook 003's Û matrices, (d, d) from torch.rand, applied
//                    to column vectors: q_i = Û_q x_i, i.e. Q = X Û_qᵀ
// Each is built from the generator in the notebook's order (query, key, value),
// so the same seed gives the notebook's numbers.
#pragma once

#include "attn/linear.hpp"
#include "attn/state_dict.hpp"
#include "attn/tensor.hpp"
#include "attn/torch_rng.hpp"

namespace attn {

struct SelfAttentionTrace {
    Tensor queries;        // (..., T, d_out)
    Tensor keys;           // (..., T, d_out)
    Tensor values;         // (..., T, d_out)
    Tensor scores;         // (..., T, T) queries @ keysᵀ
    Tensor scaled_scores;  // (..., T, T) scores / √d_k
    Tensor weights;        // (..., T, T) softmax(scaled_scores, dim=-1)
    Tensor context;        // (..., T, d_out) weights @ values
};

class SelfAttentionV1 {
public:
    SelfAttentionV1(int64_t d_in, int64_t d_out, Generator& gen = default_generator());
    // x (..., T, d_in)
    SelfAttentionTrace forward(const Tensor& x) const;
    // torch's load_state_dict, names W_query, W_key, W_value (state_dict.hpp).
    void load_state_dict(const StateDict& state, bool strict = true);

    Tensor W_query;  // (d_in, d_out)
    Tensor W_key;    // (d_in, d_out)
    Tensor W_value;  // (d_in, d_out)
};

class SelfAttentionV2 {
public:
    SelfAttentionV2(int64_t d_in, int64_t d_out, bool qkv_bias = false,
                    Generator& gen = default_generator());
    // x (..., T, d_in)
    SelfAttentionTrace forward(const Tensor& x) const;

    Linear W_query;  // weight (d_out, d_in)
    Linear W_key;    // weight (d_out, d_in)
    Linear W_value;  // weight (d_out, d_in)
};

class SelfAttentionU {
public:
    explicit SelfAttentionU(int64_t d, Generator& gen = default_generator());
    // x (..., T, d)
    SelfAttentionTrace forward(const Tensor& x) const;

    Tensor U_query;  // (d, d)
    Tensor U_key;    // (d, d)
    Tensor U_value;  // (d, d)
};

}  // namespace attn
