// GPT-2's byte alphabet (encoder.py's bytes_to_unicode): how a byte-level BPE's vocabulary files spell bytes as
// printable characters, and back. Shared by the tokenizer's loading (bpe_tokenizer_files.cpp) and its encoder.
#pragma once

#include "attn/tensor.hpp"
#include "utf8.hpp"

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace attn {

// encoder.py's bytes_to_unicode: the printable bytes stand for themselves, the others (control characters, the
// space, …) for the code points from U+0100 on, in byte order, so that vocab.json and merges.txt are readable text.
// The 256 code points it uses are all below U+0144, so a table of those gives each one's byte.
struct ByteAlphabet {
    static constexpr char32_t kEnd = 0x144;
    std::array<char32_t, 256> of_byte{};
    std::array<int16_t, kEnd> to_byte{};  // -1: not a code point of the alphabet
    ByteAlphabet() {
        to_byte.fill(-1);
        char32_t next = 256;
        for (int b = 0; b < 256; ++b) {
            const bool printable = (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE && b <= 0xFF);
            of_byte[static_cast<size_t>(b)] = printable ? static_cast<char32_t>(b) : next++;
            to_byte[of_byte[static_cast<size_t>(b)]] = static_cast<int16_t>(b);
        }
    }
};
inline const ByteAlphabet& alphabet() {
    static const ByteAlphabet a;
    return a;
}

// A token as vocab.json spells it, back to its bytes (once per token of a vocabulary: 262,144 for Gemma 3), or
// nothing (false) when it holds a character that stands for no byte. Into `out`, a buffer the caller reuses.
inline bool spelled_bytes(std::string_view spelled, std::string& out) {
    out.clear();
    const auto* s = reinterpret_cast<const unsigned char*>(spelled.data());
    for (size_t i = 0; i < spelled.size();) {
        int len = 0;
        const char32_t c = utf8_decode_at(s, spelled.size(), i, len);
        const int byte = len > 0 && c < ByteAlphabet::kEnd ? alphabet().to_byte[c] : -1;
        if (byte < 0) return false;
        out += static_cast<char>(byte);
        i += static_cast<size_t>(len);
    }
    return true;
}
inline std::optional<std::string> spelled_bytes(std::string_view spelled) {
    std::string out;
    if (!spelled_bytes(spelled, out)) return std::nullopt;
    return out;
}
inline std::string token_to_bytes(const std::string& spelled, const std::string& where) {
    if (std::optional<std::string> bytes = spelled_bytes(spelled)) return std::move(*bytes);
    throw FormatError("BPETokenizer: " + where + ": the token \"" + spelled.substr(0, 40) + "\" holds a character that is not one of the 256 that stand for bytes");
}

}  // namespace attn
