// Unicode canonical normalization (UAX #15): NFD decomposes every character canonically and puts combining marks in
// their canonical order; NFC then composes each mark into the starter before it where a primary composite exists and
// nothing blocks it. Qwen's tokenizer.json files normalize with NFC, so "é" typed as e + U+0301 and as U+00E9 meet
// the same tokens. The data are generated from Node's String.normalize (unicode_classes.hpp); tests hold the two
// equal.
#pragma once

#include <string>

namespace attn {

// UTF-8 text in, UTF-8 text out; bytes that are not UTF-8 pass through unchanged, as boundaries.
std::string nfc(const std::string& text);
std::string nfd(const std::string& text);

}  // namespace attn
