#include "attn/activations.hpp"

#include <Eigen/Core>
#include <unsupported/Eigen/SpecialFunctions>

#include <cmath>

namespace attn {

void relu_forward(float* x, int64_t n) {
    for (int64_t i = 0; i < n; ++i) x[i] = x[i] > 0.0f ? x[i] : 0.0f;
}

// Eigen's vectorised erf (a rational approximation good to float precision)
// is what keeps GELU from dominating a training step.
using Values = Eigen::Map<Eigen::ArrayXf>;
using ConstValues = Eigen::Map<const Eigen::ArrayXf>;

void gelu_forward(float* x, int64_t n) {
    constexpr float kInvSqrt2 = 0.70710678118654752f;
    Values v(x, n);
    v = 0.5f * v * (1.0f + (v * kInvSqrt2).erf());
}

void relu_backward(float* dinp, const float* inp, const float* dout, int64_t n) {
    for (int64_t i = 0; i < n; ++i) dinp[i] = inp[i] > 0.0f ? dout[i] : 0.0f;
}

void gelu_backward(float* dinp, const float* inp, const float* dout, int64_t n) {
    // d/dx [x Φ(x)] = Φ(x) + x φ(x)
    constexpr float kInvSqrt2 = 0.70710678118654752f;
    constexpr float kInvSqrt2Pi = 0.39894228040143268f;
    const ConstValues x(inp, n);
    Values(dinp, n) = ConstValues(dout, n) * (0.5f * (1.0f + (x * kInvSqrt2).erf()) + x * kInvSqrt2Pi * (-0.5f * x * x).exp());
}

// GPT-2's gelu_new, in float as PyTorch computes it (x³ as x·x·x).
constexpr float kSqrt2OverPi = 0.79788456080286536f;
constexpr float kCubic = 0.044715f;

void gelu_tanh_forward(float* x, int64_t n) {
    Values v(x, n);
    v = 0.5f * v * (1.0f + (kSqrt2OverPi * (v + kCubic * v * v * v)).tanh());
}

void gelu_tanh_backward(float* dinp, const float* inp, const float* dout, int64_t n) {
    // d/dx 0.5·x·(1 + tanh u) = 0.5·(1 + tanh u) + 0.5·x·(1 − tanh² u)·u',  u' = √(2/π)·(1 + 3·0.044715·x²)
    const ConstValues x(inp, n);
    const Eigen::ArrayXf t = (kSqrt2OverPi * (x + kCubic * x * x * x)).tanh();
    Values(dinp, n) = ConstValues(dout, n) *
                      (0.5f * (1.0f + t) + 0.5f * x * (1.0f - t * t) * kSqrt2OverPi * (1.0f + 3.0f * kCubic * x * x));
}

}  // namespace attn
