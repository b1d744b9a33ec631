// What a model trained on the agreement corpus learned (synthetic_corpus.hpp).
//
// Agreement: for each held-out sentence, the model scores both verb forms
// after the sentence's prefix ("\nThe cats, which slept near the dog, ") by
// the total log-probability of "purr." and "purrs."; it agrees when the form
// matching the subject scores higher.
//
// Attention: the verb position is the last character the two forms share
// ("purr|", "cr|y"), the position whose next-character prediction decides the
// number. For every layer and head we count how often that position's largest
// attention weight falls on the subject noun's characters.
#pragma once

#include "attn/gpt.hpp"
#include "attn/synthetic_corpus.hpp"
#include "attn/tokenizer.hpp"

#include <vector>

namespace attn {

struct AgreementReport {
    int64_t sentences = 0;
    double accuracy = 0;                   // fraction choosing the agreeing form
    std::vector<double> subject_attention; // (n_layers · n_heads): fraction per head, layer-major
    int64_t best_layer = 0, best_head = 0;
    double best_subject_attention = 0;
};

AgreementReport probe_agreement(const GPT& model, const CharTokenizer& tokenizer,
                                const std::vector<AgreementSentence>& sentences);

}  // namespace attn
