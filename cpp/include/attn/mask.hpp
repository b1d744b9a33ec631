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

}  // namespace attn
