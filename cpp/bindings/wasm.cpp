// The only file that knows about Emscripten: embind glue between the C++
// library (cpp/include/attn) and the JS API (web/lib/index.js).
//
// Conventions:
// - Tensors cross as the value_object {data: Float32Array, shape: number[]}.
//   Arrays handed to JS are JS-owned copies (one copy out of a
//   typed_memory_view), so they stay valid when WASM memory grows.
// - Options and traces cross as value_objects; class_ is only for objects
//   with a lifetime (layers holding parameters, a model, a trainer). Their
//   constructors are the static `create` functions, so that a bad argument
//   is an Error like any other.
// - Errors are returned, never thrown: every exported function runs inside
//   `guarded` and returns its result or a JS Error, which index.js throws once
//   the call has returned. A JS exception thrown from inside WASM would unwind
//   the WASM frames without restoring the stack pointer or running the C++
//   destructors of the call (its strings, vectors and the emval handles of
//   its arguments): each caught error leaked, and some 60,000 of them
//   overflowed the stack. For the same reason index.js hands every argument
//   over already checked and in the exact type declared here (Float32Array
//   data, number[] shapes, Float64Array ids, strings, booleans), so that no
//   conversion can throw inside WASM either.
#include "attn/attn.hpp"

#include <emscripten/bind.h>
#include <emscripten/stack.h>
#include <emscripten/val.h>

#include <malloc.h>

#include <cmath>
#include <new>
#include <optional>
#include <string>
#include <type_traits>

using attn::format_number;
using emscripten::val;

namespace {

// ---- errors ---------------------------------------------------------------

val js_error(const std::string& message) { return val::global("Error").new_(val(message)); }

// A message under the name of the function the caller called, whatever
// internal function found the problem ("attentionScores: ..." raised inside
// simpleSelfAttention reads "simpleSelfAttention: ...").
std::string as_said_by(const char* fn, const std::string& what) {
    const size_t colon = what.find(": ");
    if (colon == std::string::npos || what.compare(0, colon, fn) == 0) return what;
    for (size_t i = 0; i < colon; ++i) {
        const char c = what[i];
        if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '.') return what;
    }
    return fn + what.substr(colon);
}

// f's result as a JS value, or the Error describing why it failed.
template <typename F>
val guarded(const char* fn, F&& f) {
    try {
        if constexpr (std::is_void_v<decltype(f())>) {
            f();
            return val::undefined();
        } else {
            return val(f());
        }
    } catch (const std::bad_alloc&) {
        return js_error(std::string(fn) + ": out of memory");
    } catch (const std::exception& e) {
        return js_error(as_said_by(fn, e.what()));
    } catch (...) {
        return js_error(std::string(fn) + ": unexpected C++ exception");
    }
}

// A new C++ object as a JS handle that owns it (its delete() frees it), as
// embind hands over a raw pointer returned with allow_raw_pointers(). val's
// public constructor refuses raw pointers, hence the internal type id.
template <typename T>
val owned_by_js(T* object) {
    using namespace emscripten::internal;
    WireTypePack<T*> argv(std::move(object));
    return val::take_ownership(_emval_take_value(TypeID<AllowedRawPointer<T>>::get(), argv));
}

// What the module holds, for tests and for apps that watch their memory.
struct JsMemoryUsage {
    double memoryBytes;  // size of the WASM memory (it grows, and never shrinks)
    double heapBytes;    // bytes allocated by malloc and not yet freed
    double stackBytes;   // bytes of the WASM stack in use, seen from this call (the same between calls)
};

JsMemoryUsage memory_usage() {
    const struct mallinfo info = mallinfo();
    return {static_cast<double>(__builtin_wasm_memory_size(0)) * 65536.0, static_cast<double>(info.uordblks),
            static_cast<double>(emscripten_stack_get_base() - emscripten_stack_get_current())};
}

// ---- tensors --------------------------------------------------------------

struct JsTensor {
    val data = val::undefined();   // Float32Array, row-major
    val shape = val::undefined();  // number[]
};

// Copies a JS array-like (Array or any typed array) into a C++ vector through
// one TypedArray.prototype.set call.
template <typename T>
std::vector<T> copy_from_js(const val& array) {
    std::vector<T> out(array["length"].as<size_t>());
    val(emscripten::typed_memory_view(out.size(), out.data())).call<void>("set", array);
    return out;
}

attn::Shape to_shape(const val& shape, const char* fn, const char* name) {
    attn::Shape s;
    for (double d : copy_from_js<double>(shape)) {
        if (!(d >= 0) || d != std::floor(d) || d > 9007199254740991.0) {
            throw attn::Error(std::string(fn) + ": expected " + name +
                              " shape of non-negative integers, got " + format_number(d));
        }
        s.push_back(static_cast<int64_t>(d));
    }
    attn::numel(s, fn);  // absurd sizes are reported under the caller's name
    return s;
}

attn::Tensor to_tensor(const JsTensor& t, const char* fn, const char* name) {
    attn::Shape shape = to_shape(t.shape, fn, name);
    const int64_t n = attn::numel(shape, fn);
    const auto length = t.data["length"].as<double>();
    if (length != static_cast<double>(n)) {
        throw attn::Error(std::string(fn) + ": " + name + " of shape " + attn::shape_str(shape) + " needs " +
                          std::to_string(n) + " values, got " + format_number(length));
    }
    return attn::Tensor(std::move(shape), copy_from_js<float>(t.data));
}

val shape_to_js(const attn::Shape& s) {
    val out = val::array();
    for (int64_t d : s) out.call<void>("push", static_cast<double>(d));
    return out;
}

JsTensor to_js(const attn::Tensor& t) {
    const val view(emscripten::typed_memory_view(t.data.size(), t.data.data()));
    return {val::global("Float32Array").new_(view), shape_to_js(t.shape)};
}

JsTensor int_tensor_to_js(const std::vector<int64_t>& v, const attn::Shape& shape) {
    const std::vector<int32_t> narrow(v.begin(), v.end());
    const val view(emscripten::typed_memory_view(narrow.size(), narrow.data()));
    return {val::global("Int32Array").new_(view), shape_to_js(shape)};
}

std::vector<int64_t> to_ids(const val& ids, const char* fn) {
    std::vector<int64_t> out;
    const std::vector<double> raw = copy_from_js<double>(ids);
    out.reserve(raw.size());
    for (size_t i = 0; i < raw.size(); ++i) {
        if (raw[i] != std::floor(raw[i]) || !std::isfinite(raw[i])) {
            throw attn::Error(std::string(fn) + ": expected integer ids, got " +
                              format_number(raw[i]) + " at index " + std::to_string(i));
        }
        out.push_back(static_cast<int64_t>(raw[i]));
    }
    return out;
}

// A count that must be a whole number >= 0 (a JS number is a double).
int64_t to_count(double d, const char* fn, const char* name) {
    if (d != std::floor(d) || !(d >= 0) || d > 9007199254740991.0) {
        throw attn::Error(std::string(fn) + ": expected " + name + " to be a non-negative integer, got " + format_number(d));
    }
    return static_cast<int64_t>(d);
}

int64_t to_size(double d, const char* fn, const char* name) {
    if (d != std::floor(d) || d < 1 || d > attn::kMaxElements) {
        throw attn::Error(std::string(fn) + ": expected " + name + " to be a positive integer, got " +
                          format_number(d));
    }
    return static_cast<int64_t>(d);
}

// ---- random numbers ---------------------------------------------------------

val manual_seed(double seed) {
    return guarded("manualSeed", [&] {
        if (seed != std::floor(seed) || std::fabs(seed) > 9007199254740991.0) {
            throw attn::Error("manualSeed: expected an integer seed, got " + format_number(seed));
        }
        // Negative seeds wrap to uint64 as in PyTorch.
        attn::manual_seed(static_cast<uint64_t>(static_cast<int64_t>(seed)));
    });
}

val rand_uniform(const val& shape) {
    return guarded("rand", [&] { return to_js(attn::rand(to_shape(shape, "rand", "the"))); });
}

val rand_normal(const val& shape) {
    return guarded("randn", [&] { return to_js(attn::randn(to_shape(shape, "randn", "the"))); });
}

// Integers cross as {data: Int32Array, shape}; PyTorch would hold int64.
val rand_int(double low, double high, const val& shape) {
    return guarded("randint", [&] {
        if (low != std::floor(low) || high != std::floor(high) || low < -2147483648.0 ||
            high > 2147483648.0) {
            throw attn::Error("randint: expected integer bounds within int32, got low=" +
                              format_number(low) + ", high=" + format_number(high));
        }
        const attn::Shape s = to_shape(shape, "randint", "the");
        return int_tensor_to_js(attn::randint(static_cast<int64_t>(low), static_cast<int64_t>(high), s), s);
    });
}

// ---- softmax and attention without weights -----------------------------------

template <attn::Tensor (*F)(const attn::Tensor&)>
val unary(const JsTensor& x, const char* fn, const char* name) {
    return guarded(fn, [&] {
        attn::Tensor t = to_tensor(x, fn, name);
        attn::check_finite(t, fn, name);
        return to_js(F(t));
    });
}

// softmax, softmaxNaive and normalizeSum along `dim`, as torch's dim.
template <attn::Tensor (*F)(const attn::Tensor&, int64_t)>
val along_dim(const JsTensor& x, int dim, const char* fn) {
    return guarded(fn, [&] {
        attn::Tensor t = to_tensor(x, fn, "scores");
        attn::check_finite(t, fn, "scores");
        return to_js(F(t, dim));
    });
}

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
        if (q != std::floor(q) || !std::isfinite(q)) {
            throw attn::Error(std::string(fn) + ": expected an integer query index, got " + format_number(q));
        }
        return to_js(attn::attention_scores_for_query(to_tensor(x, fn, "inputs"), static_cast<int64_t>(q)));
    });
}

val context_vector(const JsTensor& w, const JsTensor& x) {
    return guarded("contextVector", [&] {
        return to_js(attn::context_vector(to_tensor(w, "contextVector", "weights"),
                                          to_tensor(x, "contextVector", "inputs")));
    });
}

val context_vectors(const JsTensor& w, const JsTensor& x) {
    return guarded("contextVectors", [&] {
        return to_js(attn::context_vectors(to_tensor(w, "contextVectors", "weights"),
                                           to_tensor(x, "contextVectors", "inputs")));
    });
}

struct JsSimpleAttentionTrace {
    JsTensor scores, weights, context;
};

val simple_self_attention(const JsTensor& x) {
    return guarded("simpleSelfAttention", [&] {
        const attn::SimpleAttentionTrace t =
            attn::simple_self_attention(to_tensor(x, "simpleSelfAttention", "inputs"));
        return JsSimpleAttentionTrace{to_js(t.scores), to_js(t.weights), to_js(t.context)};
    });
}

// ---- masks and scaled dot-product attention ----------------------------------

val causal_mask(double T) {
    return guarded("causalMask", [&] {
        if (T != std::floor(T)) throw attn::Error("causalMask: expected an integer length, got " + format_number(T));
        return to_js(attn::causal_mask(static_cast<int64_t>(T)));
    });
}

val padding_mask(const val& lengths, double T_k) {
    return guarded("paddingMask", [&] {
        return to_js(attn::padding_mask(to_ids(lengths, "paddingMask"), to_count(T_k, "paddingMask", "keyLength")));
    });
}

// The JS layer fills every field (null for "not given").
struct JsAttentionOptions {
    bool causal = false;
    val keyLengths = val::null();  // number[] | null
    val mask = val::null();        // Tensor | null
    double fillValue = -INFINITY;
    val scale = val::null();       // number | null
};

attn::AttentionOptions to_options(const JsAttentionOptions& o, const char* fn) {
    attn::AttentionOptions opts;
    opts.causal = o.causal;
    if (!o.keyLengths.isNull()) opts.key_lengths = to_ids(o.keyLengths, fn);
    if (!o.mask.isNull()) opts.mask = to_tensor(JsTensor{o.mask["data"], o.mask["shape"]}, fn, "mask");
    opts.fill_value = static_cast<float>(o.fillValue);
    if (!o.scale.isNull()) opts.scale = static_cast<float>(o.scale.as<double>());
    return opts;
}

struct JsAttentionTrace {
    JsTensor scores, scaledScores, mask, maskedScores, weights, output;
};

val sdpa(const JsTensor& q, const JsTensor& k, const JsTensor& v, const JsAttentionOptions& o) {
    constexpr const char* fn = "scaledDotProductAttention";
    return guarded(fn, [&] {
        const attn::AttentionOptions opts = to_options(o, fn);
        const attn::AttentionTrace t = attn::scaled_dot_product_attention(
            to_tensor(q, fn, "query"), to_tensor(k, fn, "key"), to_tensor(v, fn, "value"), opts);
        return JsAttentionTrace{to_js(t.scores),        to_js(t.scaled_scores), to_js(t.mask),
                                to_js(t.masked_scores), to_js(t.weights),       to_js(t.output)};
    });
}

struct JsScoreExplanation {
    JsTensor query, key, products;
    double score, divisor, scaledScore;
    JsTensor weights, mixed, output;
};

val explain_score(const JsTensor& q, const JsTensor& k, const JsTensor& v, const JsTensor& w, double i, double j) {
    constexpr const char* fn = "explainScore";
    return guarded(fn, [&] {
        const attn::ScoreExplanation e = attn::explain_score(
            to_tensor(q, fn, "queries"), to_tensor(k, fn, "keys"), to_tensor(v, fn, "values"), to_tensor(w, fn, "weights"),
            to_count(i, fn, "the query index"), to_count(j, fn, "the key index"), fn);
        return JsScoreExplanation{to_js(e.query),   to_js(e.key),   to_js(e.products), e.score, e.divisor,
                                  e.scaled_score,    to_js(e.weights), to_js(e.mixed),  to_js(e.output)};
    });
}

val attention(const JsTensor& q, const JsTensor& k, const JsTensor& v, const JsAttentionOptions& o) {
    constexpr const char* fn = "attention";
    return guarded(fn, [&] {
        return to_js(attn::attention(to_tensor(q, fn, "query"), to_tensor(k, fn, "key"), to_tensor(v, fn, "value"),
                                     to_options(o, fn)));
    });
}

// ---- layers (objects with a lifetime) ---------------------------------------

struct JsSelfAttentionTrace {
    JsTensor queries, keys, values, scores, scaledScores, weights, context;
};

JsSelfAttentionTrace to_js(const attn::SelfAttentionTrace& t) {
    return {to_js(t.queries), to_js(t.keys),    to_js(t.values), to_js(t.scores),
            to_js(t.scaled_scores), to_js(t.weights), to_js(t.context)};
}

// Constructors: `create` functions returning the new object (JS owns it) or an Error.
val make_v1(double d_in, double d_out) {
    return guarded("SelfAttentionV1", [&] {
        return owned_by_js(new attn::SelfAttentionV1(to_size(d_in, "SelfAttentionV1", "dIn"),
                                         to_size(d_out, "SelfAttentionV1", "dOut")));
    });
}
val make_v2(double d_in, double d_out, bool qkv_bias) {
    return guarded("SelfAttentionV2", [&] {
        return owned_by_js(new attn::SelfAttentionV2(to_size(d_in, "SelfAttentionV2", "dIn"),
                                         to_size(d_out, "SelfAttentionV2", "dOut"), qkv_bias));
    });
}
val make_u(double d) {
    return guarded("SelfAttentionU", [&] { return owned_by_js(new attn::SelfAttentionU(to_size(d, "SelfAttentionU", "d"))); });
}
val make_linear(double in, double out, bool bias) {
    return guarded("Linear", [&] {
        return owned_by_js(new attn::Linear(to_size(in, "Linear", "inFeatures"), to_size(out, "Linear", "outFeatures"), bias));
    });
}
val make_embedding(double num, double dim) {
    return guarded("Embedding", [&] {
        return owned_by_js(new attn::Embedding(to_size(num, "Embedding", "numEmbeddings"),
                                   to_size(dim, "Embedding", "embeddingDim")));
    });
}
val make_layer_norm(double c) {
    return guarded("LayerNorm", [&] { return owned_by_js(new attn::LayerNorm(to_size(c, "LayerNorm", "normalizedShape"))); });
}

template <typename M>
val self_attention_forward(const M& m, const JsTensor& x, const char* fn) {
    return guarded(fn, [&] { return to_js(m.forward(to_tensor(x, fn, "x"))); });
}

val linear_forward(const attn::Linear& m, const JsTensor& x) {
    return guarded("Linear.forward", [&] { return to_js(m.forward(to_tensor(x, "Linear.forward", "x"))); });
}
val linear_bias_or_null(const attn::Linear& m) { return m.has_bias() ? val(to_js(m.bias)) : val::null(); }

// A Linear owned by another object crosses as plain data: {weight, bias}.
struct JsLinearParams {
    JsTensor weight;  // (out, in)
    val bias = val::null();  // Tensor (out) | null
};
val linear_params(const attn::Linear& m) {
    return guarded("parameter", [&] { return JsLinearParams{to_js(m.weight), linear_bias_or_null(m)}; });
}

val embedding_forward(const attn::Embedding& m, const val& ids, const val& shape) {
    constexpr const char* fn = "Embedding.forward";
    return guarded(fn, [&] { return to_js(m.forward(to_ids(ids, fn), to_shape(shape, fn, "ids"))); });
}

val layer_norm_forward(const attn::LayerNorm& m, const JsTensor& x) {
    return guarded("LayerNorm.forward", [&] { return to_js(m.forward(to_tensor(x, "LayerNorm.forward", "x"))); });
}

template <typename M, attn::Tensor M::*P>
val param(const M& m) {
    return guarded("parameter", [&] { return to_js(m.*P); });
}

// ---- multi-head attention ----------------------------------------------------

struct JsMultiHeadAttentionTrace {
    JsTensor queries, keys, values, scores, weights, concat, output, averageWeights;
};

JsMultiHeadAttentionTrace to_js(const attn::MultiHeadAttentionTrace& t) {
    return {to_js(t.queries), to_js(t.keys),   to_js(t.values), to_js(t.scores),
            to_js(t.weights), to_js(t.concat), to_js(t.output), to_js(t.average_weights)};
}

// num_heads must divide the width: checked here so that the message uses the JS parameters' names.
void check_heads(int64_t width, int64_t heads, const char* fn, const char* width_name) {
    if (width % heads != 0) {
        throw attn::Error(std::string(fn) + ": " + width_name + " must be divisible by numHeads, got " + width_name + "=" +
                          std::to_string(width) + " and numHeads=" + std::to_string(heads));
    }
}

val make_mha(double d_model, double heads) {
    return guarded("MultiHeadAttention", [&] {
        check_heads(to_size(d_model, "MultiHeadAttention", "dModel"), to_size(heads, "MultiHeadAttention", "numHeads"),
                    "MultiHeadAttention", "dModel");
        return owned_by_js(new attn::MultiHeadAttention(to_size(d_model, "MultiHeadAttention", "dModel"),
                                            to_size(heads, "MultiHeadAttention", "numHeads")));
    });
}

// The whole trace, or {output} alone when trace is false.
val mha_result(const attn::MultiHeadAttentionTrace& t, bool trace) {
    if (trace) return val(to_js(t));
    val out = val::object();
    out.set("output", to_js(t.output));
    return out;
}

val mha_forward(const attn::MultiHeadAttention& m, const JsTensor& x, const JsAttentionOptions& o, bool trace) {
    constexpr const char* fn = "MultiHeadAttention.forward";
    return guarded(fn, [&] { return mha_result(m.forward(to_tensor(x, fn, "x"), to_options(o, fn), trace), trace); });
}

val make_torch_mha(double e, double heads, bool bias) {
    return guarded("TorchMultiheadAttention", [&] {
        check_heads(to_size(e, "TorchMultiheadAttention", "embedDim"), to_size(heads, "TorchMultiheadAttention", "numHeads"),
                    "TorchMultiheadAttention", "embedDim");
        return owned_by_js(new attn::TorchMultiheadAttention(to_size(e, "TorchMultiheadAttention", "embedDim"),
                                                 to_size(heads, "TorchMultiheadAttention", "numHeads"), bias));
    });
}

val torch_mha_forward(const attn::TorchMultiheadAttention& m, const JsTensor& q, const JsTensor& k,
                      const JsTensor& v, const JsAttentionOptions& o, bool trace) {
    constexpr const char* fn = "TorchMultiheadAttention.forward";
    return guarded(fn, [&] {
        return mha_result(m.forward(to_tensor(q, fn, "query"), to_tensor(k, fn, "key"), to_tensor(v, fn, "value"),
                                    to_options(o, fn), trace),
                          trace);
    });
}

// ---- the language model --------------------------------------------------------

// Configs cross as JSON text in JS's spelling (nEmbd, learningRate, ...): the
// schema of config.hpp reads, checks and writes them, so no field is listed here.
std::string js_config(const attn::GPTConfig& c) { return attn::to_json(c, attn::Naming::Camel); }
std::string js_config(const attn::TrainConfig& c) { return attn::to_json(c, attn::Naming::Camel); }

val default_gpt_config() {
    return guarded("defaultGPTConfig", [] { return js_config(attn::GPTConfig{}); });
}

val notebook001_config(double vocab, double d_model, double heads, double d_ff, double max_len) {
    constexpr const char* fn = "notebook001Config";
    return guarded(fn, [&] {
        check_heads(to_size(d_model, fn, "dModel"), to_size(heads, fn, "numHeads"), fn, "dModel");
        const attn::GPTConfig c = attn::GPTConfig::notebook001(
            to_size(vocab, fn, "vocabSize"), to_size(d_model, fn, "dModel"), to_size(heads, fn, "numHeads"),
            to_size(d_ff, fn, "dFF"), to_size(max_len, fn, "maxSeqLength"));
        c.validate(fn, attn::Naming::Camel);
        return js_config(c);
    });
}

val nanogpt_config(double vocab, double block, double layers, double heads, double embd, bool bias, bool tie) {
    constexpr const char* fn = "nanoGPTConfig";
    return guarded(fn, [&] {
        const attn::GPTConfig c = attn::GPTConfig::nanogpt(
            to_size(vocab, fn, "vocabSize"), to_size(block, fn, "blockSize"), to_size(layers, fn, "nLayer"),
            to_size(heads, fn, "nHead"), to_size(embd, fn, "nEmbd"), bias, tie);
        c.validate(fn, attn::Naming::Camel);
        return js_config(c);
    });
}

struct JsGPTLayerTrace {
    JsTensor input, queries, keys, values, scores, weights, output;
};

val make_gpt(const std::string& config) {
    return guarded("GPT", [&] {
        return owned_by_js(new attn::GPT(attn::gpt_config_from_json(config, attn::Naming::Camel, "GPT")));
    });
}

// A head mask from JS: null, or {data, shape} (n_layer, n_head).
std::optional<attn::Tensor> head_mask_arg(const val& mask, const char* fn) {
    if (mask.isNull()) return std::nullopt;
    return to_tensor(JsTensor{mask["data"], mask["shape"]}, fn, "headMask");
}

// {logits, trace}; trace is null unless asked for.
val gpt_forward(const attn::GPT& m, const val& ids, double B, bool want_trace, const val& head_mask) {
    constexpr const char* fn = "GPT.forward";
    return guarded(fn, [&] {
        attn::GPTTrace trace;
        const std::optional<attn::Tensor> mask = head_mask_arg(head_mask, fn);
        const attn::Tensor logits = m.forward(to_ids(ids, fn), static_cast<int64_t>(B), want_trace ? &trace : nullptr,
                                              mask ? &*mask : nullptr);
        val out = val::object();
        out.set("logits", val(to_js(logits)));
        if (!want_trace) {
            out.set("trace", val::null());
            return out;
        }
        val layers = val::array();
        for (const attn::GPTLayerTrace& l : trace.layers) {
            layers.call<void>("push", val(JsGPTLayerTrace{to_js(l.input), to_js(l.queries), to_js(l.keys), to_js(l.values),
                                                          to_js(l.scores), to_js(l.weights), to_js(l.output)}));
        }
        val t = val::object();
        t.set("embeddings", val(to_js(trace.embeddings)));
        t.set("layers", layers);
        out.set("trace", t);
        return out;
    });
}

val gpt_parameter_names(const attn::GPT& m) {
    return guarded("GPT.parameterNames", [&] {
        val out = val::array();
        for (const auto& [name, t] : m.named_parameters()) out.call<void>("push", val(name));
        return out;
    });
}

val gpt_parameter(const attn::GPT& m, const std::string& name) {
    return guarded("GPT.parameter", [&] {
        for (const auto& [n, t] : m.named_parameters())
            if (n == name) return to_js(*t);
        throw attn::Error("GPT.parameter: no parameter named \"" + name + "\"");
    });
}

struct JsGenerateOptions {
    double maxNewTokens = 100;
    double temperature = 1;
    double topK = 0;
    val seed = val::null();
    bool useKvCache = true;
};

val make_session(const attn::GPT& m, const val& prompt, double B, const JsGenerateOptions& o, const std::string& caller) {
    const char* fn = caller.c_str();  // generate or stream
    return guarded(fn, [&] {
        attn::GenerateOptions g;
        if (o.maxNewTokens != std::floor(o.maxNewTokens) || !std::isfinite(o.maxNewTokens)) {
            throw attn::Error(std::string(fn) + ": expected maxNewTokens to be an integer, got " + format_number(o.maxNewTokens));
        }
        if (o.topK != std::floor(o.topK) || !std::isfinite(o.topK)) {
            throw attn::Error(std::string(fn) + ": expected topK to be an integer, got " + format_number(o.topK));
        }
        g.max_new_tokens = static_cast<int64_t>(o.maxNewTokens);
        g.sampling.temperature = static_cast<float>(o.temperature);
        g.sampling.top_k = static_cast<int64_t>(o.topK);
        if (!o.seed.isNull()) {
            const double s = o.seed.as<double>();
            if (s != std::floor(s) || std::fabs(s) > 9007199254740991.0) {
                throw attn::Error(std::string(fn) + ": expected an integer seed, got " + format_number(s));
            }
            g.seed = static_cast<uint64_t>(static_cast<int64_t>(s));
        }
        g.use_kv_cache = o.useKvCache;
        return owned_by_js(new attn::GenerationSession(m, to_ids(prompt, fn), static_cast<int64_t>(B), g));
    });
}

val session_next(attn::GenerationSession& s) {
    return guarded("generate", [&] { return int_tensor_to_js(s.next(), {s.batch()}); });
}

val session_tokens(const attn::GenerationSession& s) {
    return guarded("generate", [&] { return int_tensor_to_js(s.tokens(), {s.batch(), s.length()}); });
}

// ---- tokenizer ---------------------------------------------------------------

// JS names a tokenizer by its kind: CharTokenizer, WordTokenizer.
std::string tokenizer_class(attn::TokenizerKind kind) {
    return kind == attn::TokenizerKind::Char ? "CharTokenizer" : "WordTokenizer";
}

val make_tokenizer(const std::string& kind, const std::string& text) {
    const std::string fn = kind == "word" ? "WordTokenizer" : "CharTokenizer";
    return guarded(fn.c_str(), [&] {
        return owned_by_js(new attn::Tokenizer(attn::parse_tokenizer_kind(kind, fn.c_str()), text));
    });
}

val tokenizer_from_vocabulary(const std::string& kind, const std::string& vocabulary) {
    return guarded("Tokenizer.fromVocabulary", [&] {
        return owned_by_js(new attn::Tokenizer(attn::Tokenizer::from_vocabulary(
            attn::parse_tokenizer_kind(kind, "Tokenizer.fromVocabulary"), vocabulary, "Tokenizer.fromVocabulary")));
    });
}

val tokenizer_encode(const attn::Tokenizer& t, const std::string& text) {
    return guarded((tokenizer_class(t.kind()) + ".encode").c_str(), [&] {
        const std::vector<int64_t> ids = t.encode(text);
        return int_tensor_to_js(ids, {static_cast<int64_t>(ids.size())}).data;
    });
}

val tokenizer_decode(const attn::Tokenizer& t, const val& ids) {
    const std::string fn = tokenizer_class(t.kind()) + ".decode";
    return guarded(fn.c_str(), [&] { return t.decode(to_ids(ids, fn.c_str())); });
}

val tokenizer_pieces(const attn::Tokenizer& t) {
    return guarded("Tokenizer.pieces", [&] {
        val out = val::array();
        for (const std::string& p : t.pieces()) out.call<void>("push", val(p));
        return out;
    });
}

// ---- training and checkpoints ---------------------------------------------------

val bytes_to_js(const std::string& bytes) {
    const val view(emscripten::typed_memory_view(bytes.size(), reinterpret_cast<const uint8_t*>(bytes.data())));
    return val::global("Uint8Array").new_(view);
}

std::string bytes_from_js(const val& array, const char* fn) {
    if (!array.instanceof(val::global("Uint8Array"))) throw attn::Error(std::string(fn) + ": expected the bytes as a Uint8Array");
    std::string out(array["length"].as<size_t>(), '\0');
    val(emscripten::typed_memory_view(out.size(), reinterpret_cast<uint8_t*>(out.data()))).call<void>("set", array);
    return out;
}

val default_train_config() {
    return guarded("defaultTrainConfig", [] { return js_config(attn::TrainConfig{}); });
}

struct JsStepResult {
    double iter, lr, loss, gradNorm;
};
struct JsEvalResult {
    double train, val;
};

val make_trainer(const std::string& model, const std::string& train, const std::string& text) {
    return guarded("Trainer", [&] {
        return owned_by_js(new attn::Trainer(attn::gpt_config_from_json(model, attn::Naming::Camel, "Trainer"),
                                             attn::train_config_from_json(train, attn::Naming::Camel, "Trainer"), text));
    });
}

val resume_trainer(const val& bytes, const std::string& text) {
    return guarded("Trainer.resume", [&] {
        attn::Checkpoint ck = attn::load_checkpoint(bytes_from_js(bytes, "Trainer.resume"));
        if (!ck.training) throw attn::Error("Trainer.resume: the checkpoint holds no training state (it was saved from a model, not a trainer)");
        return owned_by_js(new attn::Trainer(std::move(ck.model), std::move(ck.training->optimizer), ck.training->iter, std::move(ck.tokenizer),
                                 ck.training->config, text));
    });
}

val trainer_step(attn::Trainer& t) {
    return guarded("Trainer.step", [&] {
        const attn::StepResult r = t.step();
        return JsStepResult{static_cast<double>(r.iter), r.lr, r.loss, r.grad_norm};
    });
}

val trainer_evaluate(attn::Trainer& t, double eval_iters) {
    return guarded("Trainer.evaluate", [&] {
        if (eval_iters != std::floor(eval_iters)) throw attn::Error("Trainer.evaluate: expected an integer evalIters, got " + format_number(eval_iters));
        const attn::EvalResult r = t.evaluate(static_cast<int64_t>(eval_iters));
        return JsEvalResult{r.train, r.val};
    });
}

// A copy of the model being trained, owned by the caller.
val trainer_snapshot(const attn::Trainer& t) {
    return guarded("Trainer.snapshot", [&] { return owned_by_js(new attn::GPT(t.model())); });
}

val trainer_checkpoint(const attn::Trainer& t) {
    return guarded("Trainer.checkpoint", [&] {
        return bytes_to_js(attn::save_checkpoint(t.model(), t.data().tokenizer(), &t));
    });
}

val gpt_checkpoint(const attn::GPT& m, const attn::Tokenizer& tokenizer) {
    return guarded("GPT.checkpoint", [&] {
        if (tokenizer.vocab_size() != m.config().vocab_size) {
            throw attn::Error("GPT.checkpoint: expected a tokenizer of vocabSize " + std::to_string(m.config().vocab_size) +
                              ", got one of " + std::to_string(tokenizer.vocab_size()));
        }
        return bytes_to_js(attn::save_checkpoint(m, tokenizer));
    });
}

// {model, tokenizer, vocabulary, iter | null, verified} of a checkpoint
// (validated in full); the model and the tokenizer are handles JS owns.
val load_checkpoint(const val& bytes) {
    return guarded("loadCheckpoint", [&] {
        attn::Checkpoint ck = attn::load_checkpoint(bytes_from_js(bytes, "loadCheckpoint"));
        val out = val::object();
        out.set("vocabulary", val(ck.tokenizer.vocabulary()));
        out.set("iter", ck.training ? val(static_cast<double>(ck.training->iter)) : val::null());
        out.set("verified", val(ck.verified));
        out.set("model", owned_by_js(new attn::GPT(std::move(ck.model))));
        out.set("tokenizer", owned_by_js(new attn::Tokenizer(std::move(ck.tokenizer))));
        return out;
    });
}

val agreement_corpus(double sentences, double seed) {
    return guarded("agreementCorpus", [&] {
        if (sentences != std::floor(sentences) || seed != std::floor(seed) || seed < 0) {
            throw attn::Error("agreementCorpus: expected integer sentences and seed >= 0, got " + format_number(sentences) +
                              " and " + format_number(seed));
        }
        return attn::agreement_corpus(static_cast<int64_t>(sentences), static_cast<uint64_t>(seed));
    });
}

struct JsAgreementReport {
    double sentences, accuracy;
    val subjectAttention = val::undefined();  // Float64Array (nLayers · nHeads), layer-major
    double bestLayer, bestHead, bestSubjectAttention;
};

val probe_agreement(const attn::GPT& m, const attn::Tokenizer& tokenizer, double sentences, double seed,
                    const val& head_mask) {
    return guarded("probeAgreement", [&] {
        const char* fn = "probeAgreement";
        if (sentences != std::floor(sentences) || sentences < 1 || sentences > 100000) {
            throw attn::Error("probeAgreement: expected sentences to be an integer from 1 to 100000, got " + format_number(sentences));
        }
        const std::optional<attn::Tensor> mask = head_mask_arg(head_mask, fn);
        const attn::AgreementReport r = attn::probe_agreement(
            m, tokenizer, attn::agreement_sentences(static_cast<int64_t>(sentences), static_cast<uint64_t>(to_count(seed, fn, "seed"))),
            mask ? &*mask : nullptr);
        const val view(emscripten::typed_memory_view(r.subject_attention.size(), r.subject_attention.data()));
        return JsAgreementReport{static_cast<double>(r.sentences), r.accuracy, val::global("Float64Array").new_(view),
                                 static_cast<double>(r.best_layer), static_cast<double>(r.best_head), r.best_subject_attention};
    });
}

}  // namespace

EMSCRIPTEN_BINDINGS(attn) {
    using namespace emscripten;

    value_object<JsTensor>("Tensor").field("data", &JsTensor::data).field("shape", &JsTensor::shape);
    value_object<JsSimpleAttentionTrace>("SimpleAttentionTrace")
        .field("scores", &JsSimpleAttentionTrace::scores)
        .field("weights", &JsSimpleAttentionTrace::weights)
        .field("context", &JsSimpleAttentionTrace::context);
    value_object<JsSelfAttentionTrace>("SelfAttentionTrace")
        .field("queries", &JsSelfAttentionTrace::queries)
        .field("keys", &JsSelfAttentionTrace::keys)
        .field("values", &JsSelfAttentionTrace::values)
        .field("scores", &JsSelfAttentionTrace::scores)
        .field("scaledScores", &JsSelfAttentionTrace::scaledScores)
        .field("weights", &JsSelfAttentionTrace::weights)
        .field("context", &JsSelfAttentionTrace::context);
    value_object<JsLinearParams>("LinearParams")
        .field("weight", &JsLinearParams::weight)
        .field("bias", &JsLinearParams::bias);
    value_object<JsAttentionOptions>("AttentionOptions")
        .field("causal", &JsAttentionOptions::causal)
        .field("keyLengths", &JsAttentionOptions::keyLengths)
        .field("mask", &JsAttentionOptions::mask)
        .field("fillValue", &JsAttentionOptions::fillValue)
        .field("scale", &JsAttentionOptions::scale);
    value_object<JsScoreExplanation>("ScoreExplanation")
        .field("query", &JsScoreExplanation::query)
        .field("key", &JsScoreExplanation::key)
        .field("products", &JsScoreExplanation::products)
        .field("score", &JsScoreExplanation::score)
        .field("divisor", &JsScoreExplanation::divisor)
        .field("scaledScore", &JsScoreExplanation::scaledScore)
        .field("weights", &JsScoreExplanation::weights)
        .field("mixed", &JsScoreExplanation::mixed)
        .field("output", &JsScoreExplanation::output);

    value_object<JsAttentionTrace>("AttentionTrace")
        .field("scores", &JsAttentionTrace::scores)
        .field("scaledScores", &JsAttentionTrace::scaledScores)
        .field("mask", &JsAttentionTrace::mask)
        .field("maskedScores", &JsAttentionTrace::maskedScores)
        .field("weights", &JsAttentionTrace::weights)
        .field("output", &JsAttentionTrace::output);

    value_object<JsMultiHeadAttentionTrace>("MultiHeadAttentionTrace")
        .field("queries", &JsMultiHeadAttentionTrace::queries)
        .field("keys", &JsMultiHeadAttentionTrace::keys)
        .field("values", &JsMultiHeadAttentionTrace::values)
        .field("scores", &JsMultiHeadAttentionTrace::scores)
        .field("weights", &JsMultiHeadAttentionTrace::weights)
        .field("concat", &JsMultiHeadAttentionTrace::concat)
        .field("output", &JsMultiHeadAttentionTrace::output)
        .field("averageWeights", &JsMultiHeadAttentionTrace::averageWeights);
    value_object<JsGPTLayerTrace>("GPTLayerTrace")
        .field("input", &JsGPTLayerTrace::input)
        .field("queries", &JsGPTLayerTrace::queries)
        .field("keys", &JsGPTLayerTrace::keys)
        .field("values", &JsGPTLayerTrace::values)
        .field("scores", &JsGPTLayerTrace::scores)
        .field("weights", &JsGPTLayerTrace::weights)
        .field("output", &JsGPTLayerTrace::output);
    value_object<JsGenerateOptions>("GenerateOptions")
        .field("maxNewTokens", &JsGenerateOptions::maxNewTokens)
        .field("temperature", &JsGenerateOptions::temperature)
        .field("topK", &JsGenerateOptions::topK)
        .field("seed", &JsGenerateOptions::seed)
        .field("useKvCache", &JsGenerateOptions::useKvCache);

    value_object<JsStepResult>("StepResult")
        .field("iter", &JsStepResult::iter)
        .field("lr", &JsStepResult::lr)
        .field("loss", &JsStepResult::loss)
        .field("gradNorm", &JsStepResult::gradNorm);
    value_object<JsEvalResult>("EvalResult").field("train", &JsEvalResult::train).field("val", &JsEvalResult::val);

    value_object<JsMemoryUsage>("MemoryUsage")
        .field("memoryBytes", &JsMemoryUsage::memoryBytes)
        .field("heapBytes", &JsMemoryUsage::heapBytes)
        .field("stackBytes", &JsMemoryUsage::stackBytes);
    value_object<JsAgreementReport>("AgreementReport")
        .field("sentences", &JsAgreementReport::sentences)
        .field("accuracy", &JsAgreementReport::accuracy)
        .field("subjectAttention", &JsAgreementReport::subjectAttention)
        .field("bestLayer", &JsAgreementReport::bestLayer)
        .field("bestHead", &JsAgreementReport::bestHead)
        .field("bestSubjectAttention", &JsAgreementReport::bestSubjectAttention);

    // Every function below returns its result or an Error (see `guarded`);
    // none throws.
    function("memoryUsage", &memory_usage);
    function("manualSeed", &manual_seed);
    function("defaultTrainConfig", &default_train_config);
    function("loadCheckpoint", &load_checkpoint);
    function("agreementCorpus", &agreement_corpus);
    function("probeAgreement", &probe_agreement);
    function("resumeTrainer", &resume_trainer);
    function("defaultGPTConfig", &default_gpt_config);
    function("notebook001Config", &notebook001_config);
    function("nanoGPTConfig", &nanogpt_config);
    function("rand", &rand_uniform);
    function("randn", &rand_normal);
    function("randint", &rand_int);
    function("softmax", &softmax);
    function("softmaxNaive", &softmax_naive);
    function("normalizeSum", &normalize_sum);
    function("attentionScoresForQuery", &attention_scores_for_query);
    function("attentionScoresLoop", &attention_scores_loop);
    function("attentionScores", &attention_scores);
    function("contextVector", &context_vector);
    function("contextVectors", &context_vectors);
    function("simpleSelfAttention", &simple_self_attention);
    function("causalMask", &causal_mask);
    function("paddingMask", &padding_mask);
    function("scaledDotProductAttention", &sdpa);
    function("attention", &attention);
    function("explainScore", &explain_score);
    function("tokenizerFromVocabulary", &tokenizer_from_vocabulary);

    class_<attn::SelfAttentionV1>("SelfAttentionV1")
        .class_function("create", &make_v1)
        .function("forward", +[](const attn::SelfAttentionV1& m, const JsTensor& x) {
            return self_attention_forward(m, x, "SelfAttentionV1.forward");
        })
        .function("W_query", &param<attn::SelfAttentionV1, &attn::SelfAttentionV1::W_query>)
        .function("W_key", &param<attn::SelfAttentionV1, &attn::SelfAttentionV1::W_key>)
        .function("W_value", &param<attn::SelfAttentionV1, &attn::SelfAttentionV1::W_value>);

    class_<attn::SelfAttentionV2>("SelfAttentionV2")
        .class_function("create", &make_v2)
        .function("forward", +[](const attn::SelfAttentionV2& m, const JsTensor& x) {
            return self_attention_forward(m, x, "SelfAttentionV2.forward");
        })
        .function("W_query", +[](const attn::SelfAttentionV2& m) { return linear_params(m.W_query); })
        .function("W_key", +[](const attn::SelfAttentionV2& m) { return linear_params(m.W_key); })
        .function("W_value", +[](const attn::SelfAttentionV2& m) { return linear_params(m.W_value); });

    class_<attn::SelfAttentionU>("SelfAttentionU")
        .class_function("create", &make_u)
        .function("forward", +[](const attn::SelfAttentionU& m, const JsTensor& x) {
            return self_attention_forward(m, x, "SelfAttentionU.forward");
        })
        .function("U_query", &param<attn::SelfAttentionU, &attn::SelfAttentionU::U_query>)
        .function("U_key", &param<attn::SelfAttentionU, &attn::SelfAttentionU::U_key>)
        .function("U_value", &param<attn::SelfAttentionU, &attn::SelfAttentionU::U_value>);

    class_<attn::Linear>("Linear")
        .class_function("create", &make_linear)
        .function("forward", &linear_forward)
        .function("weight", &param<attn::Linear, &attn::Linear::weight>)
        .function("bias", +[](const attn::Linear& m) { return guarded("Linear.bias", [&] { return linear_bias_or_null(m); }); });

    class_<attn::Embedding>("Embedding")
        .class_function("create", &make_embedding)
        .function("forward", &embedding_forward)
        .function("weight", &param<attn::Embedding, &attn::Embedding::weight>);

    class_<attn::LayerNorm>("LayerNorm")
        .class_function("create", &make_layer_norm)
        .function("forward", &layer_norm_forward)
        .function("weight", &param<attn::LayerNorm, &attn::LayerNorm::weight>)
        .function("bias", &param<attn::LayerNorm, &attn::LayerNorm::bias>);

    class_<attn::MultiHeadAttention>("MultiHeadAttention")
        .class_function("create", &make_mha)
        .function("forward", &mha_forward)
        .function("W_q", +[](const attn::MultiHeadAttention& m) { return guarded("W_q", [&] { return to_js(m.W_q.weight); }); })
        .function("W_k", +[](const attn::MultiHeadAttention& m) { return guarded("W_k", [&] { return to_js(m.W_k.weight); }); })
        .function("W_v", +[](const attn::MultiHeadAttention& m) { return guarded("W_v", [&] { return to_js(m.W_v.weight); }); })
        .function("W_o", +[](const attn::MultiHeadAttention& m) { return guarded("W_o", [&] { return to_js(m.W_o.weight); }); });

    class_<attn::TorchMultiheadAttention>("TorchMultiheadAttention")
        .class_function("create", &make_torch_mha)
        .function("forward", &torch_mha_forward)
        .function("inProjWeight", &param<attn::TorchMultiheadAttention, &attn::TorchMultiheadAttention::in_proj_weight>)
        .function("inProjBias", +[](const attn::TorchMultiheadAttention& m) {
            return guarded("inProjBias", [&] { return m.in_proj_bias.dim() == 1 ? val(to_js(m.in_proj_bias)) : val::null(); });
        })
        .function("outProj", +[](const attn::TorchMultiheadAttention& m) { return linear_params(m.out_proj); });

    class_<attn::GPT>("GPT")
        .class_function("create", &make_gpt)
        .function("forward", &gpt_forward)
        .function("config", +[](const attn::GPT& m) { return guarded("GPT.config", [&] { return js_config(m.config()); }); })
        .function("numParameters", +[](const attn::GPT& m, bool non_embedding) {
            return static_cast<double>(m.num_parameters(non_embedding));
        })
        .function("parameterNames", &gpt_parameter_names)
        .function("checkpoint", &gpt_checkpoint)
        .function("parameter", &gpt_parameter);

    class_<attn::Trainer>("Trainer")
        .class_function("create", &make_trainer)
        .class_function("resume", &resume_trainer)
        .function("step", &trainer_step)
        .function("evaluate", &trainer_evaluate)
        .function("iter", +[](const attn::Trainer& t) { return static_cast<double>(t.iter()); })
        .function("vocabulary", +[](const attn::Trainer& t) {
            return guarded("Trainer.vocabulary", [&] { return t.data().tokenizer().vocabulary(); });
        })
        .function("config", +[](const attn::Trainer& t) {
            return guarded("Trainer.config", [&] { return js_config(t.config()); });
        })
        .function("modelConfig", +[](const attn::Trainer& t) {
            return guarded("Trainer.modelConfig", [&] { return js_config(t.model().config()); });
        })
        .function("snapshot", &trainer_snapshot)
        .function("checkpoint", &trainer_checkpoint);

    class_<attn::GenerationSession>("GenerationSession")
        .class_function("create", &make_session)
        .function("next", &session_next)
        .function("done", &attn::GenerationSession::done)
        .function("tokens", &session_tokens);

    class_<attn::Tokenizer>("Tokenizer")
        .class_function("create", &make_tokenizer)
        .function("encode", &tokenizer_encode)
        .function("decode", &tokenizer_decode)
        .function("kind", +[](const attn::Tokenizer& t) { return std::string(attn::tokenizer_kind_name(t.kind())); })
        .function("pieces", &tokenizer_pieces)
        .function("vocabSize", +[](const attn::Tokenizer& t) { return static_cast<double>(t.vocab_size()); })
        .function("vocabulary", +[](const attn::Tokenizer& t) {
            return guarded("Tokenizer.vocabulary", [&] { return t.vocabulary(); });
        });
}
