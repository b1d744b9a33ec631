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

void relu_backward(float* dinp, const float* inp, const float* dout, int64_t n) {
    for (int64_t i = 0; i < n; ++i) dinp[i] = inp[i] > 0.0f ? dout[i] : 0.0f;
}

void gelu_backward(float* dinp, const float* inp, const float* dout, int64_t n) {
    // d/dx [x Φ(x)] = Φ(x) + x φ(x)
    constexpr float kInvSqrt2 = 0.70710678118654752f;
    constexpr float kInvSqrt2Pi = 0.39894228040143268f;
    for (int64_t i = 0; i < n; ++i) {
        const float x = inp[i];
        const float cdf = 0.5f * (1.0f + std::erf(x * kInvSqrt2));
        dinp[i] = dout[i] * (cdf + x * kInvSqrt2Pi * std::exp(-0.5f * x * x));
    }
}

}  // namespace attn
