// nn.Linear: y = x Wᵀ + b, initialised the way PyTorch initialises it, so a
// seeded Linear has PyTorch's weights (SelfAttentionV2 in notebooks 000/002).
#pragma once

#include "attn/tensor.hpp"
#include "attn/torch_rng.hpp"

namespace attn {

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
