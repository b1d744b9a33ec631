// GPT-2's tokenizer: byte-level byte-pair encoding (Radford et al. 2019,
// "Language Models are Unsupervised Multitask Learners" §2.2; OpenAI's
// encoder.py). Text is UTF-8 bytes; a pre-tokenizer splits it into pieces with
//
//   's|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+
//
// ("The cat's 3 toys" -> "The" " cat" "'s" " 3" " toys"), and each piece starts
// as one token per byte and is merged pairwise, lowest-ranked pair of merges.txt
// first, until no listed pair is left:
//
//   " toys"  ->  Ġ t o y s  ->  Ġt o y s  ->  Ġt oy s  ->  Ġtoy s  ->  Ġtoys
//
// (vocab.json spells a byte as a printable character: byte 0x20, the space, is
// "Ġ"; that alphabet is bytes_to_unicode in encoder.py). Special tokens such as
// <|endoftext|> are matched in the text first and are one token each. The ids
// are those of js-tiktoken's "gpt2" encoding and Hugging Face's GPT2Tokenizer.
//
// Encoding takes O(n log n) time in the text for any text: a piece's merges come from a priority queue over a
// linked list of its symbols (as Hugging Face's tokenizers do), and the special tokens are found by one
// automaton (special_tokens.hpp).
#pragma once

#include "attn/special_tokens.hpp"

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace attn {

struct TokenizerPipeline;  // a tokenizer.json's normalizer, pre-tokenizer and decoder (an internal of the library)
struct TokenizerJson;      // a tokenizer.json already parsed (an internal of the library: cpp/src/tokenizer_json.hpp)

class BPETokenizer {
public:
    // From GPT-2's own files: vocab.json ({"token": id}) and merges.txt (an optional "#version" line, then one
    // "left right" pair a line, by rank). A token of vocab.json that no merge can make and that is spelled
    // <|...|> (GPT-2's <|endoftext|>) is a special token. Every problem is an Error naming the file and the line
    // or token.
    static BPETokenizer from_files(const std::string& vocab_json, const std::string& merges_txt);
    // From a Hugging Face tokenizer.json whose model is a BPE: model.vocab, model.merges (strings "a b" or pairs
    // ["a", "b"]), byte_fallback, ignore_merges, unk_token and fuse_unk; added_tokens, each matched in the text
    // first; and the pipeline around the model (normalizer, pre_tokenizer, decoder: tokenizer_pipeline.hpp).
    // With a ByteLevel pre-tokenizer the vocabulary spells bytes (GPT-2, Llama 3, Qwen2, SmolLM2); without one it
    // is text, a character outside it becoming <0x..> byte tokens (SentencePiece-style files: Llama 2, Mistral,
    // Gemma). The ids are what the tokenizers library's encode(text, add_special_tokens=False) gives.
    static BPETokenizer from_tokenizer_json(const std::string& text);
    // The same from the file parsed once by the library's loader of a model folder, which reads it first to see
    // which kind of tokenizer it holds (pretrained_tokenizer): a large tokenizer.json was parsed twice.
    static BPETokenizer from_tokenizer_json(const TokenizerJson& parsed);

    // The ids of a text (any bytes: a byte that is not UTF-8 is a piece of its own, so every text encodes and
    // decode(encode(s)) == s).
    std::vector<int64_t> encode(const std::string& text) const;
    // The bytes of the ids, concatenated (a token can end inside a UTF-8 character). An id outside
    // [0, vocab_size) is an Error.
    std::string decode(const std::vector<int64_t>& ids) const;

    int64_t vocab_size() const { return static_cast<int64_t>(bytes_.size()); }
    const std::string& token_bytes(int64_t id) const { return bytes_[static_cast<size_t>(id)]; }
    // Every token's text for display, in id order: its bytes as UTF-8, with U+FFFD for a byte that does not
    // complete a character (as TextDecoder shows it).
    std::vector<std::string> pieces() const;
    // The pre-tokenizer's pieces of a text, as views into it (for teaching, and for the tests).
    std::vector<std::string> pre_tokenize(const std::string& text) const;

private:
    BPETokenizer() = default;
    void add_merge(int32_t left, int32_t right, int32_t rank, const std::string& where);
    void finish(const std::string& where);
    template <typename F>
    void for_each_segment(const std::string& text, F&& f) const;
    // Calls f(piece, length) for each piece of text[begin, begin + length), a stretch between special tokens.
    template <typename F>
    void for_each_piece(const std::string& text, size_t begin, size_t length, F&& f) const;
    void encode_piece(const char* piece, size_t n, std::vector<int64_t>& out) const;

    std::vector<std::string> bytes_;                      // (V) each token's bytes
    std::unordered_map<std::string, int32_t> ids_;        // bytes -> id
    std::array<int32_t, 256> byte_ids_{};                 // the token of each single byte
    struct Merge {
        int32_t rank, merged;
    };
    std::unordered_map<uint64_t, Merge> merges_;          // (left id << 32 | right id) -> rank, merged id
    SpecialTokens special_;                               // matched in the text before pre-tokenizing

    // tokenizer.json's (from_tokenizer_json); GPT-2's own files need none of it.
    std::shared_ptr<const TokenizerPipeline> pipeline_;   // null: GPT-2's pattern, bytes, no normalizer
    bool byte_level_ = true;      // tokens are bytes; else the vocabulary's text (SentencePiece style)
    bool ignore_merges_ = true;   // a piece that is a token is that token (tiktoken; Llama 3's ignore_merges)
    bool byte_fallback_ = false;  // a character outside the vocabulary becomes its bytes' <0x..> tokens
    std::array<int32_t, 256> fallback_ids_{};
    int32_t unk_ = -1;            // unk_token's id, or −1: an unknown character is dropped
    bool fuse_unk_ = false;       // a run of unknown characters is one unk_token
};

}  // namespace attn
