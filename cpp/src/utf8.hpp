// One UTF-8 decoder for the tokenizers. It reports invalid bytes instead of
// throwing, because its callers differ on what invalid bytes mean: the char and
// word tokenizers refuse them with an Error (utf8_decode, tokenizer.cpp), GPT-2's
// byte-level BPE splits them off as one byte of "other" text (bpe_tokenizer.cpp).
#pragma once

#include <cstddef>

namespace attn {

// The code point that starts at byte i of s (n bytes), with its length in bytes
// in `len`; len is 0 where the bytes at i are not valid UTF-8: a stray
// continuation byte, a sequence cut short, an overlong form, a surrogate, or a
// value past U+10FFFF. Inline because the tokenizers call it once per character.
inline char32_t utf8_decode_at(const unsigned char* s, size_t n, size_t i, int& len) {
    const unsigned char b = s[i];
    if (b < 0x80) {
        len = 1;
        return b;
    }
    len = (b >> 5) == 0x6 ? 2 : (b >> 4) == 0xE ? 3 : (b >> 3) == 0x1E ? 4 : 0;
    char32_t c = len == 2 ? (b & 0x1F) : len == 3 ? (b & 0x0F) : (b & 0x07);
    bool ok = len > 0 && i + static_cast<size_t>(len) <= n;
    for (int k = 1; ok && k < len; ++k) {
        ok = (s[i + static_cast<size_t>(k)] & 0xC0) == 0x80;
        c = (c << 6) | (s[i + static_cast<size_t>(k)] & 0x3F);
    }
    static constexpr char32_t kMin[5] = {0, 0, 0x80, 0x800, 0x10000};
    if (!ok || c < kMin[len] || (c >= 0xD800 && c <= 0xDFFF) || c > 0x10FFFF) {
        len = 0;
        return 0;
    }
    return c;
}

}  // namespace attn
