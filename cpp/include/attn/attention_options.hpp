// What may change how attention is computed, shared by every attention
// function and module: masks (docs/conventions.md, "Masks"), the fill value of
// a masked score and the scale of the scores. Its own header so that the
// kernels below the teaching functions need not include them.
#pragma once

#include "attn/tensor.hpp"

#include <cstdint>
#include <limits>
#include <optional>
#include <vector>

namespace attn {

struct AttentionOptions {
    // Query i may attend to key j only if j <= i + (T_k - T_q): the lower
    // triangle (torch.tril) for T_q == T_k, aligned to the last key when the
    // queries are the newest tokens of a longer key sequence.
    bool causal = false;
    // Sliding-window attention (Mistral; Gemma 3's sliding layers), with causal: query i also sees only the
    // `window` newest keys up to its own, key j only if i + (T_k - T_q) - j < window (Hugging Face's
    // masking_utils). 0: no window. Each layer then reaches `window` tokens back, and a stack of L layers
    // L · (window - 1).
    int64_t window = 0;
    // Key padding, one length per batch row (dimension 0; exactly one value
    // for a 2-D input): keys at positions >= length are masked.
    std::vector<int64_t> key_lengths;
    // Any mask broadcastable to (..., T_q, T_k) (dimensions right-aligned, each
    // 1 or equal); nonzero = attend, 0 = masked. Empty tensor (dim 0) = none.
    Tensor mask;
    // What a masked score becomes before the softmax. -Infinity gives masked
    // weights of exactly 0; notebook 001 uses a finite -1e9 (masked_fill).
    float fill_value = -std::numeric_limits<float>::infinity();
    // Multiplier for the scores; unset means divide by √d_k.
    std::optional<float> scale;
};

}  // namespace attn
