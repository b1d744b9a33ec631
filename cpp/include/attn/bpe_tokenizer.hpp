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
// A Hugging Face tokenizer.json is read whole: its normalizer, pre-tokenizer and decoder (tokenizer_pipeline.hpp), its
// added tokens with their flags (added_vocabulary.hpp) and its post_processor (post_processor.hpp), so encode(text)
// gives the ids transformers' tokenizer(text) gives, the BOS of Llama, Gemma and Mistral included.
//
// Encoding takes O(n log n) time in the text for any text: a piece's merges come from a priority queue over a
// linked list of its symbols (as Hugging Face's tokenizers do), and the added tokens are found by one automaton
// (special_tokens.hpp).
#pragma once

#include "attn/special_tokens.hpp"

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace attn {

struct TokenizerPipeline;  // a tokenizer.json's normalizer, pre-tokenizer and decoder (an internal of the library)
struct TokenizerJson;      // a tokenizer.json already parsed (an internal of the library: cpp/src/tokenizer_json.hpp)
class AddedVocabulary;     // its added tokens (cpp/src/added_vocabulary.hpp)
struct BPETables;          // its vocabulary and merges as hash tables (cpp/src/bpe_tables.hpp)
class PostProcessor;       // its post_processor (cpp/src/post_processor.hpp)

// The most tokens a tokenizer may hold: a model's vocabulary (kMaxVocabulary, tokenizer.hpp) and added tokens past
// it. Gemma 3's tokenizer has 262,145 tokens for an embedding of 262,144 rows (its <image_soft_token>, id 262,144,
// stands for image features and never comes from text the model reads).
constexpr int64_t kMaxTokenizerVocabulary = int64_t{1} << 19;

class BPETokenizer {
public:
    // From GPT-2's own files: vocab.json ({"token": id}) and merges.txt (an optional "#version" line, then one
    // "left right" pair a line, by rank). A token of vocab.json that no merge can make and that is spelled
    // <|...|> (GPT-2's <|endoftext|>) is a special token. tokenizer_config_json (optional, "" for none) names the
    // BOS, EOS, padding and unknown tokens. Every problem is an Error naming the file and the line or token.
    static BPETokenizer from_files(const std::string& vocab_json, const std::string& merges_txt,
                                   const std::string& tokenizer_config_json = "");
    // From a Hugging Face tokenizer.json whose model is a BPE: model.vocab, model.merges (strings "a b" or pairs
    // ["a", "b"]), byte_fallback, ignore_merges, unk_token and fuse_unk; added_tokens with their flags; the pipeline
    // around the model (normalizer, pre_tokenizer, decoder: tokenizer_pipeline.hpp) and the post_processor. With a
    // ByteLevel pre-tokenizer the vocabulary spells bytes (GPT-2, Llama 3, Qwen2, SmolLM2); without one it is text,
    // a character outside it becoming <0x..> byte tokens (SentencePiece-style files: Llama 2, Mistral, Gemma).
    // tokenizer_config_json (optional) names the special tokens, and for Llama's and Gemma's tokenizer classes
    // decides the BOS and EOS as transformers does (tokenizer_config.hpp).
    static BPETokenizer from_tokenizer_json(const std::string& text, const std::string& tokenizer_config_json = "");
    // The same from the file parsed once by the library's loader of a model folder, which reads it first to see
    // which kind of tokenizer it holds (pretrained_tokenizer): a large tokenizer.json was parsed twice.
    static BPETokenizer from_tokenizer_json(const TokenizerJson& parsed, const std::string& tokenizer_config_json = "");

    // The ids of a text (any bytes: a byte that is not UTF-8 is a piece of its own, so every text encodes and
    // decode(encode(s, false)) == s), with what the post-processor adds around them (BOS …) when
    // add_special_tokens: the tokenizers library's encode(text, add_special_tokens), what transformers'
    // tokenizer(text) returns.
    std::vector<int64_t> encode(const std::string& text, bool add_special_tokens = true) const;
    // The bytes of the ids, concatenated (a token can end inside a UTF-8 character), the special added tokens left
    // out when skip_special_tokens. An id outside [0, vocab_size) is an Error. With clean_up_tokenization_spaces
    // (unset: tokenizer_config.json's, false without it), " ." " ?" " !" " ," " ' " " n't" " 'm" " 's" " 've" " 're"
    // lose their space, as transformers' decode does (Llama 3's and GPT-2's files say true).
    std::string decode(const std::vector<int64_t>& ids, bool skip_special_tokens = false,
                       std::optional<bool> clean_up_tokenization_spaces = std::nullopt) const;

    // The tokens, the added ones past the model's vocabulary included (ids 0 to vocab_size − 1).
    int64_t vocab_size() const { return static_cast<int64_t>(token_at_.size()); }
    std::string_view token_bytes(int64_t id) const {
        const auto [begin, size] = token_at_[static_cast<size_t>(id)];
        return std::string_view(token_text_).substr(begin, size);
    }
    // The id of a token spelled as the file spells it (an added token's content, or a piece of the vocabulary as
    // its bytes), or none.
    std::optional<int64_t> token_id(const std::string& token) const;
    // The tokens tokenizer_config.json names (none without one, or where it names none).
    const std::optional<std::string>& bos_token() const { return bos_token_; }
    const std::optional<std::string>& eos_token() const { return eos_token_; }
    const std::optional<std::string>& pad_token() const { return pad_token_; }
    const std::optional<std::string>& unk_token() const { return unk_token_; }
    // tokenizer_config.json's clean_up_tokenization_spaces (false without it): what decode does when not told.
    bool clean_up_tokenization_spaces() const { return clean_up_tokenization_spaces_; }
    // Whether an id is a special added token (<s>, <|im_start|>, …: what skip_special_tokens leaves out).
    bool is_special(int64_t id) const;
    // Every token's text for display, in id order: its bytes as UTF-8, with U+FFFD for a byte that does not
    // complete a character (as TextDecoder shows it).
    std::vector<std::string> pieces() const;
    // The pre-tokenizer's pieces of a text, added tokens as pieces of their own (for teaching, and for the tests).
    std::vector<std::string> pre_tokenize(const std::string& text) const;

private:
    BPETokenizer() = default;
    void add_merge(int32_t left, int32_t right, int32_t merged, int32_t rank);
    // model.merges, by rank; key_at: (V) where each token's key is in the index's arena, (begin, size), a size of
    // UINT32_MAX for an id no token has
    static void add_merges(BPETokenizer& t, const TokenizerJson& parsed, const std::vector<std::pair<uint32_t, uint32_t>>& key_at);
    int32_t id_of(std::string_view bytes) const;  // the id of a token of the model's vocabulary, or −1
    int32_t spelled_id(std::string_view spelled) const;  // the same by the token's spelling in its file
    bool add_id(int32_t id);                      // indexes token id's bytes; false when another token has them
    void set_token(int32_t id, std::string_view bytes);
    void finish(const std::string& where);
    void read_config(const std::string& tokenizer_config_json);
    std::string decode_tokens(const std::vector<int64_t>& ids, bool skip_special_tokens) const;  // decode, no clean-up
    // Calls piece(p, n) for each piece the pre-tokenizer makes of the text and token(id) for each added token, in
    // the text's order.
    template <typename Piece, typename Token>
    void for_each_piece(const std::string& text, Piece&& piece, Token&& token) const;
    void encode_piece(const char* piece, size_t n, std::vector<int64_t>& out) const;

    std::string token_text_;                              // every token's bytes, back to back
    std::vector<std::pair<uint32_t, uint32_t>> token_at_; // (V) where each token's bytes are in token_text_
    std::string spelled_text_;                            // a byte-level tokenizer.json's tokens as it spells them
    std::array<int32_t, 256> byte_ids_{};                 // the token of each single byte
    // Immutable once made, so shared by copies.
    std::shared_ptr<BPETables> tables_;                   // bytes -> id (the model's vocabulary); (left, right) -> merge
    std::shared_ptr<const AddedVocabulary> added_;        // matched in the text before anything else
    std::shared_ptr<const PostProcessor> post_;           // what encode adds around a text's ids (null: nothing)
    std::vector<bool> special_;                           // (V) is_special

    // tokenizer.json's (from_tokenizer_json); GPT-2's own files need none of it.
    std::shared_ptr<const TokenizerPipeline> pipeline_;   // null: GPT-2's pattern, bytes, no normalizer
    bool byte_level_ = true;      // tokens are bytes; else the vocabulary's text (SentencePiece style)
    bool ignore_merges_ = false;  // a piece that is a token is that token (tiktoken; Llama 3's ignore_merges)
    bool byte_fallback_ = false;  // a character outside the vocabulary becomes its bytes' <0x..> tokens
    std::array<int32_t, 256> fallback_ids_{};
    int32_t unk_ = -1;            // unk_token's id, or −1: an unknown character is dropped
    bool fuse_unk_ = false;       // a run of unknown characters is one unk_token
    std::optional<std::string> bos_token_, eos_token_, pad_token_, unk_token_;  // tokenizer_config.json's
    bool clean_up_tokenization_spaces_ = false;                                 // tokenizer_config.json's
};

}  // namespace attn
