#include "attn/activations.hpp"

#include <cmath>

namespace attn {

void relu_forward(float* x, int64_t n) {
    for (int64_t i = 0; i < n; ++i) x[i] = x[i] > 0.0f ? x[i] : 0.0f;
}

void gelu_forward(float* x, int64_t n) {
    constexpr float kInvSqrt2 = 0.70710678118654752f;
    for (int64_t i = 0; i < n; ++i) x[i] = 0.5f * x[i] * (1.0f + std::erf(x[i] * kInvSqrt2));
}

}  // namespace attn
