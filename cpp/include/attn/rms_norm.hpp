// RMSNorm (Zhang & Sennrich 2019, "Root Mean Square Layer Normalization"), the norm of today's decoders in place of
// LayerNorm: no mean is subtracted and there is no bias,
//
//   y = x / sqrt(mean(x²) + eps) · (offset + w)
//
// over the last dimension, in float32 (Hugging Face's LlamaRMSNorm; offset 0). Gemma stores its weights centred on
// 0 and multiplies by 1 + w (Gemma3RMSNorm; offset 1).
#pragma once

#include <cstdint>

namespace attn {

// RMSNorm of N rows of C: inp (N, C), weight (C), out (N, C); rstd (N), when not null, keeps 1 / sqrt(mean(x²) + eps)
// of each row for the backward pass.
void rms_norm_forward(float* out, const float* inp, const float* weight, int64_t N, int64_t C, float eps, float offset,
                      float* rstd = nullptr);
// Gradients of rms_norm_forward: dinp += ..., dweight += ... (as layer_norm_backward accumulates).
void rms_norm_backward(float* dinp, float* dweight, const float* dout, const float* inp, const float* weight, const float* rstd,
                       int64_t N, int64_t C, float offset);

}  // namespace attn
