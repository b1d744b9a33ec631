#include "attn/agreement_probe.hpp"

#include <algorithm>
#include <cmath>

namespace attn {

namespace {
// Σ log P(text[k] | text[<k]) over the characters from `from` on.
double continuation_log_prob(const GPT& model, const std::vector<int64_t>& ids, size_t from) {
    const Tensor logits = model.forward(ids, 1);
    const int64_t V = model.config().vocab_size;
    double total = 0;
    for (size_t k = from; k < ids.size(); ++k) {
        const float* row = logits.data.data() + static_cast<int64_t>(k - 1) * V;
        const float max = *std::max_element(row, row + V);
        double sum = 0;
        for (int64_t j = 0; j < V; ++j) sum += std::exp(static_cast<double>(row[j] - max));
        total += row[ids[k]] - max - std::log(sum);
    }
    return total;
}
}  // namespace

AgreementReport probe_agreement(const GPT& model, const CharTokenizer& tok, const std::vector<AgreementSentence>& sentences) {
    const GPTConfig& c = model.config();
    AgreementReport r;
    r.subject_attention.assign(static_cast<size_t>(c.n_layers * c.n_heads), 0.0);
    int64_t agree = 0;
    for (const AgreementSentence& s : sentences) {
        const std::string prefix = "\n" + s.prefix;
        const std::vector<int64_t> right = tok.encode(prefix + s.verb_correct + ".");
        const std::vector<int64_t> wrong = tok.encode(prefix + s.verb_wrong + ".");
        if (static_cast<int64_t>(std::max(right.size(), wrong.size())) > c.block_size) {
            throw Error("probeAgreement: a sentence of " + std::to_string(right.size()) +
                        " characters does not fit the block size " + std::to_string(c.block_size));
        }
        const size_t from = tok.encode(prefix).size();
        if (continuation_log_prob(model, right, from) > continuation_log_prob(model, wrong, from)) ++agree;

        size_t shared = 0;
        while (shared < s.verb_correct.size() && shared < s.verb_wrong.size() &&
               s.verb_correct[shared] == s.verb_wrong[shared])
            ++shared;
        const int64_t query = static_cast<int64_t>(from + shared) - 1;  // last shared character (or the space)
        GPTTrace trace;
        model.forward(std::vector<int64_t>(right.begin(), right.begin() + query + 1), 1, &trace);
        const int64_t T = query + 1;
        for (int64_t l = 0; l < c.n_layers; ++l)
            for (int64_t h = 0; h < c.n_heads; ++h) {
                const float* row = trace.layers[static_cast<size_t>(l)].weights.data.data() + (h * T + query) * T;
                const int64_t top = std::max_element(row, row + T) - row;
                // +1: the prompt's leading newline shifts the sentence by one.
                if (top >= s.subject_begin + 1 && top < s.subject_end + 1) r.subject_attention[static_cast<size_t>(l * c.n_heads + h)] += 1;
            }
    }
    r.sentences = static_cast<int64_t>(sentences.size());
    if (r.sentences == 0) return r;
    r.accuracy = static_cast<double>(agree) / static_cast<double>(r.sentences);
    for (size_t i = 0; i < r.subject_attention.size(); ++i) {
        r.subject_attention[i] /= static_cast<double>(r.sentences);
        if (r.subject_attention[i] > r.best_subject_attention) {
            r.best_subject_attention = r.subject_attention[i];
            r.best_layer = static_cast<int64_t>(i) / c.n_heads;
            r.best_head = static_cast<int64_t>(i) % c.n_heads;
        }
    }
    return r;
}

}  // namespace attn
