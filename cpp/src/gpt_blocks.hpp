// The language model's forward pass as named steps, each beside its backward
// (llm.c's *_forward / *_backward pairs). GPT's forward passes (gpt.cpp) run
// them in order, GPT::backward in reverse.
//
//   embedding   x₀ = dropout(wte[id] (× √C, Gemma) + wpe[t] (learned positions))
//   attention   pre-norm  x₁ = x + a(LN₁(x))      post-norm  x₁ = LN₁(x + a(x))
//               a = dropout([post-norm] c_proj(attention(rope(qk-norm(c_attn(·))))))
//   mlp         pre-norm  x = x₁ + m(LN₂(x₁))     post-norm  x = LN₂(x₁ + m(x₁))
//               m = dropout([post-norm] c_proj(act(c_fc(·))))   gated: c_proj(act(c_gate(·)) ⊙ c_fc(·))
//   head        logits = (LN_f(x) or x) W_vocabᵀ (+ b)
//
// "LN" is the config's norm_type (LayerNorm, RMSNorm, Gemma's RMSNorm); the bracketed steps are today's
// decoders' (GPTConfig's second group of fields). Shapes: B sequences of T new tokens, N = B·T rows; C = n_embd,
// F = n_inner, H = n_head, KV key/value heads of D dimensions, Q = (H + 2·KV)·D, V = vocab_size; T_k = the keys
// seen (cached ones included).
#pragma once

#include "attn/gpt.hpp"

namespace attn::blocks {

// What a forward step needs besides the weights and the stream.
struct Pass {
    int64_t B = 0, T = 0;
    int64_t pos0 = 0;                // position of the first new token (the cache's length)
    KVCache* cache = nullptr;        // keys and values of earlier tokens, extended in place
    bool training = false;           // keep what backward needs (the block's input)
    float dropout = 0.0f;            // drawn from `gen` when > 0
    Generator* gen = nullptr;
    const float* head_mask = nullptr;  // (n_layer, n_head) multipliers of each head's weights, or null
    const GPT::AttentionObserver* observe = nullptr;  // sees each layer's weights (forward_observed)
    const GPTActivations* tables = nullptr;  // RoPE's cos and sin of the pass's positions (rotary models)
    const char* fn = "GPT.forward";  // the public function, for messages
};

// RoPE's tables (cos, sin) of positions pos0 … pos0 + T − 1, into acts: what every layer's attention and its
// backward turn queries and keys by. Nothing for learned positions.
void rope_tables_forward(const GPT& m, const Pass& p, GPTActivations& acts);

// x (N, C) ← wte[ids] + wpe[pos0 + t], then dropout (keep: its multipliers).
void embedding_forward(const GPT& m, const std::vector<int64_t>& ids, const Pass& p, Matrix& x, std::vector<float>& keep);
// Adds dx (N, C) into the rows of g.wte and g.wpe the forward read.
void embedding_backward(const GPT& m, GPT& g, const std::vector<int64_t>& ids, int64_t T, const std::vector<float>& keep,
                        Matrix& dx);

// L.x_1 (N, C) ← the attention sublayer on x (N, C) of layer l. `scores`, when
// not null, receives (B, H, T, T_k) the scaled, masked scores (for traces).
void attention_forward(const GPT& m, int64_t l, const Pass& p, const Matrix& x, GPTLayerActivations& L, float* scores);
// dx (N, C) ← the gradient of the block's input, given dx_1 (N, C) of its output.
void attention_backward(const GPT& m, int64_t l, const GPTActivations& acts, const Matrix& dx_1, GPT& g, Matrix& dx);

// x (N, C) ← the feed-forward sublayer on L.x_1 of layer l.
void mlp_forward(const GPT& m, int64_t l, const Pass& p, GPTLayerActivations& L, Matrix& x);
// dx_1 (N, C) ← the gradient of the block's input L.x_1, given dx (N, C) of its output.
void mlp_backward(const GPT& m, int64_t l, const GPTLayerActivations& L, const Matrix& dx, GPT& g, Matrix& dx_1);

// logits (N, V) ← the vocabulary projection of x (through the final
// LayerNorm of pre-norm models, kept in acts.ln_f).
void head_forward(const GPT& m, const Matrix& x, GPTActivations& acts, float* logits);
// dx (N, C) ← the gradient of the last block's output, given dlogits (N, V).
void head_backward(const GPT& m, const GPTActivations& acts, const float* dlogits, GPT& g, Matrix& dx);

}  // namespace attn::blocks
