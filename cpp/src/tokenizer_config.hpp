// tokenizer_config.json, the part of it a tokenizer needs: which tokens are the BOS, EOS, padding and unknown
// tokens (transformers' special_tokens_map), and, for the tokenizer classes that read them, add_bos_token and
// add_eos_token. Its chat_template is rendered in JS (web/lib/chat-template.js), where the Jinja engine is.
#pragma once

#include <optional>
#include <string>

namespace attn {

struct TokenizerConfig {
    // Each a token's text, or none: the file's value may be a string or an AddedToken object {"content": …}.
    std::optional<std::string> bos_token, eos_token, pad_token, unk_token;
    std::string tokenizer_class;  // e.g. "LlamaTokenizer", "GemmaTokenizerFast", "PreTrainedTokenizerFast"
    std::optional<bool> add_bos_token, add_eos_token;
    // Whether decode removes the spaces a word-level tokenizer left before punctuation and contractions
    // (transformers' clean_up_tokenization). Unset is false, as in transformers since v4.45; @huggingface/tokenizers
    // (and so transformers.js) takes unset as true, and this library follows transformers.
    std::optional<bool> clean_up_tokenization_spaces;

    // transformers' Llama and Gemma tokenizer classes (LlamaTokenizerFast, GemmaTokenizerFast) replace the
    // tokenizer.json's post_processor by "bos $A eos" from add_bos_token (default true) and add_eos_token
    // (default false) when they are made (update_post_processor); the other classes keep the file's.
    bool rebuilds_post_processor() const;
};

// "" reads as no file (every field unset). Errors (not JSON, a field of another type) are FormatErrors starting
// "BPETokenizer: tokenizer_config.json".
TokenizerConfig read_tokenizer_config(const std::string& text);

}  // namespace attn
