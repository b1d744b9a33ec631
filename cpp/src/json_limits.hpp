// Untrusted JSON, bounded before it is parsed. nlohmann's parser recurses once
// per level of nesting, so a text of 100,000 '[' overflows the stack: a crash
// natively, an unnamed RangeError that leaks its frames in WASM. Every JSON the
// library reads from a file or a caller (a checkpoint's header and metadata, a
// config, a vocabulary) goes through parse_bounded, which refuses deep nesting
// in one linear scan first. The limit is far above what any of them needs (a
// safetensors header nests 3 levels, a config 1) and documented in docs/limits.md.
#pragma once

#include "attn/tensor.hpp"

#include <nlohmann/json.hpp>

#include <string>

namespace attn {

constexpr int kMaxJsonDepth = 32;

// The JSON text [first, last) parsed, or a discarded value (is_discarded())
// when it is not JSON. Throws Error "<what> nests deeper than 32 levels" first
// when it would.
template <typename It>
nlohmann::json parse_bounded(It first, It last, const std::string& what) {
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
    return nlohmann::json::parse(first, last, nullptr, false);
}

inline nlohmann::json parse_bounded(const std::string& text, const std::string& what) {
    return parse_bounded(text.begin(), text.end(), what);
}

}  // namespace attn
