// A GPT's initial weights, drawn as PyTorch draws them (torch_rng.hpp): PyTorch's module defaults in notebook 001's
// construction order, or nanoGPT's scheme (GPTConfig::init). Apart from gpt.cpp, which runs the model: the draws'
// order is what makes a seed give the notebooks' numbers, and it is read on its own.
#include "attn/gpt.hpp"

#include "attn/linear.hpp"

#include <cmath>

namespace attn {

namespace {

Tensor zeros_if(bool present, Shape shape) { return present ? Tensor(std::move(shape)) : Tensor(); }

// PyTorch's default initialisation in notebook 001's construction order:
// embeddings, then per block attention (W_q, W_k, W_v, W_o) and feed-forward,
// then the output projection. LayerNorms draw nothing.
void init_pytorch(GPT& m, Generator& gen) {
    const GPTConfig& c = m.config();
    const int64_t C = c.n_embd;
    Tensor discarded_wte(m.wte.shape);  // tied: drawn, then replaced by the head's values
    normal_(c.tie_embeddings ? discarded_wte : m.wte, 0.0, 1.0, gen);
    if (c.positions == Positions::Learned) normal_(m.wpe, 0.0, 1.0, gen);
    const bool qkv_bias = c.attention_bias || c.qkv_bias;
    for (GPTBlock& b : m.h) {
        int64_t row = 0;
        for (const int64_t rows : {c.q_width(), c.kv_width(), c.kv_width()}) {  // W_q, W_k, W_v: separate Linear layers
            Tensor w({rows, C});
            Tensor bias = zeros_if(qkv_bias, {rows});
            linear_init_(w, qkv_bias ? &bias : nullptr, gen);
            std::copy(w.data.begin(), w.data.end(), b.attn_c_attn_weight.data.begin() + row * C);
            if (qkv_bias) std::copy(bias.data.begin(), bias.data.end(), b.attn_c_attn_bias.data.begin() + row);
            row += rows;
        }
        linear_init_(b.attn_c_proj_weight, c.attention_bias ? &b.attn_c_proj_bias : nullptr, gen);
        if (c.attn_only) continue;  // no feed-forward modules, so no draws
        if (c.gated_mlp) linear_init_(b.mlp_c_gate_weight, nullptr, gen);  // gate_proj, then up_proj, as Llama's MLP
        linear_init_(b.mlp_c_fc_weight, c.bias ? &b.mlp_c_fc_bias : nullptr, gen);
        linear_init_(b.mlp_c_proj_weight, c.bias ? &b.mlp_c_proj_bias : nullptr, gen);
    }
    // Tied: the shared tensor is the output projection's (nanoGPT's direction).
    linear_init_(c.tie_embeddings ? m.wte : m.lm_head_weight, c.head_bias ? &m.lm_head_bias : nullptr, gen);
}

// nanoGPT's GPT.__init__: every module's default draws in its order (wte,
// wpe, per block c_attn, c_proj, c_fc, c_proj, then lm_head), then
// self.apply(_init_weights) in the same order, then the scaled re-draw of
// every c_proj.weight.
void init_gpt2(GPT& m, Generator& gen) {
    const GPTConfig& c = m.config();
    const bool learned = c.positions == Positions::Learned, qkv_bias = c.attention_bias || c.qkv_bias;
    Tensor discarded_wte(m.wte.shape);
    normal_(c.tie_embeddings ? discarded_wte : m.wte, 0.0, 1.0, gen);
    if (learned) normal_(m.wpe, 0.0, 1.0, gen);
    for (GPTBlock& b : m.h) {
        linear_init_(b.attn_c_attn_weight, qkv_bias ? &b.attn_c_attn_bias : nullptr, gen);
        linear_init_(b.attn_c_proj_weight, c.attention_bias ? &b.attn_c_proj_bias : nullptr, gen);
        if (c.attn_only) continue;  // no feed-forward modules, so no draws
        if (c.gated_mlp) linear_init_(b.mlp_c_gate_weight, nullptr, gen);
        linear_init_(b.mlp_c_fc_weight, c.bias ? &b.mlp_c_fc_bias : nullptr, gen);
        linear_init_(b.mlp_c_proj_weight, c.bias ? &b.mlp_c_proj_bias : nullptr, gen);
    }
    linear_init_(c.tie_embeddings ? m.wte : m.lm_head_weight, c.head_bias ? &m.lm_head_bias : nullptr, gen);

    auto zero = [](Tensor& t) { std::fill(t.data.begin(), t.data.end(), 0.0f); };
    normal_(m.wte, 0.0, 0.02, gen);
    if (learned) normal_(m.wpe, 0.0, 0.02, gen);
    for (GPTBlock& b : m.h) {
        normal_(b.attn_c_attn_weight, 0.0, 0.02, gen);
        zero(b.attn_c_attn_bias);
        normal_(b.attn_c_proj_weight, 0.0, 0.02, gen);
        zero(b.attn_c_proj_bias);
        if (c.attn_only) continue;
        if (c.gated_mlp) normal_(b.mlp_c_gate_weight, 0.0, 0.02, gen);
        normal_(b.mlp_c_fc_weight, 0.0, 0.02, gen);
        zero(b.mlp_c_fc_bias);
        normal_(b.mlp_c_proj_weight, 0.0, 0.02, gen);
        zero(b.mlp_c_proj_bias);
    }
    normal_(c.tie_embeddings ? m.wte : m.lm_head_weight, 0.0, 0.02, gen);
    zero(m.lm_head_bias);
    const double proj_std = 0.02 / std::sqrt(2.0 * static_cast<double>(c.n_layer));
    for (GPTBlock& b : m.h) {
        normal_(b.attn_c_proj_weight, 0.0, proj_std, gen);
        if (!c.attn_only) normal_(b.mlp_c_proj_weight, 0.0, proj_std, gen);
    }
}
}  // namespace

GPT::GPT(const GPTConfig& config) : config_((config.validate("GPT"), config)) {
    Generator gen(config_.seed);
    initialise(gen);
}

GPT::GPT(const GPTConfig& config, Generator& gen) : config_((config.validate("GPT"), config)) { initialise(gen); }

void GPT::initialise(Generator& gen) {
    allocate();
    if (config_.init == InitScheme::PyTorch) {
        init_pytorch(*this, gen);
    } else {
        init_gpt2(*this, gen);
    }
}

}  // namespace attn
