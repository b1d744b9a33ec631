// What a model trained on the agreement corpus learned (synthetic_corpus.hpp).
//
// Agreement: for each held-out sentence, the model scores both verb forms
// after the sentence's prefix ("\nThe cats, which slept near the dog, ") by
// the total log-probability of their tokens from the first one where they
// differ ("s." against "." with characters, " purr" "." against " purrs" "."
// with words); it agrees when the form matching the subject scores higher.
//
// Attention: the verb position is the last token the two forms share
// ("purr|", "cr|y" with characters; the "," before the verb with words), the
// position whose next-token prediction decides the number. For every layer
// and head we count how often that position's largest attention weight falls
// on a token of the subject noun.
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

// head_mask (n_layer, n_head), when given, is passed to every forward
// (GPT::forward): with a head switched off (0), how much agreement is left.
// A head switched off has zero weights everywhere, so it never counts as
// looking at the subject.
AgreementReport probe_agreement(const GPT& model, const Tokenizer& tokenizer,
                                const std::vector<AgreementSentence>& sentences, const Tensor* head_mask = nullptr);

}  // namespace attn
