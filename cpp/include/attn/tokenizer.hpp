// The language model's tokenizers. Both build their vocabulary the way nanoGPT's
// data/shakespeare_char/prepare.py does, as the sorted set of a text's pieces,
// and a piece's id is its index in that list:
//
//   Char  one piece per character (a Unicode code point, as Python's str):
//         "The cat" -> T h e ␣ c a t
//   Word  a run of letters/digits, or one other character, with the space
//         before it attached (GPT-2's pre-tokenizer, simplified); any other
//         whitespace character is a piece of its own:
//         "The cats, purr.\n" -> "The" " cats" "," " purr" "." "\n"
//
// Decoding concatenates pieces, so decode(encode(text)) == text for both.
// Text is read and written as UTF-8. Sorting the pieces' UTF-8 bytes sorts
// characters by code point, so a character vocabulary is ordered as nanoGPT's.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace attn {

enum class TokenizerKind { Char, Word };

// The most pieces a vocabulary may hold (262,144: GPT-2 has 50,257, the largest published vocabularies ~256 k).
// A text with more distinct words is refused while its vocabulary is counted, before a model is made for it;
// GPTConfig's vocab_size reads the same limit.
constexpr int64_t kMaxVocabulary = int64_t{1} << 18;

const char* tokenizer_kind_name(TokenizerKind kind);           // "char", "word"
TokenizerKind parse_tokenizer_kind(const std::string& name, const char* fn);

class Tokenizer {
public:
    // The sorted set of the text's pieces. Throws Error on invalid UTF-8, an empty text, or a text of more than
    // kMaxVocabulary distinct pieces.
    Tokenizer(TokenizerKind kind, const std::string& text);
    // From a saved vocabulary (see vocabulary()), validated: the pieces must be
    // distinct, sorted, and each one piece of this kind.
    static Tokenizer from_vocabulary(TokenizerKind kind, const std::string& vocabulary, const char* fn);

    // The id of every piece; an unknown piece is an Error naming it and its
    // position (there is no silent fallback).
    std::vector<int64_t> encode(const std::string& text) const;
    // The same ids as int32, 4 bytes a token, for corpora (TextDataset): a corpus costs its ids and nothing
    // else while it is split (every vocabulary is far below 2^31 pieces).
    std::vector<int32_t> encode_corpus(const std::string& text) const;
    // The text of a list of ids; an id outside [0, vocab_size) is an Error.
    std::string decode(const std::vector<int64_t>& ids) const;

    TokenizerKind kind() const { return kind_; }
    int64_t vocab_size() const { return static_cast<int64_t>(pieces_.size()); }
    const std::vector<std::string>& pieces() const { return pieces_; }  // in id order
    // The vocabulary as one string (for checkpoints): a character vocabulary
    // is its characters concatenated (nanoGPT's meta.pkl "chars"); a word
    // vocabulary a JSON array of its pieces.
    std::string vocabulary() const;

private:
    template <typename Id>
    std::vector<Id> encode_as(const std::string& text) const;
    Tokenizer(TokenizerKind kind, std::vector<std::string> pieces) : kind_(kind), pieces_(std::move(pieces)) {}
    TokenizerKind kind_;
    std::vector<std::string> pieces_;  // sorted, unique
};

// The pieces of a text, in order (their concatenation is the text).
std::vector<std::string> split_pieces(TokenizerKind kind, const std::string& text, const char* fn);

std::vector<char32_t> utf8_decode(const std::string& text, const char* fn);
void utf8_append(std::string& out, char32_t c);

}  // namespace attn
