// What a Hugging Face tokenizer.json does around its BPE model (the tokenizers library's pipeline): a normalizer
// rewrites each stretch of text between added tokens, a pre-tokenizer cuts it into pieces that merges never
// cross, and a decoder turns tokens back into text.
//
//   normalizers      Sequence, NFC, NFD (unicode_normalization.hpp), Prepend, Replace (a string or a regex)
//   pre-tokenizers   Sequence, ByteLevel (with or without GPT-2's pattern), Split (the file's own regex or
//                    string, any behavior, inverted or not), Digits, Metaspace
//   decoders         Sequence, ByteLevel, Replace, ByteFallback, Fuse, Strip, Metaspace
//
// Llama 3, Qwen2 (cl100k-like Split patterns + ByteLevel), SmolLM2 (Digits + ByteLevel) and SentencePiece-style
// files (Llama 2, Mistral, Gemma: Prepend "▁" + Replace " " → "▁", byte fallback, a decoder undoing both) are
// made of these. Any other component type is an Error naming it, when the file is read.
#pragma once

#include "regex.hpp"

#include <nlohmann/json.hpp>

#include <memory>
#include <string>
#include <vector>

namespace attn {

struct TokenizerPipeline {
    struct Step;  // one component, as the file gives it

    std::vector<std::shared_ptr<const Step>> normalizers;
    std::vector<std::shared_ptr<const Step>> pre_tokenizers;
    std::vector<std::shared_ptr<const Step>> decoders;
    bool has_decoder = false;
    // A ByteLevel pre-tokenizer: the model's vocabulary spells bytes in GPT-2's printable alphabet, and pieces
    // reach it as bytes.
    bool byte_level = false;

    // Reads normalizer, pre_tokenizer and decoder; Errors start "BPETokenizer: tokenizer.json: ".
    static TokenizerPipeline from_json(const nlohmann::json& tokenizer_json);

    std::string normalize(const std::string& text) const;
    // The pieces of a normalized text, appended to `pieces`; at_start: the text begins the whole input (what
    // Metaspace's prepend_scheme "first" asks).
    void pre_tokenize(const std::string& text, std::vector<std::string>& pieces, bool at_start) const;
    // The text of the tokens (as the vocabulary spells them, byte-fallback tokens as "<0x41>").
    std::string decode(std::vector<std::string> tokens) const;
};

}  // namespace attn
