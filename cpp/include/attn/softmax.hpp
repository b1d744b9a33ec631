// Turning attention scores into attention weights, in the three steps notebook
// 000 takes (cells 112-114): divide by the sum, the naive softmax, and the
// numerically stable softmax PyTorch uses. All act along the last dimension
// (dim=-1), which for a 1-D tensor is notebook 000's dim=0.
#pragma once

#include "attn/tensor.hpp"

namespace attn {

// ω / Σω: sums to 1 but is not a probability for negative scores, and does not
// sharpen large differences (notebook 000, cell 112). (..., T) -> (..., T)
Tensor normalize_sum(const Tensor& scores);

// exp(ω) / Σ exp(ω) exactly as written (notebook 000, cell 113). Overflows to
// Infinity/NaN once a score exceeds ~88 in float: kept that way on purpose,
// it is the lesson. (..., T) -> (..., T)
Tensor softmax_naive(const Tensor& scores);

// exp(ω - max ω) / Σ exp(ω - max ω), equal to the naive form in exact
// arithmetic and safe for any finite scores (torch.softmax, cell 114).
// A row that is entirely -Infinity (every key masked) has no defined softmax;
// PyTorch returns NaN there, this library returns a row of zeros so that no
// NaN reaches a weight or an output. (..., T) -> (..., T)
Tensor softmax(const Tensor& scores);

}  // namespace attn
