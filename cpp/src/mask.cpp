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

MaskView::MaskView(const Tensor& mask, const Shape& target, const char* fn) : data_(mask.data.data()) {
    const auto nd = static_cast<int64_t>(target.size());
    if (nd < 2 || mask.dim() > nd) throw_shape(fn, "mask", "broadcastable to " + shape_str(target), mask.shape);
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
    row_stride_ = stride[static_cast<size_t>(nd - 2)];
    column_stride_ = stride[static_cast<size_t>(nd - 1)];
    int64_t inner = 1;
    for (int64_t d = nd - 3; d >= 0; --d) {
        lead_.insert(lead_.begin(), Lead{target[static_cast<size_t>(d)], inner, stride[static_cast<size_t>(d)]});
        inner *= target[static_cast<size_t>(d)];
    }
}

const float* MaskView::row(int64_t slice, int64_t i) const {
    int64_t offset = i * row_stride_;
    for (const Lead& d : lead_) offset += (slice / d.inner) % d.size * d.stride;
    return data_ + offset;
}

Tensor broadcast_mask(const Tensor& mask, const Shape& target, const char* fn) {
    const MaskView view(mask, target, fn);
    Tensor out(target);
    const int64_t T_q = target[target.size() - 2], T_k = target.back();
    const int64_t slices = T_q * T_k == 0 ? 0 : out.numel() / (T_q * T_k);
    float* o = out.data.data();
    for (int64_t slice = 0; slice < slices; ++slice) {
        for (int64_t i = 0; i < T_q; ++i) {
            const float* m = view.row(slice, i);
            for (int64_t j = 0; j < T_k; ++j) *o++ = m[j * view.column_stride()] != 0.0f ? 1.0f : 0.0f;
        }
    }
    return out;
}

}  // namespace attn
