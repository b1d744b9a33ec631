// F.cross_entropy(logits, targets): the mean over rows of -log softmax(logits)[target].
#pragma once

#include <cstdint>

namespace attn {

// logits (N, V), targets (N) in [0, V). Returns the mean loss. When dlogits is
// not null it receives the gradient of the mean loss: (softmax - onehot) / N.
float cross_entropy_forward_backward(const float* logits, const int64_t* targets, int64_t N, int64_t V,
                                     float* dlogits = nullptr);

}  // namespace attn
