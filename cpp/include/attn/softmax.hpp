// Turning attention scores into attention weights, in the three steps notebook
// 000 takes (§2.3-§2.5): divide by the sum, the naive softmax, and the
// numerically stable softmax PyTorch uses. Each acts along one dimension, as
// torch's `dim` (negative counts from the end); attention uses the last
// (dim=-1), which for a 1-D tensor is notebook 000's dim=0.
#pragma once

#include "attn/tensor.hpp"

namespace attn {

// ω / Σω: sums to 1 but is not a probability for negative scores, and does not
// sharpen large differences (notebook 000 §2.3). Same shape out.
Tensor normalize_sum(const Tensor& scores, int64_t dim = -1);

// exp(ω) / Σ exp(ω) exactly as written (notebook 000 §2.4). Overflows to
// Infinity/NaN once a score exceeds ~88 in float: kept that way on purpose,
// it is the lesson. Same shape out.
Tensor softmax_naive(const Tensor& scores, int64_t dim = -1);

// exp(ω - max ω) / Σ exp(ω - max ω), equal to the naive form in exact
// arithmetic and safe for any finite scores (torch.softmax, §2.5).
// A row that is entirely -Infinity (every key masked) has no defined softmax;
// PyTorch returns NaN there, this library returns a row of zeros so that no
// NaN reaches a weight or an output. Same shape out.
Tensor softmax(const Tensor& scores, int64_t dim = -1);

// The stable softmax of one contiguous row of n scores, in place, with the
// rule above for a row of only -Infinity: the kernel behind softmax() and the
// attention kernels. Vectorised (e^x on four lanes at once).
void softmax_row(float* row, int64_t n);

}  // namespace attn
