// What a tokenizer.json's post_processor adds around the ids of one text when transformers calls tokenizer(text)
// (add_special_tokens=True): Llama 2, Llama 3, Gemma and Mistral prepend their BOS, BERT wraps the text in [CLS] …
// [SEP]. The tokenizers library's processors (tokenizers/src/processors/), for a single sequence:
//
//   TemplateProcessing  its "single" template: each SpecialToken piece becomes that special token's ids, the
//                       Sequence piece the text's ids ({"SpecialToken": {"id": "<s>"}}, {"Sequence": {"id": "A"}},
//                       or the string form "<s>", "$A")
//   RobertaProcessing   cls, the text, sep
//   BertProcessing      cls, the text, sep
//   ByteLevel           nothing (it only moves offsets, which this library does not return)
//   Sequence            each of its processors in turn
//
// transformers' Llama and Gemma tokenizer classes rebuild the template from tokenizer_config.json's add_bos_token
// and add_eos_token (LlamaTokenizerFast.update_post_processor), which bos_and_eos() makes.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace attn {

class PostProcessor {
public:
    PostProcessor() = default;  // adds nothing
    // The file's post_processor (null: none). Errors start "BPETokenizer: tokenizer.json: post_processor".
    static PostProcessor from_json(const nlohmann::json& post_processor);
    // The template "bos $A eos" with either left out (transformers' update_post_processor).
    static PostProcessor bos_and_eos(std::vector<int64_t> bos, std::vector<int64_t> eos);

    // The ids of one text with the special tokens added.
    std::vector<int64_t> apply(const std::vector<int64_t>& ids) const;
    // How many ids apply() adds.
    size_t added() const { return before_.size() + after_.size(); }

private:
    std::vector<int64_t> before_, after_;  // the ids that go before and after the text's
};

}  // namespace attn
