// The fixed position encoding of "Attention Is All You Need" (Vaswani et al. 2017, §3.5), added to the token
// embeddings so that attention, blind to order on its own, can tell positions apart:
//
//   PE[pos][2i]     = sin(pos / 10000^(2i / d))
//   PE[pos][2i + 1] = cos(pos / 10000^(2i / d))
//
// computed in float32 in the order of the PyTorch tutorials' PositionalEncoding (div_term = exp(2i · −ln(10000) / d),
// then pos · div_term), so that its numbers are theirs.
//
//   attn::Tensor pe = attn::sinusoidal_positions(6, 8);  // (6, 8)
#pragma once

#include "attn/tensor.hpp"

#include <cstdint>

namespace attn {

// (T, d) for positions 0 … T − 1; d even. Error for T < 1, an odd or non-positive d, or more than 2^24 numbers.
Tensor sinusoidal_positions(int64_t T, int64_t d);

}  // namespace attn
