// nn.LayerNorm over the last dimension: (x - mean) / sqrt(var + eps) * γ + β,
// with the biased variance, as PyTorch computes it. γ starts at ones and β at
// zeros (no random draws, so creating one does not move the generator).
#pragma once

#include "attn/tensor.hpp"

namespace attn {

// LayerNorm of N rows of C: inp (N, C), weight (C), bias (C) or null, out (N, C).
// mean and rstd (N each), when not null, keep the statistics for the backward pass.
void layer_norm_forward(float* out, const float* inp, const float* weight, const float* bias, int64_t N,
                        int64_t C, float eps = 1e-5f, float* mean = nullptr, float* rstd = nullptr);
// Gradients of layer_norm_forward (llm.c's form): dinp += ..., dweight += ...,
// dbias += ... (null without bias).
void layer_norm_backward(float* dinp, float* dweight, float* dbias, const float* dout, const float* inp,
                         const float* weight, const float* mean, const float* rstd, int64_t N, int64_t C);

class LayerNorm {
public:
    explicit LayerNorm(int64_t normalized_shape, float eps = 1e-5f);

    // x (..., C) -> (..., C)
    Tensor forward(const Tensor& x) const;

    int64_t features() const { return weight.shape[0]; }

    Tensor weight;  // (C) γ
    Tensor bias;    // (C) β
    float eps;
};

}  // namespace attn
