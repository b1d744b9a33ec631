// One number of an attention map taken apart, as BertViz's "neuron view" does
// for real models: for query i and key j, the d_k products whose sum is the
// raw score q_i · k_j, the division by √d_k (Vaswani et al. 2017, eq. 1), row
// i of the weights that score lands in (after the softmax and any mask), and
// how those weights mix the value rows into the output z_i = Σ_j' w_ij' v_j'.
// Every figure of the site's "trace one number" panel is a field of this.
#pragma once

#include "attn/tensor.hpp"

#include <optional>

namespace attn {

struct ScoreExplanation {
    Tensor query;             // (d_k) q_i
    Tensor key;               // (d_k) k_j
    Tensor products;          // (d_k) q_i[d] · k_j[d]
    float score = 0;          // their sum: entry (i, j) of Q Kᵀ
    float divisor = 0;        // √d_k, or the divisor the caller gave
    float scaled_score = 0;   // score / divisor, before any mask
    Tensor weights;           // (T_k) row i of the attention weights, the mask included
    Tensor mixed;             // (T_k, d_v) w_ij' · v_j' for every key j'
    Tensor output;            // (d_v) z_i, the sum of mixed's rows
};

// queries (T_q, d_k), keys (T_k, d_k), values (T_k, d_v) and weights (T_q, T_k)
// of one attention map (one head of one batch row), as a trace returns them. The scores are divided by
// `divisor` when it is given (HeadMap's: Gemma 3 divides by √query_pre_attn_scalar), else by √d_k.
ScoreExplanation explain_score(const Tensor& queries, const Tensor& keys, const Tensor& values, const Tensor& weights,
                               int64_t i, int64_t j, const char* fn = "explainScore",
                               std::optional<float> divisor = std::nullopt);

}  // namespace attn
