#include "attn/gpt.hpp"

#include "attn/activations.hpp"
#include "attn/dropout.hpp"
#include "attn/attention_kernel.hpp"
#include "attn/layer_norm.hpp"
#include "attn/linear.hpp"

#include <cmath>
#include <string>

namespace attn {

namespace {
const float* ptr(const Tensor& t) { return t.data.empty() ? nullptr : t.data.data(); }

Tensor zeros_if(bool present, Shape shape) { return present ? Tensor(std::move(shape)) : Tensor(); }
Tensor ones(int64_t n) { return Tensor({n}, std::vector<float>(static_cast<size_t>(n), 1.0f)); }

Tensor to_tensor(const Matrix& m, Shape shape) {
    return Tensor(std::move(shape), std::vector<float>(m.data(), m.data() + m.size()));
}

// PyTorch's default initialisation in notebook 001's construction order:
// embeddings, then per block attention (W_q, W_k, W_v, W_o) and feed-forward,
// then the output projection. LayerNorms draw nothing.
void init_pytorch(GPT& m, Generator& gen) {
    const GPTConfig& c = m.config();
    const int64_t C = c.n_embd;
    Tensor discarded_wte(m.wte.shape);  // tied: drawn, then replaced by the head's values
    normal_(c.tie_embeddings ? discarded_wte : m.wte, 0.0, 1.0, gen);
    normal_(m.wpe, 0.0, 1.0, gen);
    for (GPTBlock& b : m.h) {
        for (int64_t p = 0; p < 3; ++p) {  // W_q, W_k, W_v: separate Linear(C, C) layers
            Tensor w({C, C});
            Tensor bias = zeros_if(c.attention_bias, {C});
            linear_init_(w, c.attention_bias ? &bias : nullptr, gen);
            std::copy(w.data.begin(), w.data.end(), b.attn_c_attn_weight.data.begin() + p * C * C);
            if (c.attention_bias) std::copy(bias.data.begin(), bias.data.end(), b.attn_c_attn_bias.data.begin() + p * C);
        }
        linear_init_(b.attn_c_proj_weight, c.attention_bias ? &b.attn_c_proj_bias : nullptr, gen);
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
    Tensor discarded_wte(m.wte.shape);
    normal_(c.tie_embeddings ? discarded_wte : m.wte, 0.0, 1.0, gen);
    normal_(m.wpe, 0.0, 1.0, gen);
    for (GPTBlock& b : m.h) {
        linear_init_(b.attn_c_attn_weight, c.attention_bias ? &b.attn_c_attn_bias : nullptr, gen);
        linear_init_(b.attn_c_proj_weight, c.attention_bias ? &b.attn_c_proj_bias : nullptr, gen);
        linear_init_(b.mlp_c_fc_weight, c.bias ? &b.mlp_c_fc_bias : nullptr, gen);
        linear_init_(b.mlp_c_proj_weight, c.bias ? &b.mlp_c_proj_bias : nullptr, gen);
    }
    linear_init_(c.tie_embeddings ? m.wte : m.lm_head_weight, c.head_bias ? &m.lm_head_bias : nullptr, gen);

    auto zero = [](Tensor& t) { std::fill(t.data.begin(), t.data.end(), 0.0f); };
    normal_(m.wte, 0.0, 0.02, gen);
    normal_(m.wpe, 0.0, 0.02, gen);
    for (GPTBlock& b : m.h) {
        normal_(b.attn_c_attn_weight, 0.0, 0.02, gen);
        zero(b.attn_c_attn_bias);
        normal_(b.attn_c_proj_weight, 0.0, 0.02, gen);
        zero(b.attn_c_proj_bias);
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
        normal_(b.mlp_c_proj_weight, 0.0, proj_std, gen);
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

void GPT::allocate() {
    const GPTConfig& c = config_;
    const int64_t C = c.n_embd, F = c.n_inner, V = c.vocab_size;
    wte = Tensor({V, C});
    wpe = Tensor({c.block_size, C});
    h.resize(static_cast<size_t>(c.n_layer));
    for (GPTBlock& b : h) {
        b.ln_1_weight = ones(C);
        b.ln_1_bias = zeros_if(c.bias, {C});
        b.attn_c_attn_weight = Tensor({3 * C, C});
        b.attn_c_attn_bias = zeros_if(c.attention_bias, {3 * C});
        b.attn_c_proj_weight = Tensor({C, C});
        b.attn_c_proj_bias = zeros_if(c.attention_bias, {C});
        b.ln_2_weight = ones(C);
        b.ln_2_bias = zeros_if(c.bias, {C});
        b.mlp_c_fc_weight = Tensor({F, C});
        b.mlp_c_fc_bias = zeros_if(c.bias, {F});
        b.mlp_c_proj_weight = Tensor({C, F});
        b.mlp_c_proj_bias = zeros_if(c.bias, {C});
    }
    if (c.norm == NormPlacement::Pre) {
        ln_f_weight = ones(C);
        ln_f_bias = zeros_if(c.bias, {C});
    }
    lm_head_weight = c.tie_embeddings ? Tensor() : Tensor({V, C});
    lm_head_bias = zeros_if(c.head_bias, {V});
}

std::vector<std::pair<std::string, const Tensor*>> GPT::named_parameters() const {
    std::vector<std::pair<std::string, const Tensor*>> out;
    auto add = [&](std::string name, const Tensor& t) {
        if (!t.data.empty()) out.emplace_back(std::move(name), &t);
    };
    add("transformer.wte.weight", wte);
    add("transformer.wpe.weight", wpe);
    for (size_t i = 0; i < h.size(); ++i) {
        const std::string p = "transformer.h." + std::to_string(i) + ".";
        const GPTBlock& b = h[i];
        add(p + "ln_1.weight", b.ln_1_weight);
        add(p + "ln_1.bias", b.ln_1_bias);
        add(p + "attn.c_attn.weight", b.attn_c_attn_weight);
        add(p + "attn.c_attn.bias", b.attn_c_attn_bias);
        add(p + "attn.c_proj.weight", b.attn_c_proj_weight);
        add(p + "attn.c_proj.bias", b.attn_c_proj_bias);
        add(p + "ln_2.weight", b.ln_2_weight);
        add(p + "ln_2.bias", b.ln_2_bias);
        add(p + "mlp.c_fc.weight", b.mlp_c_fc_weight);
        add(p + "mlp.c_fc.bias", b.mlp_c_fc_bias);
        add(p + "mlp.c_proj.weight", b.mlp_c_proj_weight);
        add(p + "mlp.c_proj.bias", b.mlp_c_proj_bias);
    }
    add("transformer.ln_f.weight", ln_f_weight);
    add("transformer.ln_f.bias", ln_f_bias);
    add("lm_head.weight", lm_head_weight);
    add("lm_head.bias", lm_head_bias);
    return out;
}

std::vector<std::pair<std::string, Tensor*>> GPT::named_parameters() {
    std::vector<std::pair<std::string, Tensor*>> out;
    for (auto& [name, t] : std::as_const(*this).named_parameters()) out.emplace_back(name, const_cast<Tensor*>(t));
    return out;
}

int64_t GPT::num_parameters(bool non_embedding) const {
    int64_t n = 0;
    for (const auto& [name, t] : named_parameters()) n += t->numel();
    return non_embedding ? n - wpe.numel() : n;
}

KVCache GPT::new_cache(int64_t batch) const {
    if (batch <= 0 || batch * config_.block_size * config_.n_embd > kMaxElements) {
        throw Error("GPT.newCache: expected a batch size in [1, " +
                    std::to_string(kMaxElements / (config_.block_size * config_.n_embd)) + "], got " +
                    std::to_string(batch));
    }
    KVCache cache;
    cache.batch = batch;
    for (int64_t l = 0; l < config_.n_layer; ++l) {
        cache.k.emplace_back(Matrix::Zero(batch * config_.block_size, config_.n_embd));
        cache.v.emplace_back(Matrix::Zero(batch * config_.block_size, config_.n_embd));
    }
    return cache;
}

namespace {
// T of ids laid out as (B, T); throws Error naming fn unless B, T > 0.
int64_t sequence_length(const std::vector<int64_t>& ids, int64_t B, const char* fn) {
    if (B <= 0 || ids.empty() || ids.size() % static_cast<size_t>(B) != 0) {
        throw Error(std::string(fn) + ": expected ids of shape [B, T] with B, T > 0, got " + std::to_string(ids.size()) +
                    " ids for B=" + std::to_string(B));
    }
    return static_cast<int64_t>(ids.size()) / B;
}
}  // namespace

Tensor GPT::forward(const std::vector<int64_t>& ids, int64_t B, GPTTrace* trace) const {
    constexpr const char* fn = "GPT.forward";
    return run(ids, B, sequence_length(ids, B, fn), nullptr, trace, nullptr, nullptr, fn);
}

Tensor GPT::forward_train(const std::vector<int64_t>& ids, int64_t B, GPTActivations& acts, Generator* dropout_gen) const {
    constexpr const char* fn = "GPT.forwardTrain";
    return run(ids, B, sequence_length(ids, B, fn), nullptr, nullptr, &acts, dropout_gen, fn);
}

Tensor GPT::forward_cached(const std::vector<int64_t>& ids, int64_t B, KVCache& cache, GPTTrace* trace) const {
    constexpr const char* fn = "GPT.forwardCached";
    if (B != cache.batch) {
        throw Error(std::string(fn) + ": the cache holds " + std::to_string(cache.batch) + " sequences, got B=" +
                    std::to_string(B));
    }
    return run(ids, B, sequence_length(ids, B, fn), &cache, trace, nullptr, nullptr, fn);
}

GPT::GPT(const GPTConfig& config, Uninitialised) : config_((config.validate("GPT"), config)) { allocate(); }

GPT GPT::zeros(const GPTConfig& config) {
    // allocate() leaves weights zero and LayerNorm gains at one: zero those too.
    GPT g(config, Uninitialised{});
    for (auto& [name, t] : g.named_parameters()) std::fill(t->data.begin(), t->data.end(), 0.0f);
    return g;
}

Tensor GPT::run(const std::vector<int64_t>& ids, int64_t B, int64_t T, KVCache* cache, GPTTrace* trace,
                GPTActivations* kept, Generator* dropout_gen, const char* fn) const {
    const GPTConfig& c = config_;
    const int64_t C = c.n_embd, H = c.n_head, F = c.n_inner, V = c.vocab_size, N = B * T;
    const int64_t pos0 = cache ? cache->length : 0, T_k = pos0 + T;
    if (T_k > c.block_size) {
        throw Error(std::string(fn) + ": a context of " + std::to_string(T_k) + " tokens exceeds the block size " +
                    std::to_string(c.block_size));
    }
    for (size_t i = 0; i < ids.size(); ++i) {
        if (ids[i] < 0 || ids[i] >= V) {
            throw Error(std::string(fn) + ": expected token ids in [0, " + std::to_string(V) + "), got " +
                        std::to_string(ids[i]) + " at index " + std::to_string(i));
        }
    }
    const bool pre = c.norm == NormPlacement::Pre;
    const float p = dropout_gen ? c.dropout : 0.0f;
    GPTActivations local;
    GPTActivations& acts = kept ? *kept : local;
    acts.B = B;
    acts.T = T;
    acts.ids = ids;
    acts.layers.resize(static_cast<size_t>(c.n_layer));

    // x: the residual stream, one row per (b, t).
    Matrix x(N, C);
    const auto wte_m = matrix(wte);
    const auto wpe_m = matrix(wpe);
    for (int64_t r = 0; r < N; ++r) x.row(r) = wte_m.row(ids[static_cast<size_t>(r)]) + wpe_m.row(pos0 + r % T);
    acts.emb_keep.clear();
    if (p > 0) {
        dropout_mask(acts.emb_keep, N * C, p, *dropout_gen);
        apply_mask(x.data(), acts.emb_keep);
    }
    if (trace) {
        trace->embeddings = to_tensor(x, {B, T, C});
        trace->layers.assign(static_cast<size_t>(c.n_layer), {});
    }

    AttentionOptions causal;
    causal.causal = true;
    Matrix a(N, C), m(N, C);
    for (int64_t l = 0; l < c.n_layer; ++l) {
        const GPTBlock& blk = h[static_cast<size_t>(l)];
        GPTLayerActivations& L = acts.layers[static_cast<size_t>(l)];
        GPTLayerTrace* lt = trace ? &trace->layers[static_cast<size_t>(l)] : nullptr;
        L.input = x;
        if (lt) lt->input = to_tensor(x, {B, T, C});
        L.ln_1_mean.resize(static_cast<size_t>(N));
        L.ln_1_rstd.resize(static_cast<size_t>(N));
        L.ln_2_mean.resize(static_cast<size_t>(N));
        L.ln_2_rstd.resize(static_cast<size_t>(N));

        // ---- attention sublayer: a = c_proj(attention(c_attn(LN₁(x) or x)))
        L.ln_1.resize(N, C);
        if (pre) {
            layer_norm_forward(L.ln_1.data(), x.data(), ptr(blk.ln_1_weight), ptr(blk.ln_1_bias), N, C, 1e-5f,
                               L.ln_1_mean.data(), L.ln_1_rstd.data());
        }
        L.qkv.resize(N, 3 * C);
        linear_forward(L.qkv.data(), (pre ? L.ln_1 : x).data(), ptr(blk.attn_c_attn_weight), ptr(blk.attn_c_attn_bias),
                       N, C, 3 * C);
        L.att.resize(static_cast<size_t>(B * H * T * T_k));
        L.y.resize(N, C);
        float* scores = nullptr;
        if (lt) {
            lt->scores = Tensor({B, H, T, T_k});
            scores = lt->scores.data.data();
        }
        if (cache) {
            const int64_t stride = c.block_size;
            Matrix& kc = cache->k[static_cast<size_t>(l)];
            Matrix& vc = cache->v[static_cast<size_t>(l)];
            for (int64_t b = 0; b < B; ++b) {
                kc.block(b * stride + pos0, 0, T, C) = L.qkv.block(b * T, C, T, C);
                vc.block(b * stride + pos0, 0, T, C) = L.qkv.block(b * T, 2 * C, T, C);
            }
            for (int64_t b = 0; b < B; ++b) {
                const int64_t off = b * H * T * T_k;
                multi_head_attention_forward(L.qkv.block(b * T, 0, T, C), kc.block(b * stride, 0, T_k, C),
                                             vc.block(b * stride, 0, T_k, C), 1, H, causal, L.y.block(b * T, 0, T, C),
                                             scores ? scores + off : nullptr, L.att.data() + off, fn);
            }
            if (lt) {
                Matrix ks(B * T_k, C), vs(B * T_k, C);
                for (int64_t b = 0; b < B; ++b) {
                    ks.block(b * T_k, 0, T_k, C) = kc.block(b * stride, 0, T_k, C);
                    vs.block(b * T_k, 0, T_k, C) = vc.block(b * stride, 0, T_k, C);
                }
                lt->keys = split_heads(ks, B, H);
                lt->values = split_heads(vs, B, H);
            }
        } else {
            // Attention dropout acts on the weights between softmax and V; the
            // mask is drawn before the kernel runs (the kernel draws nothing).
            L.att_keep.clear();
            if (p > 0) dropout_mask(L.att_keep, B * H * T * T, p, *dropout_gen);
            multi_head_attention_forward(L.qkv.leftCols(C), L.qkv.middleCols(C, C), L.qkv.rightCols(C), B, H, causal,
                                         L.y, scores, L.att.data(), fn, L.att_keep.empty() ? nullptr : L.att_keep.data());
        }
        if (lt) {
            lt->queries = split_heads(L.qkv.leftCols(C), B, H);
            if (!cache) {
                lt->keys = split_heads(L.qkv.middleCols(C, C), B, H);
                lt->values = split_heads(L.qkv.rightCols(C), B, H);
            }
            lt->weights = Tensor({B, H, T, T_k}, L.att);
        }
        linear_forward(a.data(), L.y.data(), ptr(blk.attn_c_proj_weight), ptr(blk.attn_c_proj_bias), N, C, C);
        L.resid_1_keep.clear();
        if (p > 0) {
            dropout_mask(L.resid_1_keep, N * C, p, *dropout_gen);
            apply_mask(a.data(), L.resid_1_keep);
        }
        L.ln_2.resize(N, C);
        if (pre) {
            L.x_1 = x + a;
            layer_norm_forward(L.ln_2.data(), L.x_1.data(), ptr(blk.ln_2_weight), ptr(blk.ln_2_bias), N, C, 1e-5f,
                               L.ln_2_mean.data(), L.ln_2_rstd.data());
        } else {
            L.ln_1 = x + a;  // post-norm: LN₁'s input
            L.x_1.resize(N, C);
            layer_norm_forward(L.x_1.data(), L.ln_1.data(), ptr(blk.ln_1_weight), ptr(blk.ln_1_bias), N, C, 1e-5f,
                               L.ln_1_mean.data(), L.ln_1_rstd.data());
        }

        // ---- feed-forward sublayer: m = c_proj(act(c_fc(LN₂(x₁) or x₁)))
        L.fc.resize(N, F);
        linear_forward(L.fc.data(), (pre ? L.ln_2 : L.x_1).data(), ptr(blk.mlp_c_fc_weight), ptr(blk.mlp_c_fc_bias), N,
                       C, F);
        L.act = L.fc;
        if (c.activation == Activation::GELU) {
            gelu_forward(L.act.data(), N * F);
        } else {
            relu_forward(L.act.data(), N * F);
        }
        linear_forward(m.data(), L.act.data(), ptr(blk.mlp_c_proj_weight), ptr(blk.mlp_c_proj_bias), N, F, C);
        L.resid_2_keep.clear();
        if (p > 0) {
            dropout_mask(L.resid_2_keep, N * C, p, *dropout_gen);
            apply_mask(m.data(), L.resid_2_keep);
        }
        if (pre) {
            x = L.x_1 + m;
        } else {
            L.ln_2 = L.x_1 + m;  // post-norm: LN₂'s input
            layer_norm_forward(x.data(), L.ln_2.data(), ptr(blk.ln_2_weight), ptr(blk.ln_2_bias), N, C, 1e-5f,
                               L.ln_2_mean.data(), L.ln_2_rstd.data());
        }
        if (lt) lt->output = to_tensor(x, {B, T, C});
    }

    acts.x_final = x;
    if (pre) {
        acts.ln_f.resize(N, C);
        acts.ln_f_mean.resize(static_cast<size_t>(N));
        acts.ln_f_rstd.resize(static_cast<size_t>(N));
        layer_norm_forward(acts.ln_f.data(), x.data(), ptr(ln_f_weight), ptr(ln_f_bias), N, C, 1e-5f,
                           acts.ln_f_mean.data(), acts.ln_f_rstd.data());
    }
    Tensor logits({B, T, V});
    linear_forward(logits.data.data(), (pre ? acts.ln_f : x).data(), ptr(head_weight()), ptr(lm_head_bias), N, C, V);
    if (cache) cache->length = T_k;
    return logits;
}

}  // namespace attn
