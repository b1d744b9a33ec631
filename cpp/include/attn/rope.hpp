// Rotary position embeddings (Su et al. 2021, "RoFormer", §3.4), as today's decoders apply them to queries and
// keys (Hugging Face's Llama, Mistral, Qwen and Gemma; modeling_llama.py's apply_rotary_pos_emb):
//
//   inv_freq[i] = 1 / θ^(2i / D)                      i < D/2, one frequency per pair of dimensions
//   angle[t][i] = position[t] · inv_freq[i]
//   x'[i]       = x[i] · cos(angle[i]) − x[i + D/2] · sin(angle[i])
//   x'[i + D/2] = x[i + D/2] · cos(angle[i]) + x[i] · sin(angle[i])
//
// Dimension i turns with dimension i + D/2 ("rotate_half"; Meta's first Llama code paired 2i with 2i + 1, and the
// Hub's checkpoints are permuted for this pairing). A query at position m and a key at position n rotated so have
// the dot product of the unrotated pair turned by (m − n) · inv_freq: the score depends on their distance only.
//
// llama3 scaling (Llama 3.1+, rope_scaling.rope_type "llama3") stretches the slow frequencies for a longer
// context: with wavelength λ = 2π / inv_freq and the original context L, a pair with λ > L / low_freq_factor
// turns `factor` times slower; one with λ < L / high_freq_factor is kept; between, the two are blended by
// s = (L / λ − low) / (high − low): (1 − s) · f / factor + s · f (modeling_rope_utils.py).
//
//   attn::Rope rope{64, 500000.0};
//   const attn::RopeTables t = attn::rope_tables(rope, {0, 1, 2});  // cos and sin, (3, 64) each
//   attn::Tensor q2 = attn::rope_forward(q, t);                       // q (B, H, 3, 64)
#pragma once

#include "attn/tensor.hpp"

#include <cstdint>
#include <vector>

namespace attn {

// rope_scaling of type "llama3".
struct Llama3Scaling {
    double factor = 8.0;
    double low_freq_factor = 1.0;
    double high_freq_factor = 4.0;
    int64_t original_max_position_embeddings = 8192;
};

struct Rope {
    int64_t head_dim = 0;  // D: the dimensions of a query or key head, even
    double theta = 10000.0;  // rope_theta, the base of the wavelengths
    bool scaled = false;     // apply `llama3`
    Llama3Scaling llama3;
};

// The frequency of each pair, in float32 as Hugging Face computes it: (D/2). Error for an odd or non-positive
// head_dim, θ ≤ 1, or llama3 settings out of their range (factor ≥ 1, 0 < low < high, a positive context).
std::vector<float> rope_inverse_frequencies(const Rope& rope);

struct RopeTables {
    Tensor cos;  // (T, D): cos(angle), the pair's angle in dimensions i and i + D/2
    Tensor sin;  // (T, D)
};
// The tables for the given positions (each ≥ 0), one row per position.
RopeTables rope_tables(const Rope& rope, const std::vector<int64_t>& positions);

// x (..., T, D) rotated: x · cos + rotate_half(x) · sin, rotate_half(x) = (−x[D/2:], x[:D/2]).
Tensor rope_forward(const Tensor& x, const RopeTables& tables);
// In place, one position's `heads` heads of D side by side (a row of the model's queries or keys), with that
// position's row of the tables, cos (D) and sin (D). sign −1 turns them back: the gradient's rotation.
void rope_rotate(float* x, int64_t heads, int64_t D, const float* cos, const float* sin, float sign = 1.0f);
// The gradient of rope_forward for the gradient of its output, dy (..., T, D): the rotation back by the same
// angles (a rotation's transpose), dy · cos − rotate_half(dy · sin) with rotate_half's transpose.
Tensor rope_backward(const Tensor& dy, const RopeTables& tables);

}  // namespace attn
