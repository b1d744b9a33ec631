// A tokenizer.json's added tokens (its "added_tokens": <s>, <|im_start|>, Gemma's "\n\n" …), found in a text before
// anything else touches it, as the tokenizers library (the Rust crate transformers runs) finds them:
// tokenizers/src/tokenizer/added_vocabulary.rs, AddedVocabulary::find_matches and extract_and_normalize.
//
//   1. The tokens marked normalized: false are matched in the text as it was given, leftmost-longest.
//   2. Each stretch between them is normalized (the file's normalizer), and the tokens marked normalized: true are
//      matched in that, their own content normalized the same way first.
//   3. What is left goes to the pre-tokenizer and the model.
//
// Each token's flags change what a match takes:
//   single_word  a match counts only where the token is a whole word: no word character (Rust regex's \w) just
//                before or just after it, so <x> is found in "a <x> b" but not in "a<x>b";
//   lstrip       the whitespace before the match is taken into the token (it never reaches the model): 'a <s> b'
//                gives a, <s>, " b" where the flag off gives "a ", <s>, " b";
//   rstrip       the same for the whitespace after it.
// The whitespace is Rust's \s (Unicode White_Space), and lstrip never takes back what the token before took.
#pragma once

#include "attn/special_tokens.hpp"

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace attn {

struct AddedToken {
    std::string content;
    int32_t id = 0;
    bool single_word = false, lstrip = false, rstrip = false;
    bool normalized = false;  // matched in the normalized text (step 2) rather than the text as given (step 1)
    bool special = false;     // left out by decode(ids, skip_special_tokens)
};

class AddedVocabulary {
public:
    AddedVocabulary() = default;
    // `normalize` is the file's normalizer, applied to the content of each token marked normalized (its pattern in
    // step 2; decode writes that form too, as the Rust crate's normalized_cache does). A token that is empty, longer
    // than SpecialTokens::kMaxBytes, or listed twice with two ids is an Error beginning with `where`.
    AddedVocabulary(std::vector<AddedToken> tokens, const std::function<std::string(const std::string&)>& normalize,
                    const std::string& where);

    struct Split {
        size_t begin, end;  // bytes of the text
        int32_t token;      // an index into tokens(), or -1 for text between tokens
    };
    // Steps 1 and 2: the text cut at the tokens found in it, as it was given (raw) or as normalized.
    std::vector<Split> split_raw(const std::string& text) const { return split(text, raw_, raw_tokens_); }
    std::vector<Split> split_normalized(const std::string& text) const { return split(text, normalized_, normalized_tokens_); }

    const std::vector<AddedToken>& tokens() const { return tokens_; }
    bool has_normalized() const { return !normalized_tokens_.empty(); }
    // What decode writes for the token: its content, or for a token marked normalized its normalized content.
    const std::string& decoded(size_t token) const { return decoded_[token]; }

private:
    std::vector<Split> split(const std::string& text, const SpecialTokens& trie, const std::vector<size_t>& which) const;

    std::vector<AddedToken> tokens_;
    std::vector<std::string> decoded_;  // (tokens_.size())
    SpecialTokens raw_, normalized_;    // the automata of steps 1 and 2
    std::vector<size_t> raw_tokens_, normalized_tokens_;  // each automaton's token i is tokens_[which[i]]
};

}  // namespace attn
