// Glue for attention itself: random numbers, softmax, attention without and
// with trainable weights, masks, scaled dot-product attention, the layers and
// multi-head attention (notebooks 000, 002-004; notebook 001 §6-7).
#include "glue.hpp"
#include "traces.hpp"

#include "attn/config.hpp"
#include "attn/mask.hpp"
#include "attn/online_softmax.hpp"
#include "attn/rope.hpp"
#include "attn/scaled_dot_product_attention.hpp"
#include "attn/score_explanation.hpp"
#include "attn/simple_attention.hpp"
#include "attn/sinusoidal_positions.hpp"
#include "attn/softmax.hpp"
#include "attn/threads.hpp"
#include "attn/torch_rng.hpp"

#include <emscripten/stack.h>

#include <malloc.h>

namespace attn::js {

namespace {
AttentionOptions to_options(const JsAttentionOptions& o, const char* fn) {
    AttentionOptions opts;
    opts.causal = o.causal;
    if (!o.keyLengths.isNull()) opts.key_lengths = to_ids(o.keyLengths, fn);
    if (std::optional<Tensor> mask = optional_tensor(o.mask, fn, "mask")) opts.mask = std::move(*mask);
    opts.fill_value = static_cast<float>(o.fillValue);
    if (!o.scale.isNull()) opts.scale = static_cast<float>(o.scale.as<double>());
    opts.window = to_integer(o.window, fn, "window");
    return opts;
}

template <Tensor (*F)(const Tensor&)>
val unary(const JsTensor& x, const char* fn, const char* name) {
    return guarded(fn, [&] {
        Tensor t = to_tensor(x, fn, name);
        check_finite(t, fn, name);
        return to_js(F(t));
    });
}

// softmax, softmaxNaive and normalizeSum along `dim`, as torch's dim.
template <Tensor (*F)(const Tensor&, int64_t)>
val along_dim(const JsTensor& x, int dim, const char* fn) {
    return guarded(fn, [&] {
        Tensor t = to_tensor(x, fn, "scores");
        check_finite(t, fn, "scores");
        return to_js(F(t, dim));
    });
}

template <typename M>
val module_forward(const M& m, const JsTensor& x, const char* fn) {
    return guarded(fn, [&] { return to_js(m.forward(to_tensor(x, fn, "x"))); });
}

// A parameter tensor, copied out.
val parameter(const Tensor& t) {
    return guarded("parameter", [&] { return to_js(t); });
}

// A Linear owned by another object crosses as plain data: {weight (out, in), bias (out) | null}.
val linear_params(const Linear& m) {
    return guarded("parameter", [&] {
        val out = val::object();
        out.set("weight", val(to_js(m.weight)));
        out.set("bias", m.has_bias() ? val(to_js(m.bias)) : val::null());
        return out;
    });
}
}  // namespace

// What the module holds, for tests and for apps that watch their memory:
// the WASM memory's size (it grows, and never shrinks), the bytes malloc holds,
// and the stack in use seen from this call (the same between calls).
val memory_usage() {
    const struct mallinfo info = mallinfo();
    val out = val::object();
    out.set("memoryBytes", static_cast<double>(__builtin_wasm_memory_size(0)) * 65536.0);
    out.set("heapBytes", static_cast<double>(info.uordblks));
    out.set("stackBytes", static_cast<double>(emscripten_stack_get_base() - emscripten_stack_get_current()));
    return out;
}

// ---- threads: set once by the JS loader (web/lib/threads.js) ------------------

val set_threads(double n) {
    return guarded("createAttention", [&] {
        if (n != std::floor(n) || !(std::abs(n) < 1e9)) {
            throw Error("createAttention: expected threads as an integer, got " + format_number(n));
        }
        attn::set_num_threads(static_cast<int>(n), "createAttention");
        return attn::num_threads();
    });
}

int max_threads() { return attn::kMaxThreads; }
int default_max_threads() { return attn::kDefaultMaxThreads; }

// ---- random numbers ---------------------------------------------------------

val manual_seed(double seed) {
    return guarded("manualSeed", [&] { attn::manual_seed(to_seed(seed, "manualSeed")); });
}

val rand_uniform(const val& shape) {
    return guarded("rand", [&] { return to_js(attn::rand(to_shape(shape, "rand", "the"))); });
}

val rand_normal(const val& shape) {
    return guarded("randn", [&] { return to_js(attn::randn(to_shape(shape, "randn", "the"))); });
}

val rand_int(double low, double high, const val& shape) {
    return guarded("randint", [&] {
        if (low != std::floor(low) || high != std::floor(high) || low < -2147483648.0 || high > 2147483648.0) {
            throw Error("randint: expected integer bounds within int32, got low=" + format_number(low) +
                        ", high=" + format_number(high));
        }
        const Shape s = to_shape(shape, "randint", "the");
        return int_tensor_to_js(attn::randint(static_cast<int64_t>(low), static_cast<int64_t>(high), s), s);
    });
}

// ---- softmax and attention without weights -----------------------------------

val softmax(const JsTensor& x, int dim) { return along_dim<attn::softmax>(x, dim, "softmax"); }
val softmax_naive(const JsTensor& x, int dim) { return along_dim<attn::softmax_naive>(x, dim, "softmaxNaive"); }
val normalize_sum(const JsTensor& x, int dim) { return along_dim<attn::normalize_sum>(x, dim, "normalizeSum"); }
val attention_scores(const JsTensor& x) { return unary<attn::attention_scores>(x, "attentionScores", "inputs"); }
val attention_scores_loop(const JsTensor& x) {
    return unary<attn::attention_scores_loop>(x, "attentionScoresLoop", "inputs");
}

val attention_scores_for_query(const JsTensor& x, double q) {
    constexpr const char* fn = "attentionScoresForQuery";
    return guarded(fn, [&] {
        return to_js(attn::attention_scores_for_query(to_tensor(x, fn, "inputs"), to_integer(q, fn, "query index")));
    });
}

val context_vector(const JsTensor& w, const JsTensor& x) {
    constexpr const char* fn = "contextVector";
    return guarded(fn, [&] { return to_js(attn::context_vector(to_tensor(w, fn, "weights"), to_tensor(x, fn, "inputs"))); });
}

val context_vectors(const JsTensor& w, const JsTensor& x) {
    constexpr const char* fn = "contextVectors";
    return guarded(fn, [&] { return to_js(attn::context_vectors(to_tensor(w, fn, "weights"), to_tensor(x, fn, "inputs"))); });
}

val simple_self_attention(const JsTensor& x) {
    constexpr const char* fn = "simpleSelfAttention";
    return guarded(fn, [&] { return to_js(attn::simple_self_attention(to_tensor(x, fn, "inputs"))); });
}

// ---- masks and scaled dot-product attention ----------------------------------

// One row's softmax in one pass, as the attention kernel streams it: the running maximum and sum after each block.
val online_softmax(const JsTensor& scores, double block) {
    constexpr const char* fn = "onlineSoftmax";
    return guarded(fn, [&] {
        const OnlineSoftmaxTrace t = attn::online_softmax(to_tensor(scores, fn, "scores"), to_size(block, fn, "block"));
        val out = val::object();
        out.set("maxima", val(to_js(t.maxima)));
        out.set("sums", val(to_js(t.sums)));
        out.set("weights", val(to_js(t.weights)));
        return out;
    });
}

val causal_mask(double T) {
    return guarded("causalMask", [&] { return to_js(attn::causal_mask(to_integer(T, "causalMask", "length"))); });
}

val padding_mask(const val& lengths, double T_k) {
    constexpr const char* fn = "paddingMask";
    return guarded(fn, [&] { return to_js(attn::padding_mask(to_ids(lengths, fn), to_count(T_k, fn, "keyLength"))); });
}

val scaled_dot_product_attention(const JsTensor& q, const JsTensor& k, const JsTensor& v, const JsAttentionOptions& o) {
    constexpr const char* fn = "scaledDotProductAttention";
    return guarded(fn, [&] {
        const AttentionOptions opts = to_options(o, fn);
        return to_js(attn::scaled_dot_product_attention(to_tensor(q, fn, "query"), to_tensor(k, fn, "key"),
                                                        to_tensor(v, fn, "value"), opts));
    });
}

val attention(const JsTensor& q, const JsTensor& k, const JsTensor& v, const JsAttentionOptions& o) {
    constexpr const char* fn = "attention";
    return guarded(fn, [&] {
        return to_js(attn::attention(to_tensor(q, fn, "query"), to_tensor(k, fn, "key"), to_tensor(v, fn, "value"),
                                     to_options(o, fn)));
    });
}

val explain_score(const JsTensor& q, const JsTensor& k, const JsTensor& v, const JsTensor& w, double i, double j,
                  const val& divisor) {
    constexpr const char* fn = "explainScore";
    return guarded(fn, [&] {
        const std::optional<float> d = divisor.isNull() ? std::nullopt : std::optional<float>(divisor.as<float>());
        return to_js(attn::explain_score(to_tensor(q, fn, "queries"), to_tensor(k, fn, "keys"), to_tensor(v, fn, "values"),
                                         to_tensor(w, fn, "weights"), to_count(i, fn, "the query index"),
                                         to_count(j, fn, "the key index"), fn, d));
    });
}

// ---- positions ------------------------------------------------------------------

val sinusoidal_positions(double T, double d) {
    constexpr const char* fn = "sinusoidalPositions";
    return guarded(fn, [&] { return to_js(attn::sinusoidal_positions(to_size(T, fn, "length"), to_size(d, fn, "d"))); });
}

namespace {
// RoPE over heads of D dimensions with a model config's settings (ropeTheta and its llama3 scaling): the JS layer
// passes only those keys, so that their defaults and limits are the config list's (config.cpp).
Rope rope_settings(int64_t D, const std::string& settings, const char* fn) {
    Rope rope = rope_of(gpt_config_from_json(settings, Naming::Camel, fn));
    rope.head_dim = D;
    return rope;
}
}  // namespace

val rope_frequencies(double head_dim, const std::string& settings) {
    constexpr const char* fn = "ropeFrequencies";
    return guarded(fn, [&] {
        const std::vector<float> f = rope_inverse_frequencies(rope_settings(to_size(head_dim, fn, "headDim"), settings, fn));
        return to_js(Tensor({static_cast<int64_t>(f.size())}, f));
    });
}

val rope_forward(const JsTensor& x, const val& positions, const std::string& settings) {
    constexpr const char* fn = "rope";
    return guarded(fn, [&] {
        const Tensor t = to_tensor(x, fn, "x");
        check_finite(t, fn, "x");
        if (t.dim() < 2) throw Error(std::string(fn) + ": expected x of shape (..., T, D), got " + shape_str(t.shape));
        const int64_t T = t.shape[t.shape.size() - 2];
        std::vector<int64_t> pos(static_cast<size_t>(T));
        for (int64_t i = 0; i < T; ++i) pos[static_cast<size_t>(i)] = i;
        if (!positions.isNull() && !positions.isUndefined()) pos = to_ids(positions, fn);
        if (static_cast<int64_t>(pos.size()) != T) {
            throw Error(std::string(fn) + ": expected " + std::to_string(T) + " positions, one per row of x (its T of " +
                        shape_str(t.shape) + "), got " + std::to_string(pos.size()));
        }
        return to_js(attn::rope_forward(t, rope_tables(rope_settings(t.shape.back(), settings, fn), pos)));
    });
}

// ---- layers (objects with a lifetime) ---------------------------------------

val make_self_attention_v1(double d_in, double d_out) {
    constexpr const char* fn = "SelfAttentionV1";
    return guarded(fn, [&] { return owned_by_js(new SelfAttentionV1(to_size(d_in, fn, "dIn"), to_size(d_out, fn, "dOut"))); });
}
val make_self_attention_v2(double d_in, double d_out, bool qkv_bias) {
    constexpr const char* fn = "SelfAttentionV2";
    return guarded(fn, [&] {
        return owned_by_js(new SelfAttentionV2(to_size(d_in, fn, "dIn"), to_size(d_out, fn, "dOut"), qkv_bias));
    });
}
val make_self_attention_u(double d) {
    return guarded("SelfAttentionU", [&] { return owned_by_js(new SelfAttentionU(to_size(d, "SelfAttentionU", "d"))); });
}
val self_attention_v1_forward(const SelfAttentionV1& m, const JsTensor& x) {
    return module_forward(m, x, "SelfAttentionV1.forward");
}
val self_attention_v2_forward(const SelfAttentionV2& m, const JsTensor& x) {
    return module_forward(m, x, "SelfAttentionV2.forward");
}
val self_attention_u_forward(const SelfAttentionU& m, const JsTensor& x) {
    return module_forward(m, x, "SelfAttentionU.forward");
}
namespace {
// The JS side hands a state dict as two arrays: names, and tensors {data, shape} in the same order.
StateDict state_dict(const val& names, const val& tensors, const char* fn) {
    StateDict state;
    const auto n = names["length"].as<unsigned>();
    for (unsigned i = 0; i < n; ++i) {
        const auto name = names[i].as<std::string>();
        const JsTensor t{tensors[i]["data"], tensors[i]["shape"]};
        state.emplace_back(name, to_tensor(t, fn, name.c_str()));
    }
    return state;
}
}  // namespace

val self_attention_v1_load_state_dict(SelfAttentionV1& m, const val& names, const val& tensors, bool strict) {
    constexpr const char* fn = "SelfAttentionV1.loadStateDict";
    return guarded(fn, [&] {
        m.load_state_dict(state_dict(names, tensors, fn), strict);
        return val::undefined();
    });
}
val multi_head_attention_load_state_dict(MultiHeadAttention& m, const val& names, const val& tensors, bool strict) {
    constexpr const char* fn = "MultiHeadAttention.loadStateDict";
    return guarded(fn, [&] {
        m.load_state_dict(state_dict(names, tensors, fn), strict);
        return val::undefined();
    });
}
val self_attention_v1_W_query(const SelfAttentionV1& m) { return parameter(m.W_query); }
val self_attention_v1_W_key(const SelfAttentionV1& m) { return parameter(m.W_key); }
val self_attention_v1_W_value(const SelfAttentionV1& m) { return parameter(m.W_value); }
val self_attention_v2_W_query(const SelfAttentionV2& m) { return linear_params(m.W_query); }
val self_attention_v2_W_key(const SelfAttentionV2& m) { return linear_params(m.W_key); }
val self_attention_v2_W_value(const SelfAttentionV2& m) { return linear_params(m.W_value); }
val self_attention_u_U_query(const SelfAttentionU& m) { return parameter(m.U_query); }
val self_attention_u_U_key(const SelfAttentionU& m) { return parameter(m.U_key); }
val self_attention_u_U_value(const SelfAttentionU& m) { return parameter(m.U_value); }

val make_linear(double in, double out, bool bias) {
    constexpr const char* fn = "Linear";
    return guarded(fn, [&] {
        return owned_by_js(new Linear(to_size(in, fn, "inFeatures"), to_size(out, fn, "outFeatures"), bias));
    });
}
val linear_forward(const Linear& m, const JsTensor& x) { return module_forward(m, x, "Linear.forward"); }
val linear_weight(const Linear& m) { return parameter(m.weight); }
val linear_bias(const Linear& m) {
    return guarded("Linear.bias", [&] { return m.has_bias() ? val(to_js(m.bias)) : val::null(); });
}

val make_embedding(double num, double dim) {
    constexpr const char* fn = "Embedding";
    return guarded(fn, [&] {
        return owned_by_js(new Embedding(to_size(num, fn, "numEmbeddings"), to_size(dim, fn, "embeddingDim")));
    });
}
val embedding_forward(const Embedding& m, const val& ids, const val& shape) {
    constexpr const char* fn = "Embedding.forward";
    return guarded(fn, [&] { return to_js(m.forward(to_ids(ids, fn), to_shape(shape, fn, "ids"))); });
}
val embedding_weight(const Embedding& m) { return parameter(m.weight); }

val make_layer_norm(double c) {
    return guarded("LayerNorm", [&] { return owned_by_js(new LayerNorm(to_size(c, "LayerNorm", "normalizedShape"))); });
}
val layer_norm_forward(const LayerNorm& m, const JsTensor& x) { return module_forward(m, x, "LayerNorm.forward"); }
val layer_norm_weight(const LayerNorm& m) { return parameter(m.weight); }
val layer_norm_bias(const LayerNorm& m) { return parameter(m.bias); }

// ---- multi-head attention ----------------------------------------------------

val make_multi_head_attention(double d_model, double num_heads) {
    constexpr const char* fn = "MultiHeadAttention";
    return guarded(fn, [&] {
        return owned_by_js(new MultiHeadAttention(to_size(d_model, fn, "dModel"), to_size(num_heads, fn, "numHeads")));
    });
}

val multi_head_attention_forward(const MultiHeadAttention& m, const JsTensor& x, const JsAttentionOptions& o, bool trace) {
    constexpr const char* fn = "MultiHeadAttention.forward";
    return guarded(fn, [&] { return to_js(m.forward(to_tensor(x, fn, "x"), to_options(o, fn), trace), trace); });
}
val multi_head_attention_W_q(const MultiHeadAttention& m) { return parameter(m.W_q.weight); }
val multi_head_attention_W_k(const MultiHeadAttention& m) { return parameter(m.W_k.weight); }
val multi_head_attention_W_v(const MultiHeadAttention& m) { return parameter(m.W_v.weight); }
val multi_head_attention_W_o(const MultiHeadAttention& m) { return parameter(m.W_o.weight); }

val make_torch_multihead_attention(double embed_dim, double num_heads, bool bias) {
    constexpr const char* fn = "TorchMultiheadAttention";
    return guarded(fn, [&] {
        return owned_by_js(
            new TorchMultiheadAttention(to_size(embed_dim, fn, "embedDim"), to_size(num_heads, fn, "numHeads"), bias));
    });
}

val torch_multihead_attention_forward(const TorchMultiheadAttention& m, const JsTensor& q, const JsTensor& k,
                                      const JsTensor& v, const JsAttentionOptions& o, bool trace) {
    constexpr const char* fn = "TorchMultiheadAttention.forward";
    return guarded(fn, [&] {
        return to_js(m.forward(to_tensor(q, fn, "query"), to_tensor(k, fn, "key"), to_tensor(v, fn, "value"),
                               to_options(o, fn), trace),
                     trace);
    });
}
val torch_multihead_attention_in_proj_weight(const TorchMultiheadAttention& m) { return parameter(m.in_proj_weight); }
val torch_multihead_attention_in_proj_bias(const TorchMultiheadAttention& m) {
    return guarded("inProjBias", [&] { return m.in_proj_bias.dim() == 1 ? val(to_js(m.in_proj_bias)) : val::null(); });
}
val torch_multihead_attention_out_proj(const TorchMultiheadAttention& m) { return linear_params(m.out_proj); }

}  // namespace attn::js
