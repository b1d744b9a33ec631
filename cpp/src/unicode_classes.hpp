// The Unicode classes of GPT-2's pre-tokenizer pattern (\p{L}, \p{N}, \s), as
// JavaScript's `u` regular expressions define them: the tables are generated
// from Node by tools/make_unicode_classes.mjs, so the C++ BPE tokenizer splits
// text exactly where js-tiktoken's regex does (Python's `regex` module, which
// OpenAI's encoder.py used, differs only on rare characters: its \s includes
// U+001C–U+001F and U+0085).
#pragma once

#include <string_view>

namespace attn::unicode {

extern const char* const kVersion;  // the Unicode version of the tables
bool is_letter(char32_t c);         // \p{L}
bool is_number(char32_t c);         // \p{N}
bool is_space(char32_t c);          // \s (JavaScript's: U+FEFF, not U+0085)
bool is_white_space(char32_t c);    // \p{White_Space} (Oniguruma's and Rust's \s: U+0085, not U+FEFF)

// The general categories (Unicode's UAX #44), in this order; Cn: unassigned.
enum Category : unsigned char { Lu, Ll, Lt, Lm, Lo, Mn, Mc, Me, Nd, Nl, No, Pc, Pd, Ps, Pe, Pi, Pf, Po,
                                Sm, Sc, Sk, So, Zs, Zl, Zp, Cc, Cf, Cs, Co, Cn, kCategories };
Category category(char32_t c);      // \p{gc=…} of a code point

// Canonical normalization's data (unicode_normalization.hpp uses it): a code point's full canonical decomposition
// (empty: none; Hangul syllables are computed), its combining class as a rank that orders marks as their classes do
// (0: a starter), and the primary composite of a pair (0: none).
std::u32string_view decomposition(char32_t c);
int combining_rank(char32_t c);
char32_t compose(char32_t first, char32_t second);

}  // namespace attn::unicode
