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

Tensor broadcast_mask(const Tensor& mask, const Shape& target, const char* fn) {
    const auto nd = static_cast<int64_t>(target.size());
    if (mask.dim() > nd) throw_shape(fn, "mask", "broadcastable to " + shape_str(target), mask.shape);
    // Strides of the mask, aligned to the right of target; 0 where broadcast.
    std::vector<int64_t> stride(static_cast<size_t>(nd), 0);
    int64_t s = 1;
    for (int64_t i = 1; i <= mask.dim(); ++i) {
        const int64_t m = mask.shape[static_cast<size_t>(mask.dim() - i)];
        const int64_t t = target[static_cast<size_t>(nd - i)];
        if (m != t && m != 1) throw_shape(fn, "mask", "broadcastable to " + shape_str(target), mask.shape);
        stride[static_cast<size_t>(nd - i)] = m == 1 ? 0 : s;
        s *= m;
    }
    Tensor out(target);
    std::vector<int64_t> index(static_cast<size_t>(nd), 0);
    for (int64_t flat = 0; flat < out.numel(); ++flat) {
        int64_t src = 0;
        for (int64_t d = 0; d < nd; ++d) src += index[static_cast<size_t>(d)] * stride[static_cast<size_t>(d)];
        out[flat] = mask[src] != 0.0f ? 1.0f : 0.0f;
        for (int64_t d = nd - 1; d >= 0; --d) {  // odometer increment
            if (++index[static_cast<size_t>(d)] < target[static_cast<size_t>(d)]) break;
            index[static_cast<size_t>(d)] = 0;
        }
    }
    return out;
}

}  // namespace attn
