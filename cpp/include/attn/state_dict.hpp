// PyTorch's module.load_state_dict for the modules a reader builds by hand
// (SelfAttentionV1, MultiHeadAttention): parameters by their state_dict names,
// so weights fitted or trained elsewhere can replace the seeded ones, e.g.
//
//   attn::SelfAttentionV1 sa(3, 2);
//   sa.load_state_dict({{"W_query", wq}, {"W_key", wk}, {"W_value", wv}});
//
// Every entry is checked (known name, given once, the parameter's shape, finite
// values) before any is assigned, so a refused dict leaves the module as it was.
#pragma once

#include "attn/tensor.hpp"

#include <string>
#include <utility>
#include <vector>

namespace attn {

// (name, tensor) as torch's state_dict() lists them.
using StateDict = std::vector<std::pair<std::string, Tensor>>;

// Assigns `given` to `parameters` (the module's own names and tensors). Unknown
// names are refused (naming the nearest), and so are missing ones unless
// `strict` is false, as PyTorch's strict flag; `fn` names the caller in errors.
void load_state_dict(const char* fn, const std::vector<std::pair<std::string, Tensor*>>& parameters,
                     const StateDict& given, bool strict);

}  // namespace attn
