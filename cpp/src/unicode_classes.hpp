// The Unicode classes of GPT-2's pre-tokenizer pattern (\p{L}, \p{N}, \s), as
// JavaScript's `u` regular expressions define them: the tables are generated
// from Node by tools/make_unicode_classes.mjs, so the C++ BPE tokenizer splits
// text exactly where js-tiktoken's regex does (Python's `regex` module, which
// OpenAI's encoder.py used, differs only on rare characters: its \s includes
// U+001C–U+001F and U+0085).
#pragma once

namespace attn::unicode {

extern const char* const kVersion;  // the Unicode version of the tables
bool is_letter(char32_t c);         // \p{L}
bool is_number(char32_t c);         // \p{N}
bool is_space(char32_t c);          // \s

}  // namespace attn::unicode
