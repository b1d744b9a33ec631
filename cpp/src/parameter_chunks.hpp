// A model's tensors cut into chunks for element-wise work over the threads
// (AdamW's update, the trainer's sum of micro-batch gradients): chunks of at
// most kParameterChunk elements of one tensor each, so that the tensors of a
// small model, none as large as a chunk, still spread over the library's
// threads. The cuts depend on the shapes alone, never the thread count.
#pragma once

#include "attn/tensor.hpp"

#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace attn {

constexpr int64_t kParameterChunk = 1 << 15;

struct ParameterChunk {
    size_t tensor;         // index into the list the chunks were cut from (named_parameters())
    int64_t begin, end;    // its elements [begin, end)
};

inline std::vector<ParameterChunk> parameter_chunks(const std::vector<std::pair<std::string, Tensor*>>& params) {
    std::vector<ParameterChunk> chunks;
    for (size_t i = 0; i < params.size(); ++i) {
        const int64_t n = params[i].second->numel();
        for (int64_t j0 = 0; j0 < n; j0 += kParameterChunk) chunks.push_back({i, j0, std::min(n, j0 + kParameterChunk)});
    }
    return chunks;
}

}  // namespace attn
