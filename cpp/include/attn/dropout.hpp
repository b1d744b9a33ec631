// Dropout as torch.nn.Dropout does it on the CPU (docs/torch-rng.md): per
// element a 53-bit uniform u, kept when u < 1 - p, kept values scaled by
// 1 / (1 - p). The mask is kept (as the multipliers 0 or 1/(1-p)) for backward.
#pragma once

#include "attn/torch_rng.hpp"

#include <vector>

namespace attn {

// keep (n): 0 or 1/(1 - p), drawn from gen in element order.
void dropout_mask(std::vector<float>& keep, int64_t n, float p, Generator& gen);
// x ⊙ keep, in place (also the backward: dx = dy ⊙ keep).
void apply_mask(float* x, const std::vector<float>& keep);

}  // namespace attn
