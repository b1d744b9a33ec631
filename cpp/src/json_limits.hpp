// Untrusted JSON, bounded before it is parsed. nlohmann's parser recurses once
// per level of nesting, so a text of 100,000 '[' overflows the stack: a crash
// natively, an unnamed RangeError that leaks its frames in WASM. Every JSON the
// library reads from a file or a caller (a checkpoint's header and metadata, a
// config, a vocabulary) goes through parse_bounded, which refuses deep nesting
// in one linear scan first. The limit is far above what any of them needs (a
// safetensors header nests 3 levels, a config 1) and documented in docs/limits.md.
// The number of values is bounded too, by a SAX pass that builds nothing: a
// parsed value costs 16 to ~100 bytes, so 57 MB of "0," in a header cost 1 GB
// before anything could look at it. An object holding one key twice is refused
// in the same pass: parsers disagree on which value wins (nlohmann keeps the
// last), so such a file could mean one thing here and another to the next tool.
#pragma once

#include "attn/tensor.hpp"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <set>
#include <string>
#include <vector>

namespace attn {

constexpr int kMaxJsonDepth = 32;
// Values (scalars, arrays, objects and keys, each counted once) in one JSON text. The largest the library
// reads are a vocabulary of kMaxVocabulary strings and a header of kMaxTensors entries of ~10 values.
constexpr int64_t kMaxJsonValues = int64_t{1} << 20;
// A tokenizer.json's bound, 4× that: Hugging Face's files list the vocabulary and every merge, and recent ones
// write a merge as a pair (three values), so Llama 3's (128,256 tokens, 280,147 merges) holds ~1.1 M values and
// Gemma 3's (262,144 tokens and their merges) ~2 M. Parsed, such a file costs some 100-200 MB while it is read.
constexpr int64_t kMaxTokenizerJsonValues = int64_t{1} << 22;

namespace detail {
// A SAX pass that stops at the first key an object holds twice, or at the value past kMaxJsonValues.
struct Bounds : nlohmann::json::json_sax_t {
    std::vector<std::set<std::string>> objects;
    std::string duplicate;
    int64_t values = 0, limit = kMaxJsonValues;
    bool counted() { return ++values <= limit; }
    bool null() override { return counted(); }
    bool boolean(bool) override { return counted(); }
    bool number_integer(number_integer_t) override { return counted(); }
    bool number_unsigned(number_unsigned_t) override { return counted(); }
    bool number_float(number_float_t, const string_t&) override { return counted(); }
    bool string(string_t&) override { return counted(); }
    bool binary(binary_t&) override { return counted(); }
    bool start_object(std::size_t) override {
        objects.emplace_back();
        return counted();
    }
    bool key(string_t& k) override {
        if (!counted()) return false;
        if (objects.back().insert(k).second) return true;
        duplicate = k;
        return false;
    }
    bool end_object() override {
        objects.pop_back();
        return true;
    }
    bool start_array(std::size_t) override { return counted(); }
    bool end_array() override { return true; }
    bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) override { return false; }
};
}  // namespace detail

// Throws Error "<what> nests deeper than 32 levels …" when [first, last) would: one linear scan, before a parser
// (or a SAX pass that builds something) sees the text.
template <typename It>
void check_json_depth(It first, It last, const std::string& what) {
    int depth = 0;
    bool in_string = false, escaped = false;
    for (It it = first; it != last; ++it) {
        const char c = *it;
        if (in_string) {
            if (escaped) escaped = false;
            else if (c == '\\') escaped = true;
            else if (c == '"') in_string = false;
        } else if (c == '"') {
            in_string = true;
        } else if (c == '[' || c == '{') {
            if (++depth > kMaxJsonDepth) {
                throw Error(what + " nests deeper than " + std::to_string(kMaxJsonDepth) +
                            " levels of arrays and objects (not a file this library writes)");
            }
        } else if (c == ']' || c == '}') {
            --depth;
        }
    }
}

// The JSON text [first, last) parsed, or a discarded value (is_discarded())
// when it is not JSON. Throws Error "<what> nests deeper than 32 levels",
// "<what> holds more than 1048576 values" (max_values) or "<what> holds the key
// "k" twice in one object" first when it would.
template <typename It>
nlohmann::json parse_bounded(It first, It last, const std::string& what, int64_t max_values = kMaxJsonValues) {
    check_json_depth(first, last, what);
    detail::Bounds bounds;
    bounds.limit = max_values;
    nlohmann::json::sax_parse(first, last, &bounds, nlohmann::json::input_format_t::json, false);
    if (bounds.values > max_values) {
        throw Error(what + " holds more than " + std::to_string(max_values) + " values (arrays, objects, keys and scalars" +
                    (max_values == kMaxJsonValues ? "; not a file this library writes)" : ")"));
    }
    if (!bounds.duplicate.empty()) {
        throw Error(what + " holds the key \"" + bounds.duplicate.substr(0, 60) + "\" twice in one object");
    }
    return nlohmann::json::parse(first, last, nullptr, false);
}

inline nlohmann::json parse_bounded(const std::string& text, const std::string& what, int64_t max_values = kMaxJsonValues) {
    return parse_bounded(text.begin(), text.end(), what, max_values);
}

}  // namespace attn
