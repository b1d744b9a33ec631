// nanoGPT's character-level tokenizer (data/shakespeare_char/prepare.py):
// the vocabulary is the sorted set of characters of a text, a character's id
// its index. Characters are Unicode code points (Python's str), read from and
// written as UTF-8.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace attn {

class CharTokenizer {
public:
    // chars = sorted(list(set(text))). Throws Error on invalid UTF-8 or empty text.
    explicit CharTokenizer(const std::string& text);

    // Ids of every character; an unknown character is an Error naming it and
    // its position (there is no silent fallback).
    std::vector<int64_t> encode(const std::string& text) const;
    // The text of a list of ids; an id outside [0, vocab_size) is an Error.
    std::string decode(const std::vector<int64_t>& ids) const;

    int64_t vocab_size() const { return static_cast<int64_t>(chars_.size()); }
    const std::vector<char32_t>& chars() const { return chars_; }
    // The vocabulary as one UTF-8 string, in id order (for checkpoints).
    std::string vocabulary() const;

private:
    std::vector<char32_t> chars_;  // sorted, unique
};

std::vector<char32_t> utf8_decode(const std::string& text, const char* fn);
void utf8_append(std::string& out, char32_t c);

}  // namespace attn
