#include "attn/agreement_probe.hpp"

#include <algorithm>
#include <cmath>

namespace attn {

namespace {
// Σ log P(ids[k] | ids[<k]) over the tokens from `from` on, from the logits (T, V) of ids.
double continuation_log_prob(const Tensor& logits, const std::vector<int64_t>& ids, size_t from) {
    const int64_t V = logits.shape.back();
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

AgreementReport probe_agreement(const GPT& model, const Tokenizer& tok, const std::vector<AgreementSentence>& sentences,
                                const Tensor* head_mask) {
    const GPTConfig& c = model.config();
    AgreementReport r;
    r.subject_attention.assign(static_cast<size_t>(c.n_layer * c.n_head), 0.0);
    int64_t agree = 0;
    for (const AgreementSentence& s : sentences) {
        // The prompt's leading newline ends the previous sentence, as in the corpus.
        const std::string text = "\n" + s.prefix + s.verb_correct + ".";
        const std::vector<int64_t> right = tok.encode(text);
        const std::vector<int64_t> wrong = tok.encode("\n" + s.prefix + s.verb_wrong + ".");
        if (static_cast<int64_t>(std::max(right.size(), wrong.size())) > c.block_size) {
            throw Error("probeAgreement: a sentence of " + std::to_string(right.size()) +
                        " tokens does not fit the block size " + std::to_string(c.block_size));
        }
        size_t from = 0;  // the first token where the two forms differ
        while (from < right.size() && from < wrong.size() && right[from] == wrong[from]) ++from;
        // One traced forward of the agreeing sentence gives its score and, the mask being causal, the
        // same attention rows as the prefix alone would.
        GPTTrace trace;
        const Tensor right_logits = model.forward(right, 1, &trace, head_mask);
        const Tensor wrong_logits = model.forward(wrong, 1, nullptr, head_mask);
        if (continuation_log_prob(right_logits, right, from) > continuation_log_prob(wrong_logits, wrong, from)) ++agree;

        // Tokens overlapping the subject's bytes (+1: the leading newline).
        const std::vector<std::string> pieces = split_pieces(tok.kind(), text, "probeAgreement");
        int64_t subject_first = -1, subject_last = -1, offset = 0;
        for (size_t k = 0; k < pieces.size(); ++k) {
            const int64_t end = offset + static_cast<int64_t>(pieces[k].size());
            if (offset < s.subject_end + 1 && end > s.subject_begin + 1) {
                if (subject_first < 0) subject_first = static_cast<int64_t>(k);
                subject_last = static_cast<int64_t>(k);
            }
            offset = end;
        }
        const int64_t query = static_cast<int64_t>(from) - 1;  // predicts the first differing token
        const auto T = static_cast<int64_t>(right.size());
        for (int64_t l = 0; l < c.n_layer; ++l)
            for (int64_t h = 0; h < c.n_head; ++h) {
                const float* row = trace.layers[static_cast<size_t>(l)].weights.data.data() + (h * T + query) * T;
                const int64_t top = std::max_element(row, row + T) - row;
                if (top >= subject_first && top <= subject_last) r.subject_attention[static_cast<size_t>(l * c.n_head + h)] += 1;
            }
    }
    r.sentences = static_cast<int64_t>(sentences.size());
    if (r.sentences == 0) return r;
    r.accuracy = static_cast<double>(agree) / static_cast<double>(r.sentences);
    for (size_t i = 0; i < r.subject_attention.size(); ++i) {
        r.subject_attention[i] /= static_cast<double>(r.sentences);
        if (r.subject_attention[i] > r.best_subject_attention) {
            r.best_subject_attention = r.subject_attention[i];
            r.best_layer = static_cast<int64_t>(i) / c.n_head;
            r.best_head = static_cast<int64_t>(i) % c.n_head;
        }
    }
    return r;
}

}  // namespace attn
