// Special tokens (<|endoftext|>, <|im_start|>, …) found in a text in one pass, however many there are.
//
// The rule is Hugging Face's for added tokens (leftmost-longest): the match that starts first wins, and of two
// that start at the same byte, the longer. Searching the text once per token was quadratic in the text with two
// tokens (each search from the last match ran to the end): <|endoftext|> × 520 KB took 38 s.
//
// The matches are found by one Aho–Corasick automaton (Aho & Corasick 1975, "Efficient string matching") over
// the tokens spelled backwards, run over the text backwards: where a reversed token ends in the reversed text,
// the token starts in the text, and the first output of a state is its longest token. One pass gives the longest
// token starting at every byte, in time linear in the text (plus the tokens' total length to build).
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace attn {

class SpecialTokens {
public:
    // The tokens and their ids. Every token must be non-empty (an empty token matches everywhere and encodes
    // nothing), spelled once, and at most kMaxBytes long; a problem is an Error beginning with `where`.
    SpecialTokens(std::vector<std::pair<std::string, int32_t>> tokens, const std::string& where);
    SpecialTokens() = default;

    // The longest token of every byte where one starts, as (byte, index into tokens()), in the text's order;
    // leftmost-longest matches that overlap an earlier one are left out.
    std::vector<std::pair<size_t, int32_t>> find_all(const std::string& text) const;

    const std::vector<std::pair<std::string, int32_t>>& tokens() const { return tokens_; }
    bool empty() const { return tokens_.empty(); }

    static constexpr size_t kMaxBytes = 1024;  // the longest published special tokens are ~40 bytes

private:
    struct State {
        std::vector<std::pair<unsigned char, int32_t>> next;  // byte -> state, sorted by byte
        int32_t fail = 0;     // the state of the longest proper suffix that is in the trie
        int32_t output = -1;  // the longest token ending here (itself, or through fail), an index into tokens_
    };
    int32_t step(int32_t state, unsigned char byte) const;
    int32_t child(int32_t state, unsigned char byte) const;

    std::vector<std::pair<std::string, int32_t>> tokens_;  // (text, id)
    std::vector<State> states_;                          // states_[0] is the root
};

}  // namespace attn
