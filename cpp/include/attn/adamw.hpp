// torch.optim.AdamW (Loshchilov & Hutter 2019) as PyTorch's single-tensor
// path computes it, with nanoGPT's parameter groups: weight decay on every
// tensor of two or more dimensions (matrices, embeddings), none on biases and
// LayerNorm gains. Plus torch.nn.utils.clip_grad_norm_.
#pragma once

#include "attn/gpt.hpp"

#include <vector>

namespace attn {

class AdamW {
public:
    AdamW(const GPT& model, const AdamWOptions& options);

    // One update of every parameter of model from grads (a model of the same
    // config holding gradients), at learning rate lr:
    //   θ ← θ(1 - lr·λ);  m ← β₁m + (1-β₁)g;  v ← β₂v + (1-β₂)g²
    //   θ ← θ - lr/(1-β₁ᵗ) · m / (√v/√(1-β₂ᵗ) + ε)
    // Throws Error, changing nothing, if any new θ, m or v would not be finite.
    void step(GPT& model, const GPT& grads, float lr);

    AdamWOptions options;
    int64_t steps = 0;               // t
    std::vector<Tensor> exp_avg;     // m, aligned with model.named_parameters()
    std::vector<Tensor> exp_avg_sq;  // v
};

// Scales every gradient by max_norm / (‖g‖ + 1e-6) when ‖g‖ > max_norm, as
// clip_grad_norm_ does. Returns ‖g‖ (the global L2 norm before clipping).
float clip_grad_norm(GPT& grads, float max_norm);

}  // namespace attn
