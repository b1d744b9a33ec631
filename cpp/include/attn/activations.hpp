// The feed-forward non-linearities of the language model, as in-place kernels
// over n values: ReLU (notebook 001's nn.ReLU) and the exact, erf-based GELU
// (nanoGPT's nn.GELU(), Hendrycks & Gimpel 2016), and its tanh approximation
// 0.5·x·(1 + tanh(√(2/π)·(x + 0.044715·x³))), which GPT-2 was trained with
// (Hugging Face's "gelu_new", PyTorch's GELU(approximate='tanh')).
//
// Today's decoders gate their feed-forward instead (Shazeer 2020, "GLU Variants Improve Transformer"):
// down(act(gate(x)) ⊙ up(x)), with act SiLU, x·σ(x), in SwiGLU (Llama, Mistral, Qwen: hidden_act "silu") and the
// tanh GELU in GeGLU (Gemma: "gelu_pytorch_tanh"). gated_forward computes the product act(gate) ⊙ up.
#pragma once

#include <cstdint>

namespace attn {

void relu_forward(float* x, int64_t n);
void gelu_forward(float* x, int64_t n);
void gelu_tanh_forward(float* x, int64_t n);

// dinp = dout ⊙ f'(inp), where inp is the activation's input (pre-activation).
void relu_backward(float* dinp, const float* inp, const float* dout, int64_t n);
void gelu_backward(float* dinp, const float* inp, const float* dout, int64_t n);
void gelu_tanh_backward(float* dinp, const float* inp, const float* dout, int64_t n);

enum class Gate { SiLU, GELUTanh };
// out = act(gate) ⊙ up, n values each.
void gated_forward(float* out, const float* gate, const float* up, int64_t n, Gate act);
// dgate = dout ⊙ up ⊙ act'(gate), dup = dout ⊙ act(gate) (written, not accumulated).
void gated_backward(float* dgate, float* dup, const float* gate, const float* up, const float* dout, int64_t n, Gate act);

}  // namespace attn
