#include "attn/gpt.hpp"

#include "attention_kernel.hpp"
#include "attn/linear.hpp"
#include "gpt_blocks.hpp"
#include "thread_pool.hpp"

#include <cmath>
#include <cstdio>
#include <string>

namespace attn {

namespace {

Tensor to_tensor(const Matrix& m, Shape shape) {
    return Tensor(std::move(shape), std::vector<float>(m.data(), m.data() + m.size()));
}

}  // namespace

namespace {
// Every parameter of a model of config c, once, in nanoGPT's state_dict order: f(name, present, shape, starts_at_one,
// tensor), where `present` is false for what the config leaves out (a bias, a tied head) and `tensor` is its place
// in `m` (null when only the layout is asked for). allocate(), named_parameters() and parameter_layout() read this
// one list, so a name, a shape and its place cannot disagree.
template <typename Model, typename F>
void each_parameter(const GPTConfig& c, Model* m, F&& f) {
    const int64_t C = c.n_embd, Fw = c.n_inner, V = c.vocab_size, D = c.head_size();
    const int64_t Q = c.q_width() + 2 * c.kv_width();
    // A norm's gain starts at 1, except Gemma's, which multiplies by 1 + weight; only LayerNorm has a bias.
    const bool one = c.norm_type != NormType::GemmaRMSNorm, norm_bias = c.bias && c.norm_type == NormType::LayerNorm;
    const auto in = [&](auto& tensor) { return m ? &tensor : nullptr; };
    f("transformer.wte.weight", true, Shape{V, C}, false, m ? &m->wte : nullptr);
    f("transformer.wpe.weight", c.positions == Positions::Learned, Shape{c.block_size, C}, false, m ? &m->wpe : nullptr);
    for (int64_t l = 0; l < c.n_layer; ++l) {
        const std::string p = "transformer.h." + std::to_string(l) + ".";
        auto* b = m ? &m->h[static_cast<size_t>(l)] : nullptr;
        const auto at = [&](auto member) { return b ? &((*b).*member) : nullptr; };
        f(p + "ln_1.weight", true, Shape{C}, one, at(&GPTBlock::ln_1_weight));
        f(p + "ln_1.bias", norm_bias, Shape{C}, false, at(&GPTBlock::ln_1_bias));
        f(p + "attn.c_attn.weight", true, Shape{Q, C}, false, at(&GPTBlock::attn_c_attn_weight));
        f(p + "attn.c_attn.bias", c.attention_bias || c.qkv_bias, Shape{Q}, false, at(&GPTBlock::attn_c_attn_bias));
        f(p + "attn.q_norm.weight", c.qk_norm, Shape{D}, one, at(&GPTBlock::attn_q_norm_weight));
        f(p + "attn.k_norm.weight", c.qk_norm, Shape{D}, one, at(&GPTBlock::attn_k_norm_weight));
        f(p + "attn.c_proj.weight", true, Shape{C, c.q_width()}, false, at(&GPTBlock::attn_c_proj_weight));
        f(p + "attn.c_proj.bias", c.attention_bias, Shape{C}, false, at(&GPTBlock::attn_c_proj_bias));
        f(p + "ln_post_attn.weight", c.sandwich_norm, Shape{C}, one, at(&GPTBlock::ln_post_attn_weight));
        const bool mlp = !c.attn_only;
        f(p + "ln_2.weight", mlp, Shape{C}, one, at(&GPTBlock::ln_2_weight));
        f(p + "ln_2.bias", mlp && norm_bias, Shape{C}, false, at(&GPTBlock::ln_2_bias));
        f(p + "mlp.c_gate.weight", mlp && c.gated_mlp, Shape{Fw, C}, false, at(&GPTBlock::mlp_c_gate_weight));
        f(p + "mlp.c_fc.weight", mlp, Shape{Fw, C}, false, at(&GPTBlock::mlp_c_fc_weight));
        f(p + "mlp.c_fc.bias", mlp && c.bias, Shape{Fw}, false, at(&GPTBlock::mlp_c_fc_bias));
        f(p + "mlp.c_proj.weight", mlp, Shape{C, Fw}, false, at(&GPTBlock::mlp_c_proj_weight));
        f(p + "mlp.c_proj.bias", mlp && c.bias, Shape{C}, false, at(&GPTBlock::mlp_c_proj_bias));
        f(p + "ln_post_mlp.weight", mlp && c.sandwich_norm, Shape{C}, one, at(&GPTBlock::ln_post_mlp_weight));
    }
    const bool pre = c.norm == NormPlacement::Pre;
    f("transformer.ln_f.weight", pre, Shape{C}, one, m ? in(m->ln_f_weight) : nullptr);
    f("transformer.ln_f.bias", pre && norm_bias, Shape{C}, false, m ? in(m->ln_f_bias) : nullptr);
    f("lm_head.weight", !c.tie_embeddings, Shape{V, C}, false, m ? in(m->lm_head_weight) : nullptr);
    f("lm_head.bias", c.head_bias, Shape{V}, false, m ? in(m->lm_head_bias) : nullptr);
}
}  // namespace

namespace {
// kMaxWeightBytes against a model's weights as they would be stored.
void check_weight_bytes(double params, double bytes, const char* fn) {
    if (bytes > kMaxWeightBytes) {
        throw Error(std::string(fn) + ": a model of " + std::to_string(static_cast<int64_t>(params)) + " parameters takes " +
                    format_bytes(bytes) + " as stored, more than the library's limit of " +
                    format_number(kMaxWeightBytes / (int64_t{1} << 30)) + " GiB of weights (" +
                    std::to_string(static_cast<int64_t>(kMaxWeightBytes / 4)) +
                    " parameters in float32, twice as many kept in 16 bits, as a bf16 or f16 file holds them)");
    }
}
}  // namespace

void GPT::allocate(const std::function<Half(const std::string&)>& half) {
    // The weights as they will be stored, counted before any is allocated (kMaxWeightBytes).
    const auto kind_of = [&](const std::string& name, const Shape& shape) {
        return half && shape.size() == 2 ? half(name) : Half::None;
    };
    double bytes = 0, params = 0;
    each_parameter<const GPT>(config_, nullptr, [&](const std::string& name, bool present, const Shape& shape, bool, const Tensor*) {
        if (!present) return;
        params += static_cast<double>(numel(shape));
        bytes += static_cast<double>(numel(shape)) * (kind_of(name, shape) == Half::None ? 4 : 2);
    });
    check_weight_bytes(params, bytes, "GPT");
    h.resize(static_cast<size_t>(config_.n_layer));
    each_parameter(config_, this, [&](const std::string& name, bool present, const Shape& shape, bool one, Tensor* t) {
        const Half kind = present ? kind_of(name, shape) : Half::None;
        if (kind != Half::None) {
            *t = Tensor();
            t->shape = shape;
            t->half.assign(static_cast<size_t>(numel(shape)), 0);
            t->half_kind = kind;
            return;
        }
        *t = !present ? Tensor() : one ? Tensor(shape, std::vector<float>(static_cast<size_t>(numel(shape)), 1.0f)) : Tensor(shape);
    });
}

bool GPT::has_half_weights() const {
    for (const auto& [name, t] : named_parameters()) {
        if (t->is_half()) return true;
    }
    return false;
}

void GPT::widen_weights() {
    double params = 0;
    for (const auto& [name, t] : std::as_const(*this).named_parameters()) params += static_cast<double>(t->numel());
    check_weight_bytes(params, 4 * params, "GPT.widenWeights");
    for (auto& [name, t] : named_parameters()) {
        if (t->is_half()) *t = Tensor(t->shape, float_values(*t));
    }
}

std::vector<std::pair<std::string, const Tensor*>> GPT::named_parameters() const {
    std::vector<std::pair<std::string, const Tensor*>> out;
    each_parameter(config_, this, [&](const std::string& name, bool present, const Shape&, bool, const Tensor* t) {
        if (present) out.emplace_back(name, t);
    });
    return out;
}

std::vector<std::pair<std::string, Shape>> GPT::parameter_layout(const GPTConfig& config) {
    std::vector<std::pair<std::string, Shape>> out;
    each_parameter<const GPT>(config, nullptr, [&](const std::string& name, bool present, const Shape& shape, bool, const Tensor*) {
        if (present) out.emplace_back(name, shape);
    });
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
    if (batch <= 0 || batch * config_.block_size * config_.kv_width() > kMaxElements) {
        throw Error("GPT.newCache: expected a batch size in [1, " +
                    std::to_string(std::max<int64_t>(1, kMaxElements / (config_.block_size * config_.kv_width()))) + "], got " +
                    std::to_string(batch));
    }
    KVCache cache;
    cache.batch_ = batch;
    cache.k.resize(static_cast<size_t>(config_.n_layer));
    cache.v.resize(static_cast<size_t>(config_.n_layer));
    return cache;
}

namespace {
// Room for `length` positions per sequence: a cache grows as generation goes (doubling, up to block_size), so
// that a model of a 32k context costs memory for the tokens it has seen, not for the context it could see.
void reserve(KVCache& cache, int64_t length, const GPTConfig& c, int64_t& capacity) {
    if (length <= capacity) return;
    const int64_t grown = std::min(c.block_size, std::max({length, 2 * capacity, int64_t{64}}));
    const int64_t B = cache.batch(), KD = c.kv_width();
    for (std::vector<Matrix>* side : {&cache.k, &cache.v}) {
        for (Matrix& m : *side) {
            Matrix bigger = Matrix::Zero(B * grown, KD);
            for (int64_t b = 0; b < B && capacity > 0; ++b) bigger.block(b * grown, 0, capacity, KD) = m.block(b * capacity, 0, capacity, KD);
            m = std::move(bigger);
        }
    }
    capacity = grown;
}
}  // namespace

void GPT::check_pass_fits(const GPTConfig& c, int64_t B, int64_t T, int64_t T_k, const char* fn) {
    struct Buffer {
        const char* name;
        const char* dims;
        std::vector<int64_t> sizes;
    };
    const Buffer buffers[] = {
        {"queries, keys and values", "sequences × tokens × (heads + 2 · key/value heads) · head size",
         {B, T, c.q_width() + 2 * c.kv_width()}},
        {"attention weights", "sequences × heads × tokens × context", {B, c.n_head, T, T_k}},
        {"feed-forward activations", "sequences × tokens × feed-forward width", {B, T, c.attn_only ? 0 : c.n_inner}},
        {"logits", "sequences × tokens × vocabulary", {B, T, c.vocab_size}},
    };
    for (const Buffer& b : buffers) {
        double n = 1;
        std::string product;
        for (int64_t d : b.sizes) {
            n *= static_cast<double>(d);
            product += (product.empty() ? "" : " × ") + std::to_string(d);
        }
        if (n > static_cast<double>(kMaxElements)) {
            char whole[32];
            std::snprintf(whole, sizeof whole, "%.0f", n);
            throw Error(std::string(fn) + ": a pass of " + std::to_string(B) + " × " + std::to_string(T) + " tokens needs " +
                        b.name + " of " + std::string(whole) + " elements (" + b.dims + " = " + product +
                        "), more than the library's limit of " + std::to_string(kMaxElements) +
                        "; use fewer or shorter sequences" + (b.sizes.back() == c.vocab_size ? " or a smaller vocabulary" : ""));
        }
    }
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

void check_ids(const GPTConfig& c, const std::vector<int64_t>& ids, const blocks::Pass& p) {
    if (p.pos0 + p.T > c.block_size) {
        throw Error(std::string(p.fn) + ": a context of " + std::to_string(p.pos0 + p.T) + " tokens exceeds the block size " +
                    std::to_string(c.block_size));
    }
    for (size_t i = 0; i < ids.size(); ++i) {
        if (ids[i] < 0 || ids[i] >= c.vocab_size) {
            throw Error(std::string(p.fn) + ": expected token ids in [0, " + std::to_string(c.vocab_size) + "), got " +
                        std::to_string(ids[i]) + " at index " + std::to_string(i));
        }
    }
}

// A layer's queries, keys, values and weights for the trace (keys and values
// of every position the queries saw: the cache's, with one).
void trace_attention(GPTLayerTrace& lt, const GPTLayerActivations& L, const blocks::Pass& p, const GPTConfig& c, int64_t l) {
    const int64_t B = p.B, T_k = p.pos0 + p.T, HD = c.q_width(), KD = c.kv_width(), KV = c.kv_heads();
    lt.queries = split_heads(L.qkv.leftCols(HD), B, c.n_head);
    if (p.cache) {
        const int64_t stride = p.cache->capacity();
        Matrix ks(B * T_k, KD), vs(B * T_k, KD);
        for (int64_t b = 0; b < B; ++b) {
            ks.block(b * T_k, 0, T_k, KD) = p.cache->k[static_cast<size_t>(l)].block(b * stride, 0, T_k, KD);
            vs.block(b * T_k, 0, T_k, KD) = p.cache->v[static_cast<size_t>(l)].block(b * stride, 0, T_k, KD);
        }
        lt.keys = split_heads(ks, B, KV);
        lt.values = split_heads(vs, B, KV);
    } else {
        lt.keys = split_heads(L.qkv.middleCols(HD, KD), B, KV);
        lt.values = split_heads(L.qkv.rightCols(KD), B, KV);
    }
    lt.weights = Tensor({B, c.n_head, p.T, T_k}, L.att);
}

// The forward pass (gpt_blocks.hpp): the embedding, every block's attention
// and feed-forward steps, the head. In training every block keeps its
// activations in acts for backward; inference reuses one block's worth.
Tensor run(const GPT& m, const std::vector<int64_t>& ids, blocks::Pass p, GPTTrace* trace, GPTActivations& acts) {
    const GPTConfig& c = m.config();
    check_ids(c, ids, p);
    GPT::check_pass_fits(c, p.B, p.T, p.pos0 + p.T, p.fn);
    blocks::rope_tables_forward(m, p, acts);
    p.tables = &acts;
    const int64_t B = p.B, T = p.T, C = c.n_embd;
    acts.B = B;
    acts.T = T;
    acts.ids = ids;
    acts.layers.resize(static_cast<size_t>(p.training ? c.n_layer : 1));
    Matrix& x = acts.x_final;  // the residual stream, (N, C); after the last block what backward needs
    blocks::embedding_forward(m, ids, p, x, acts.emb_keep);
    if (trace) {
        trace->embeddings = to_tensor(x, {B, T, C});
        trace->layers.assign(static_cast<size_t>(c.n_layer), {});
    }
    for (int64_t l = 0; l < c.n_layer; ++l) {
        GPTLayerActivations& L = acts.layers[static_cast<size_t>(p.training ? l : 0)];
        GPTLayerTrace* lt = trace ? &trace->layers[static_cast<size_t>(l)] : nullptr;
        if (lt) {
            lt->input = to_tensor(x, {B, T, C});
            lt->scores = Tensor({B, c.n_head, T, p.pos0 + T});
        }
        blocks::attention_forward(m, l, p, x, L, lt ? lt->scores.data.data() : nullptr);
        if (lt) trace_attention(*lt, L, p, c, l);
        if (p.observe) (*p.observe)(l, L.att, L.qkv);
        if (c.attn_only) {
            x = L.x_1;
        } else {
            blocks::mlp_forward(m, l, p, L, x);
        }
        if (lt) lt->output = to_tensor(x, {B, T, C});
    }
    Tensor logits({B, T, c.vocab_size});
    blocks::head_forward(m, x, acts, logits.data.data());
    return logits;
}

// Finite weights can still overflow float32 on the way (weights of 3e38 load, and give NaN logits): inference
// says so, rather than let sampling pick token 0 from a row of NaN. Training checks its loss itself (trainer.cpp).
void check_logits_finite(const Tensor& logits, const blocks::Pass& p) {
    const int64_t V = logits.shape.back();
    const int64_t i = first_non_finite(logits.data.data(), logits.numel());
    if (i >= 0) {
        const int64_t row = i / V;
        throw Error(std::string(p.fn) + ": the model's logits are not finite (" +
                    (std::isnan(logits[i]) ? "NaN" : "Infinity") + " at batch row " + std::to_string(row / p.T) +
                    ", position " + std::to_string(row % p.T) +
                    "): its weights overflow float32 arithmetic, so this model cannot be run");
    }
}

// Inference reuses its activations between calls, so that a forward allocates
// only its result: one scratch per thread (the trainer evaluates batches on
// every core). One that a large batch grew beyond 16 MiB of stream is given back.
GPTActivations& inference_scratch() {
    thread_local GPTActivations scratch;
    return scratch;
}
void release_if_large(GPTActivations& scratch) {
    if (scratch.x_final.size() > (Eigen::Index{1} << 22)) scratch = GPTActivations();
}
}  // namespace

namespace {
// An inference pass over ids (B, T) with an optional head mask (n_layer, n_head), checked.
blocks::Pass inference_pass(const GPTConfig& c, const std::vector<int64_t>& ids, int64_t B, const Tensor* head_mask, const char* fn) {
    blocks::Pass p;
    p.fn = fn;
    p.B = B;
    p.T = sequence_length(ids, B, p.fn);
    if (head_mask) {
        if (head_mask->shape != Shape{c.n_layer, c.n_head})
            throw_shape(p.fn, "headMask", shape_str({c.n_layer, c.n_head}) + " (n_layer, n_head)", head_mask->shape);
        check_finite(*head_mask, p.fn, "headMask");
        p.head_mask = head_mask->data.data();
    }
    return p;
}
}  // namespace

int64_t inference_parts(const GPTConfig& config, int64_t B, int64_t T) {
    // Multiply-adds of the whole pass: every weight matrix once per token, and attention's T² per layer.
    const double work = static_cast<double>(B) * static_cast<double>(T) *
                        (config.matrix_parameters() + 2.0 * static_cast<double>(config.n_layer * T * config.q_width()));
    int64_t k = 1;
    while (k * 2 <= kMaxInferenceParts && B % (k * 2) == 0 && grain_for_work(work / static_cast<double>(k * 2)) == 1) k *= 2;
    return k;
}

Tensor GPT::forward(const std::vector<int64_t>& ids, int64_t B, GPTTrace* trace, const Tensor* head_mask) const {
    const blocks::Pass p = inference_pass(config_, ids, B, head_mask, "GPT.forward");
    const int64_t parts = trace ? 1 : inference_parts(config_, B, p.T);
    if (parts == 1) {
        GPTActivations& scratch = inference_scratch();
        Tensor logits = run(*this, ids, p, trace, scratch);
        release_if_large(scratch);
        check_logits_finite(logits, p);
        return logits;
    }
    // Checked whole first, so that a refused batch is reported as it would be unsplit.
    check_ids(config_, ids, p);
    check_pass_fits(config_, B, p.T, p.T, p.fn);
    const int64_t b = B / parts;
    const auto part_ids = static_cast<std::ptrdiff_t>(b * p.T);
    Tensor logits({B, p.T, config_.vocab_size});
    parallel_for(parts, [&](int64_t part) {
        blocks::Pass q = p;
        q.B = b;
        const std::vector<int64_t> slice(ids.begin() + part * part_ids, ids.begin() + (part + 1) * part_ids);
        GPTActivations& scratch = inference_scratch();  // this thread's
        const Tensor out = run(*this, slice, q, nullptr, scratch);
        release_if_large(scratch);
        std::copy(out.data.begin(), out.data.end(), logits.data.begin() + part * part_ids * config_.vocab_size);
    });
    check_logits_finite(logits, p);
    return logits;
}

Tensor GPT::forward_observed(const std::vector<int64_t>& ids, int64_t B, const AttentionObserver& observe,
                             const Tensor* head_mask) const {
    blocks::Pass p = inference_pass(config_, ids, B, head_mask, "GPT.forward");
    p.observe = &observe;
    GPTActivations& scratch = inference_scratch();
    Tensor logits = run(*this, ids, p, nullptr, scratch);
    release_if_large(scratch);
    check_logits_finite(logits, p);
    return logits;
}

Tensor GPT::forward_train(const std::vector<int64_t>& ids, int64_t B, GPTActivations& acts, Generator* dropout_gen) const {
    blocks::Pass p;
    p.fn = "GPT.forwardTrain";
    if (has_half_weights()) {
        throw Error(std::string(p.fn) + ": the model's weights are kept in 16 bits, as its file held them; training "
                    "updates float32 weights (load the model from a float32 file)");
    }
    p.B = B;
    p.T = sequence_length(ids, B, p.fn);
    p.training = true;
    p.dropout = dropout_gen ? config_.dropout : 0.0f;
    p.gen = dropout_gen;
    return run(*this, ids, p, nullptr, acts);
}

Tensor GPT::forward_cached(const std::vector<int64_t>& ids, int64_t B, KVCache& cache, GPTTrace* trace) const {
    blocks::Pass p;
    p.fn = "GPT.forwardCached";
    if (B != cache.batch()) {
        throw Error(std::string(p.fn) + ": the cache holds " + std::to_string(cache.batch()) + " sequences, got B=" +
                    std::to_string(B));
    }
    p.B = B;
    p.T = sequence_length(ids, B, p.fn);
    p.pos0 = cache.length();
    p.cache = &cache;
    if (p.pos0 + p.T > config_.block_size) check_ids(config_, ids, p);  // refused before the cache grows
    reserve(cache, p.pos0 + p.T, config_, cache.capacity_);
    GPTActivations& scratch = inference_scratch();
    Tensor logits = run(*this, ids, p, trace, scratch);
    release_if_large(scratch);
    check_logits_finite(logits, p);
    cache.length_ = p.pos0 + p.T;  // the cache now holds these tokens too
    return logits;
}

void GPT::backward(const GPTActivations& acts, const float* dlogits, GPT& g) const {
    Matrix dx, dx_1;
    blocks::head_backward(*this, acts, dlogits, g, dx);
    for (int64_t l = config_.n_layer - 1; l >= 0; --l) {
        const GPTLayerActivations& L = acts.layers[static_cast<size_t>(l)];
        if (config_.attn_only) {
            dx_1 = dx;
        } else {
            blocks::mlp_backward(*this, l, L, dx, g, dx_1);
        }
        blocks::attention_backward(*this, l, acts, dx_1, g, dx);
    }
    blocks::embedding_backward(*this, g, acts.ids, acts.T, acts.emb_keep, dx);
}

GPT::GPT(const GPTConfig& config, Uninitialised, const std::function<Half(const std::string&)>& half)
    : config_((config.validate("GPT"), config)) {
    allocate(half);
}

GPT GPT::zeros(const GPTConfig& config, const std::function<Half(const std::string&)>& half) {
    // allocate() leaves weights zero and LayerNorm gains at one: zero those too.
    GPT g(config, Uninitialised{}, half);
    for (auto& [name, t] : g.named_parameters()) std::fill(t->data.begin(), t->data.end(), 0.0f);
    return g;
}

}  // namespace attn
