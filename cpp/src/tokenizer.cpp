#include "attn/tokenizer.hpp"

#include "attn/tensor.hpp"

#include <algorithm>
#include <cstdio>

namespace attn {

std::vector<char32_t> utf8_decode(const std::string& text, const char* fn) {
    std::vector<char32_t> out;
    out.reserve(text.size());
    const auto* s = reinterpret_cast<const unsigned char*>(text.data());
    const size_t n = text.size();
    for (size_t i = 0; i < n;) {
        const unsigned char b = s[i];
        int len = b < 0x80 ? 1 : (b >> 5) == 0x6 ? 2 : (b >> 4) == 0xE ? 3 : (b >> 3) == 0x1E ? 4 : 0;
        char32_t c = len == 1 ? b : len == 2 ? (b & 0x1F) : len == 3 ? (b & 0x0F) : (b & 0x07);
        bool ok = len > 0 && i + static_cast<size_t>(len) <= n;
        for (int k = 1; ok && k < len; ++k) {
            ok = (s[i + static_cast<size_t>(k)] & 0xC0) == 0x80;
            c = (c << 6) | (s[i + static_cast<size_t>(k)] & 0x3F);
        }
        // Reject overlong forms, surrogates and values past U+10FFFF.
        static constexpr char32_t kMin[5] = {0, 0, 0x80, 0x800, 0x10000};
        if (!ok || c < kMin[len] || (c >= 0xD800 && c <= 0xDFFF) || c > 0x10FFFF) {
            throw Error(std::string(fn) + ": invalid UTF-8 at byte " + std::to_string(i));
        }
        out.push_back(c);
        i += static_cast<size_t>(len);
    }
    return out;
}

void utf8_append(std::string& out, char32_t c) {
    if (c < 0x80) {
        out += static_cast<char>(c);
    } else if (c < 0x800) {
        out += static_cast<char>(0xC0 | (c >> 6));
        out += static_cast<char>(0x80 | (c & 0x3F));
    } else if (c < 0x10000) {
        out += static_cast<char>(0xE0 | (c >> 12));
        out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (c & 0x3F));
    } else {
        out += static_cast<char>(0xF0 | (c >> 18));
        out += static_cast<char>(0x80 | ((c >> 12) & 0x3F));
        out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (c & 0x3F));
    }
}

CharTokenizer::CharTokenizer(const std::string& text) : chars_(utf8_decode(text, "CharTokenizer")) {
    if (chars_.empty()) throw Error("CharTokenizer: expected a non-empty text to build the vocabulary from, got \"\"");
    std::sort(chars_.begin(), chars_.end());
    chars_.erase(std::unique(chars_.begin(), chars_.end()), chars_.end());
}

std::vector<int64_t> CharTokenizer::encode(const std::string& text) const {
    const std::vector<char32_t> cs = utf8_decode(text, "CharTokenizer.encode");
    std::vector<int64_t> ids;
    ids.reserve(cs.size());
    for (size_t i = 0; i < cs.size(); ++i) {
        const auto it = std::lower_bound(chars_.begin(), chars_.end(), cs[i]);
        if (it == chars_.end() || *it != cs[i]) {
            std::string ch;
            utf8_append(ch, cs[i]);
            char code[16];
            std::snprintf(code, sizeof code, "U+%04X", static_cast<unsigned>(cs[i]));
            throw Error("CharTokenizer.encode: character '" + ch + "' (" + code + ") at position " + std::to_string(i) +
                        " is not in the vocabulary of " + std::to_string(chars_.size()) + " characters");
        }
        ids.push_back(it - chars_.begin());
    }
    return ids;
}

std::string CharTokenizer::decode(const std::vector<int64_t>& ids) const {
    std::string out;
    for (size_t i = 0; i < ids.size(); ++i) {
        if (ids[i] < 0 || ids[i] >= vocab_size()) {
            throw Error("CharTokenizer.decode: expected ids in [0, " + std::to_string(vocab_size()) + "), got " +
                        std::to_string(ids[i]) + " at index " + std::to_string(i));
        }
        utf8_append(out, chars_[static_cast<size_t>(ids[i])]);
    }
    return out;
}

std::string CharTokenizer::vocabulary() const {
    std::string out;
    for (char32_t c : chars_) utf8_append(out, c);
    return out;
}

}  // namespace attn
