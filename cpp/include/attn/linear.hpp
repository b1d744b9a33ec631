// nn.Linear: y = x Wᵀ + b, initialised the way PyTorch initialises it, so a
// seeded Linear has PyTorch's weights (SelfAttentionV2 in notebooks 000/002).
#pragma once

#include "attn/tensor.hpp"
#include "attn/torch_rng.hpp"

namespace attn {

// out = inp Wᵀ + b on N rows: inp (N, C), weight (OC, C), bias (OC) or null,
// out (N, OC). The kernel behind Linear::forward and every projection of the
// language model.
void linear_forward(float* out, const float* inp, const float* weight, const float* bias, int64_t N,
                    int64_t C, int64_t OC);

// Gradients of linear_forward: dinp = dout W (overwritten; may be null),
// dweight += doutᵀ inp, dbias += Σ_rows dout (may be null).
void linear_backward(float* dinp, float* dweight, float* dbias, const float* dout, const float* inp,
                     const float* weight, int64_t N, int64_t C, int64_t OC);

// nn.Linear.reset_parameters on existing tensors: weight (out, in) then bias
// (out, may be null), each uniform(-1/√in, 1/√in).
void linear_init_(Tensor& weight, Tensor* bias, Generator& gen);

class Linear {
public:
    // Draws weight (out, in) then bias (out), each uniform(-1/√in, 1/√in):
    // torch/nn/modules/linear.py reset_parameters (kaiming_uniform_ with
    // a=√5 for the weight, whose bound works out to 1/√fan_in).
    Linear(int64_t in_features, int64_t out_features, bool bias = true,
           Generator& gen = default_generator());

    // x (..., in) -> (..., out)
    Tensor forward(const Tensor& x) const;

    int64_t in_features() const { return weight.shape[1]; }
    int64_t out_features() const { return weight.shape[0]; }
    bool has_bias() const { return bias.dim() == 1; }

    Tensor weight;  // (out, in)
    Tensor bias;    // (out), or an empty Tensor (dim 0) when built without a bias
};

}  // namespace attn
