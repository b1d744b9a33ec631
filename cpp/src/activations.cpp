#include "attn/activations.hpp"

#include "thread_pool.hpp"

#include <Eigen/Core>
#include <unsupported/Eigen/SpecialFunctions>

#include <cmath>

namespace attn {

void relu_forward(float* x, int64_t n) {
    for (int64_t i = 0; i < n; ++i) x[i] = x[i] > 0.0f ? x[i] : 0.0f;
}

// Eigen's vectorised erf (a rational approximation good to float precision)
// is what keeps GELU from dominating a training step. Each function runs over
// fixed chunks of the elements on the library's threads (thread_pool.hpp).
constexpr int64_t kChunk = 1 << 14;
using Values = Eigen::Map<Eigen::ArrayXf>;
using ConstValues = Eigen::Map<const Eigen::ArrayXf>;

void gelu_forward(float* x, int64_t n) {
    constexpr float kInvSqrt2 = 0.70710678118654752f;
    parallel_chunks(n, kChunk, [&](int64_t i0, int64_t i1) {
        Values v(x + i0, i1 - i0);
        v = 0.5f * v * (1.0f + (v * kInvSqrt2).erf());
    });
}

void relu_backward(float* dinp, const float* inp, const float* dout, int64_t n) {
    for (int64_t i = 0; i < n; ++i) dinp[i] = inp[i] > 0.0f ? dout[i] : 0.0f;
}

void gelu_backward(float* dinp, const float* inp, const float* dout, int64_t n) {
    // d/dx [x Φ(x)] = Φ(x) + x φ(x)
    constexpr float kInvSqrt2 = 0.70710678118654752f;
    constexpr float kInvSqrt2Pi = 0.39894228040143268f;
    parallel_chunks(n, kChunk, [&](int64_t i0, int64_t i1) {
        const ConstValues x(inp + i0, i1 - i0);
        Values(dinp + i0, i1 - i0) = ConstValues(dout + i0, i1 - i0) *
                                     (0.5f * (1.0f + (x * kInvSqrt2).erf()) + x * kInvSqrt2Pi * (-0.5f * x * x).exp());
    });
}

// GPT-2's gelu_new, in float as PyTorch computes it (x³ as x·x·x).
constexpr float kSqrt2OverPi = 0.79788456080286536f;
constexpr float kCubic = 0.044715f;

void gelu_tanh_forward(float* x, int64_t n) {
    parallel_chunks(n, kChunk, [&](int64_t i0, int64_t i1) {
        Values v(x + i0, i1 - i0);
        v = 0.5f * v * (1.0f + (kSqrt2OverPi * (v + kCubic * v * v * v)).tanh());
    });
}

void gelu_tanh_backward(float* dinp, const float* inp, const float* dout, int64_t n) {
    // d/dx 0.5·x·(1 + tanh u) = 0.5·(1 + tanh u) + 0.5·x·(1 − tanh² u)·u',  u' = √(2/π)·(1 + 3·0.044715·x²)
    parallel_chunks(n, kChunk, [&](int64_t i0, int64_t i1) {
        const ConstValues x(inp + i0, i1 - i0);
        const Eigen::ArrayXf t = (kSqrt2OverPi * (x + kCubic * x * x * x)).tanh();
        Values(dinp + i0, i1 - i0) = ConstValues(dout + i0, i1 - i0) * (0.5f * (1.0f + t) + 0.5f * x * (1.0f - t * t) *
                                                                      kSqrt2OverPi * (1.0f + 3.0f * kCubic * x * x));
    });
}

void gated_forward(float* out, const float* gate, const float* up, int64_t n, Gate act) {
    parallel_chunks(n, kChunk, [&](int64_t i0, int64_t i1) {
        const ConstValues g(gate + i0, i1 - i0), u(up + i0, i1 - i0);
        Values o(out + i0, i1 - i0);
        if (act == Gate::SiLU) o = g / (1.0f + (-g).exp()) * u;
        else o = 0.5f * g * (1.0f + (kSqrt2OverPi * (g + kCubic * g * g * g)).tanh()) * u;
    });
}

void gated_backward(float* dgate, float* dup, const float* gate, const float* up, const float* dout, int64_t n, Gate act) {
    parallel_chunks(n, kChunk, [&](int64_t i0, int64_t i1) {
        const ConstValues g(gate + i0, i1 - i0), u(up + i0, i1 - i0), dy(dout + i0, i1 - i0);
        Eigen::ArrayXf a, da;  // act(g) and act'(g)
        if (act == Gate::SiLU) {
            const Eigen::ArrayXf sigma = 1.0f / (1.0f + (-g).exp());
            a = g * sigma;
            da = sigma * (1.0f + g * (1.0f - sigma));  // d/dx x·σ(x) = σ + x·σ·(1 − σ)
        } else {
            const Eigen::ArrayXf t = (kSqrt2OverPi * (g + kCubic * g * g * g)).tanh();
            a = 0.5f * g * (1.0f + t);
            da = 0.5f * (1.0f + t) + 0.5f * g * (1.0f - t * t) * kSqrt2OverPi * (1.0f + 3.0f * kCubic * g * g);
        }
        Values(dgate + i0, i1 - i0) = dy * u * da;
        Values(dup + i0, i1 - i0) = dy * a;
    });
}

}  // namespace attn
