// Attention masks. Convention (PyTorch's boolean attn_mask, notebook 001's
// `mask == 0`): a mask is a float tensor where a nonzero entry means "this
// query may attend to this key" and 0 means "masked".
#pragma once

#include "attn/tensor.hpp"

#include <vector>

namespace attn {

// torch.tril(torch.ones(T, T)): query i sees keys 0..i (notebook 001,
// create_causal_mask). (T, T)
Tensor causal_mask(int64_t T);

// Key padding: row b may attend to keys 0..lengths[b]-1 only.
// lengths (B) -> (B, 1, T_k), which broadcasts over queries.
Tensor padding_mask(const std::vector<int64_t>& lengths, int64_t T_k);

// A mask broadcast to `target` (dimensions right-aligned, each 1 or equal, as
// in PyTorch) and turned into exact 0/1 values. Throws Error naming `fn`.
Tensor broadcast_mask(const Tensor& mask, const Shape& target, const char* fn);

// The same broadcast read in place, without a copy: the attention kernels
// read a (T_q, T_k) causal or (B, 1, T_k) padding mask against (B, H, T_q, T_k)
// scores this way. target is (..., T_q, T_k); a "slice" numbers its leading
// dimensions row-major, as the kernels' (b · H + h).
class MaskView {
public:
    MaskView() = default;  // no mask: every key may be attended to
    // Validates as broadcast_mask does; `mask` must outlive the view.
    MaskView(const Tensor& mask, const Shape& target, const char* fn);

    explicit operator bool() const { return data_ != nullptr; }
    // Row i of a slice; its key j is row(slice, i)[j * column_stride()], nonzero = attend.
    const float* row(int64_t slice, int64_t i) const;
    int64_t column_stride() const { return column_stride_; }

private:
    struct Lead {
        int64_t size, inner, stride;  // the target's size, slices per step, the mask's stride (0: broadcast)
    };
    const float* data_ = nullptr;
    std::vector<Lead> lead_;
    int64_t row_stride_ = 0, column_stride_ = 0;
};

}  // namespace attn
