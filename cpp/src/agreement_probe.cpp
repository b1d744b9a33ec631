#include "attn/agreement_probe.hpp"

#include <algorithm>
#include <cmath>

#include "thread_pool.hpp"

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

// One sentence, tokenized and located: its two forms, where they part, and the subject's tokens.
struct ProbeItem {
    std::vector<int64_t> right, wrong;  // (T) each: the agreeing and the disagreeing form
    size_t from = 0;                     // the first token where the two forms differ
    int64_t subject_first = -1, subject_last = -1;
};

ProbeItem prepare(const GPTConfig& c, const Tokenizer& tok, const AgreementSentence& s) {
    ProbeItem item;
    // The prompt's leading newline ends the previous sentence, as in the corpus.
    const std::string text = "\n" + s.prefix + s.verb_correct + ".";
    item.right = tok.encode(text);
    item.wrong = tok.encode("\n" + s.prefix + s.verb_wrong + ".");
    if (static_cast<int64_t>(std::max(item.right.size(), item.wrong.size())) > c.block_size) {
        throw Error("probeAgreement: a sentence of " + std::to_string(item.right.size()) +
                    " tokens does not fit the block size " + std::to_string(c.block_size));
    }
    while (item.from < item.right.size() && item.from < item.wrong.size() && item.right[item.from] == item.wrong[item.from]) ++item.from;
    // Tokens overlapping the subject's bytes (+1: the leading newline).
    const std::vector<std::string> pieces = split_pieces(tok.kind(), text, "probeAgreement");
    int64_t offset = 0;
    for (size_t k = 0; k < pieces.size(); ++k) {
        const int64_t end = offset + static_cast<int64_t>(pieces[k].size());
        if (offset < s.subject_end + 1 && end > s.subject_begin + 1) {
            if (item.subject_first < 0) item.subject_first = static_cast<int64_t>(k);
            item.subject_last = static_cast<int64_t>(k);
        }
        offset = end;
    }
    return item;
}

// What the model does on one sentence: whether it prefers the agreeing form, and for each head (layer-major)
// whether the verb position's largest weight falls on the subject.
struct ProbeOutcome {
    bool agrees = false;
    std::vector<char> on_subject;  // (n_layer · n_head)
};

ProbeOutcome run_probe(const GPT& model, const ProbeItem& item, const Tensor* head_mask) {
    const GPTConfig& c = model.config();
    // One traced forward of the agreeing sentence gives its score and, the mask being causal, the
    // same attention rows as the prefix alone would.
    GPTTrace trace;
    const Tensor right_logits = model.forward(item.right, 1, &trace, head_mask);
    const Tensor wrong_logits = model.forward(item.wrong, 1, nullptr, head_mask);
    ProbeOutcome out;
    out.agrees = continuation_log_prob(right_logits, item.right, item.from) >
                 continuation_log_prob(wrong_logits, item.wrong, item.from);
    out.on_subject.assign(static_cast<size_t>(c.n_layer * c.n_head), 0);
    const int64_t query = static_cast<int64_t>(item.from) - 1;  // predicts the first differing token
    const auto T = static_cast<int64_t>(item.right.size());
    for (int64_t l = 0; l < c.n_layer; ++l)
        for (int64_t h = 0; h < c.n_head; ++h) {
            const float* row = trace.layers[static_cast<size_t>(l)].weights.data.data() + (h * T + query) * T;
            const int64_t top = std::max_element(row, row + T) - row;
            out.on_subject[static_cast<size_t>(l * c.n_head + h)] = top >= item.subject_first && top <= item.subject_last;
        }
    return out;
}
}  // namespace

AgreementReport probe_agreement(const GPT& model, const Tokenizer& tok, const std::vector<AgreementSentence>& sentences,
                                const Tensor* head_mask) {
    const GPTConfig& c = model.config();
    // Every sentence is tokenized and checked first, so that a refused one is reported as it would be in order;
    // then one task per sentence (the forwards of a sentence are too small to split), counted in order after.
    std::vector<ProbeItem> items;
    items.reserve(sentences.size());
    for (const AgreementSentence& s : sentences) items.push_back(prepare(c, tok, s));
    std::vector<ProbeOutcome> outcomes(items.size());
    parallel_for(static_cast<int64_t>(items.size()), [&](int64_t i) {
        outcomes[static_cast<size_t>(i)] = run_probe(model, items[static_cast<size_t>(i)], head_mask);
    });

    AgreementReport r;
    r.subject_attention.assign(static_cast<size_t>(c.n_layer * c.n_head), 0.0);
    int64_t agree = 0;
    for (const ProbeOutcome& o : outcomes) {
        agree += o.agrees;
        for (size_t k = 0; k < o.on_subject.size(); ++k) r.subject_attention[k] += o.on_subject[k];
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
