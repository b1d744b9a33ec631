#include "attn/mask.hpp"

#include <string>

namespace attn {

Tensor causal_mask(int64_t T) {
    if (T <= 0) throw Error("causalMask: expected a sequence length > 0, got " + std::to_string(T));
    Tensor m(Shape{T, T});
    for (int64_t i = 0; i < T; ++i)
        for (int64_t j = 0; j <= i; ++j) m.at(i, j) = 1.0f;
    return m;
}

Tensor padding_mask(const std::vector<int64_t>& lengths, int64_t T_k) {
    if (T_k <= 0) throw Error("paddingMask: expected a key length > 0, got " + std::to_string(T_k));
    const auto B = static_cast<int64_t>(lengths.size());
    Tensor m(Shape{B, 1, T_k});
    for (int64_t b = 0; b < B; ++b) {
        const int64_t len = lengths[static_cast<size_t>(b)];
        if (len < 0 || len > T_k) {
            throw Error("paddingMask: expected lengths in [0, " + std::to_string(T_k) + "], got " +
                        std::to_string(len) + " for batch row " + std::to_string(b));
        }
        for (int64_t j = 0; j < len; ++j) m[b * T_k + j] = 1.0f;
    }
    return m;
}

}  // namespace attn
