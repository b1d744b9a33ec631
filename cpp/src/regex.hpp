// The regular expressions a tokenizer.json's Split pre-tokenizer (and Replace normalizer) may give, compiled and run
// over the code points of a text: a small backtracking engine, with Unicode's general categories and White_Space
// from tables generated from Node (unicode_classes.hpp), and Oniguruma's meanings (the engine Hugging Face's
// tokenizers compile these patterns with): \s is \p{White_Space}, \d is \p{Nd}. It takes what today's tokenizers'
// patterns are made of —
//
//   (?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+
//
// (Llama 3's, cl100k_base's): literals, escapes (\r \n \t \s \S \d \D \p{..} \P{..} \x.. \u....), classes
// with ranges and negation, `.`, groups ((...), (?:...), (?i:...)), alternation, look-ahead ((?=...), (?!...)) and
// the greedy quantifiers ? * + {n} {n,} {n,m}. Alternatives are tried in order and quantifiers give back from the
// longest, as Oniguruma and JavaScript do, so a match is theirs. A construct outside this — look-behind,
// back-references, anchors, word classes and boundaries, lazy or possessive quantifiers, a repeated group other than
// `?` — is an Error naming it, at compile time.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace attn {

class Regex {
public:
    // Throws Error ("<where>: the pattern ... at character k: ...") for what it cannot compile.
    Regex(const std::string& pattern, const std::string& where);
    ~Regex();
    Regex(Regex&&) noexcept;
    Regex& operator=(Regex&&) noexcept;

    // The leftmost non-overlapping matches in text (code points), as [begin, end) code point index pairs (an empty
    // match is none). More than kStepsPerCharacter steps of backtracking a character is an Error naming the pattern.
    std::vector<std::pair<size_t, size_t>> find_all(const std::u32string& text) const;
    static constexpr uint64_t kStepsPerCharacter = 10000;

private:
    struct Program;
    std::unique_ptr<Program> program_;
    std::string where_;
};

}  // namespace attn
