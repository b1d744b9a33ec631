#include "convert.hpp"

#include "attn/tensor.hpp"

#include <cctype>
#include <cmath>
#include <utility>

namespace attn::js {

namespace {
constexpr double kMaxSafeInteger = 9007199254740991.0;  // Number.MAX_SAFE_INTEGER

// C++ parameter names and their JS spelling: each constructor's and option's
// parameters as index.d.ts names them. Config and generation fields are not
// here when their schemas read JSON (config.hpp's Naming spells them), only
// where a C++ function checks one itself (GenerationSession, Trainer::evaluate).
const std::pair<const char*, const char*> kJsNames[] = {
    {"d_in", "dIn"},
    {"d_out", "dOut"},
    {"d_model", "dModel"},
    {"num_heads", "numHeads"},
    {"embed_dim", "embedDim"},
    {"in_features", "inFeatures"},
    {"out_features", "outFeatures"},
    {"num_embeddings", "numEmbeddings"},
    {"embedding_dim", "embeddingDim"},
    {"normalized_shape", "normalizedShape"},
    {"key_lengths", "keyLengths"},
    {"fill_value", "fillValue"},
    {"max_new_tokens", "maxNewTokens"},
    {"top_k", "topK"},
    {"use_kv_cache", "useKvCache"},
    {"eval_iters", "evalIters"},
};

bool word_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }
// A boundary of a name the library wrote: not a letter of a longer word, and not a quote, since a quoted word is
// what the caller gave ("unknown config field \"num_heads\"") and is shown as they wrote it.
bool boundary(char c) { return !word_char(c) && c != '"' && c != '\''; }

// Every whole-word, unquoted occurrence of a C++ name replaced by its JS spelling.
std::string js_names(std::string text) {
    for (const auto& [cpp, js] : kJsNames) {
        const std::string from = cpp;
        for (size_t at = text.find(from); at != std::string::npos; at = text.find(from, at)) {
            const bool whole = (at == 0 || boundary(text[at - 1])) &&
                               (at + from.size() == text.size() || boundary(text[at + from.size()]));
            if (!whole) {
                at += from.size();
                continue;
            }
            text.replace(at, from.size(), js);
            at += std::string(js).size();
        }
    }
    return text;
}

// The message under `fn` when it names another function first.
std::string as_said_by(const char* fn, const std::string& what) {
    const size_t colon = what.find(": ");
    if (colon == std::string::npos || what.compare(0, colon, fn) == 0) return what;
    for (size_t i = 0; i < colon; ++i) {
        const char c = what[i];
        if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '.') return what;
    }
    return fn + what.substr(colon);
}

// The number of values in an Array or typed array, checked before anything is allocated for them. A typed
// array's count is read with %TypedArray%.prototype's own getter, not its `length` property, which a subclass can
// redefine: a Uint8Array subclass whose length said 1e9 made the module allocate 1 GB for 16 bytes. An Array of more
// than kMaxElements values (a sparse `new Array(1e9)`) is refused by name.
size_t js_length(const val& array, const char* fn) {
    thread_local const val typed_length = val::global("Object").call<val>(
        "getOwnPropertyDescriptor", val::global("Object").call<val>("getPrototypeOf", val::global("Uint8Array")["prototype"]), val("length"))["get"];
    if (val::global("ArrayBuffer").call<bool>("isView", array) && !array.instanceof(val::global("DataView"))) {
        return static_cast<size_t>(typed_length.call<double>("call", array));
    }
    const double n = array["length"].as<double>();
    if (!(n >= 0 && n <= static_cast<double>(kMaxElements))) {
        throw Error(std::string(fn) + ": expected an array of at most " + std::to_string(kMaxElements) + " values, got length " + format_number(n));
    }
    return static_cast<size_t>(n);
}

// Copies a JS array-like (Array or any typed array) into a C++ vector through
// one TypedArray.prototype.set call.
template <typename T>
std::vector<T> copy_from_js(const val& array, const char* fn) {
    std::vector<T> out(js_length(array, fn));
    val(emscripten::typed_memory_view(out.size(), out.data())).call<void>("set", array);
    return out;
}

val shape_to_js(const Shape& s) {
    val out = val::array();
    for (int64_t d : s) out.call<void>("push", static_cast<double>(d));
    return out;
}
}  // namespace

std::string js_message(const char* fn, const std::string& what) { return js_names(as_said_by(fn, what)); }

val js_error(const std::string& message, const char* code) {
    val error = val::global("Error").new_(val(message));
    error.set("code", val(code));
    return error;
}

Shape to_shape(const val& shape, const char* fn, const char* name) {
    Shape s;
    for (double d : copy_from_js<double>(shape, fn)) {
        if (!(d >= 0) || d != std::floor(d) || d > kMaxSafeInteger) {
            throw Error(std::string(fn) + ": expected " + name + " shape of non-negative integers, got " +
                        format_number(d));
        }
        s.push_back(static_cast<int64_t>(d));
    }
    numel(s, fn);  // absurd sizes are reported under the caller's name
    return s;
}

Tensor to_tensor(const JsTensor& t, const char* fn, const char* name) {
    Shape shape = to_shape(t.shape, fn, name);
    const int64_t n = numel(shape, fn);
    const auto length = static_cast<double>(js_length(t.data, fn));
    if (length != static_cast<double>(n)) {
        throw Error(std::string(fn) + ": " + name + " of shape " + shape_str(shape) + " needs " + std::to_string(n) +
                    " values, got " + format_number(length));
    }
    return Tensor(std::move(shape), copy_from_js<float>(t.data, fn));
}

std::optional<Tensor> optional_tensor(const val& t, const char* fn, const char* name) {
    if (t.isNull()) return std::nullopt;
    return to_tensor(JsTensor{t["data"], t["shape"]}, fn, name);
}

JsTensor to_js(const Tensor& t) {
    const val view(emscripten::typed_memory_view(t.data.size(), t.data.data()));
    return {val::global("Float32Array").new_(view), shape_to_js(t.shape)};
}

JsTensor int_tensor_to_js(const std::vector<int64_t>& v, const Shape& shape) {
    const std::vector<int32_t> narrow(v.begin(), v.end());
    const val view(emscripten::typed_memory_view(narrow.size(), narrow.data()));
    return {val::global("Int32Array").new_(view), shape_to_js(shape)};
}

val strings_to_js(const std::vector<std::string>& strings) {
    val out = val::array();
    for (const std::string& s : strings) out.call<void>("push", val(s));
    return out;
}

val doubles_to_js(const std::vector<double>& values) {
    const val view(emscripten::typed_memory_view(values.size(), values.data()));
    return val::global("Float64Array").new_(view);
}

std::vector<int64_t> to_ids(const val& ids, const char* fn) {
    std::vector<int64_t> out;
    const std::vector<double> raw = copy_from_js<double>(ids, fn);
    out.reserve(raw.size());
    for (size_t i = 0; i < raw.size(); ++i) {
        if (raw[i] != std::floor(raw[i]) || !std::isfinite(raw[i])) {
            throw Error(std::string(fn) + ": expected integer ids, got " + format_number(raw[i]) + " at index " +
                        std::to_string(i));
        }
        out.push_back(static_cast<int64_t>(raw[i]));
    }
    return out;
}

int64_t to_count(double d, const char* fn, const char* name) {
    if (d != std::floor(d) || !(d >= 0) || d > kMaxSafeInteger) {
        throw Error(std::string(fn) + ": expected " + name + " to be a non-negative integer, got " + format_number(d));
    }
    return static_cast<int64_t>(d);
}

int64_t to_size(double d, const char* fn, const char* name) {
    if (d != std::floor(d) || d < 1 || d > kMaxElements) {
        throw Error(std::string(fn) + ": expected " + name + " to be a positive integer, got " + format_number(d));
    }
    return static_cast<int64_t>(d);
}

int64_t to_integer(double d, const char* fn, const char* name) {
    if (d != std::floor(d) || !std::isfinite(d) || std::fabs(d) > kMaxSafeInteger) {
        throw Error(std::string(fn) + ": expected an integer " + name + ", got " + format_number(d));
    }
    return static_cast<int64_t>(d);
}

uint64_t to_seed(double d, const char* fn) {
    if (d != std::floor(d) || std::fabs(d) > kMaxSafeInteger) {
        throw Error(std::string(fn) + ": expected an integer seed, got " + format_number(d));
    }
    return static_cast<uint64_t>(static_cast<int64_t>(d));
}

val bytes_to_js(const std::string& bytes) {
    const val view(emscripten::typed_memory_view(bytes.size(), reinterpret_cast<const uint8_t*>(bytes.data())));
    return val::global("Uint8Array").new_(view);
}

std::string bytes_from_js(const val& array, const char* fn) {
    if (!array.instanceof(val::global("Uint8Array"))) throw Error(std::string(fn) + ": expected the bytes as a Uint8Array");
    std::string out(js_length(array, fn), '\0');
    val(emscripten::typed_memory_view(out.size(), reinterpret_cast<uint8_t*>(out.data()))).call<void>("set", array);
    return out;
}

std::string text_from_js(const val& text) {
    thread_local const val encoder = val::global("TextEncoder").new_();  // a val belongs to the thread that made it
    return bytes_from_js(encoder.call<val>("encode", text), "text");
}

val text_to_js(const std::string& utf8) {
    thread_local const val decoder = [] {
        val options = val::object();
        options.set("ignoreBOM", true);
        return val::global("TextDecoder").new_(val("utf-8"), options);
    }();
    return decoder.call<val>("decode", bytes_to_js(utf8));
}

}  // namespace attn::js
