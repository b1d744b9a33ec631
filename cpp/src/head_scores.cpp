#include "attn/head_scores.hpp"

#include <Eigen/Eigenvalues>

#include <algorithm>
#include <cmath>
#include <complex>
#include <string>

namespace attn {

namespace {
constexpr const char* kFn = "headScores";

void check_model(const GPTConfig& c) {
    if (c.n_layer < 2) {
        throw Error(std::string(kFn) + ": expected a model of at least 2 layers (an induction head composes two: a "
                    "previous-token head, then a head whose keys read its output), got " + std::to_string(c.n_layer));
    }
}

// Refuses repeats that do not fit their sequence or whose copies differ.
void check_repeats(const RepeatedSequences& s) {
    if (s.B < 1 || s.T < kMinRepeatedLength || s.ids.size() != static_cast<size_t>(s.B * s.T) ||
        s.repeats.size() != static_cast<size_t>(s.B)) {
        throw Error(std::string(kFn) + ": expected sequences of shape [B, T] with T >= " + std::to_string(kMinRepeatedLength) +
                    " and one repeat each, got " + std::to_string(s.ids.size()) + " ids, B=" + std::to_string(s.B) +
                    ", T=" + std::to_string(s.T) + " and " + std::to_string(s.repeats.size()) + " repeats");
    }
    for (int64_t b = 0; b < s.B; ++b) {
        const Repeat& r = s.repeats[static_cast<size_t>(b)];
        const int64_t* row = s.ids.data() + b * s.T;
        const bool fits = r.length >= 2 && r.first >= 0 && r.second >= r.first + r.length && r.second + r.length <= s.T;
        if (!fits || !std::equal(row + r.first, row + r.first + r.length, row + r.second)) {
            throw Error(std::string(kFn) + ": sequence " + std::to_string(b) + "'s repeat (first " + std::to_string(r.first) +
                        ", second " + std::to_string(r.second) + ", length " + std::to_string(r.length) + ") " +
                        (fits ? "does not repeat its tokens" : "does not fit a sequence of " + std::to_string(s.T) + " tokens"));
        }
    }
}

// Mean cross-entropy (nats) of the first L − 1 tokens of each sequence's first (second = false) or second copy
// predicting their next token; logits (B, T, V).
double copy_loss(const Tensor& logits, const RepeatedSequences& s, int64_t V, bool second) {
    double sum = 0;
    int64_t n = 0;
    for (int64_t b = 0; b < s.B; ++b) {
        const Repeat& r = s.repeats[static_cast<size_t>(b)];
        const int64_t start = second ? r.second : r.first;
        for (int64_t i = start; i < start + r.length - 1; ++i) {
            const float* row = logits.data.data() + (b * s.T + i) * V;
            const double top = *std::max_element(row, row + V);
            double z = 0;
            for (int64_t v = 0; v < V; ++v) z += std::exp(static_cast<double>(row[v]) - top);
            sum += top + std::log(z) - static_cast<double>(row[s.ids[static_cast<size_t>(b * s.T + i + 1)]]);
            ++n;
        }
    }
    return sum / static_cast<double>(n);
}

// Elhage et al.'s copying score of every head (header). M's non-zero eigenvalues are those of the d × d
// product S = W_V^h diag(γ₁) W_Eᵀ W_U diag(γ_f) W_O^h (the eigenvalues of AB and BA agree), so a
// vocabulary of 50,257 costs one C × V × C product, not an eigen-decomposition of V × V.
Tensor copying_scores(const GPT& m) {
    const GPTConfig& c = m.config();
    const int64_t C = c.n_embd, H = c.n_head, d = c.head_size(), V = c.vocab_size, HD = c.q_width(), KD = c.kv_width();
    const int64_t group = H / c.kv_heads();
    const bool pre = c.norm == NormPlacement::Pre;
    using MatrixD = Eigen::MatrixXd;
    const auto matrix = [](const Tensor& t, int64_t rows, int64_t cols) {
        const std::vector<float> values = float_values(t);  // a loaded model's 16-bit weights widened
        return Eigen::Map<const Matrix>(values.data(), rows, cols).cast<double>().eval();
    };
    // A norm's gain (Gemma's is 1 + w).
    const double offset = c.norm_type == NormType::GemmaRMSNorm ? 1.0 : 0.0;
    const auto gain = [&](const Tensor& w) -> MatrixD {
        const Eigen::VectorXd g = (matrix(w, C, 1).array() + offset).matrix();
        return g.asDiagonal();
    };
    const MatrixD embed = matrix(m.wte, V, C), unembed = matrix(m.head_weight(), V, C);
    MatrixD through = embed.transpose() * unembed;  // (C, C): W_Eᵀ W_U
    if (pre) through = through * gain(m.ln_f_weight);
    Tensor scores({c.n_layer, H});
    for (int64_t l = 0; l < c.n_layer; ++l) {
        const GPTBlock& blk = m.h[static_cast<size_t>(l)];
        MatrixD read = through;
        if (pre) read = gain(blk.ln_1_weight) * read;
        if (c.sandwich_norm) read = read * gain(blk.ln_post_attn_weight);  // Gemma's norm on the head's output
        const MatrixD w_v = matrix(blk.attn_c_attn_weight, HD + 2 * KD, C).middleRows(HD + KD, KD);  // (KD, C), kv head g: rows g·d…
        const MatrixD w_o = matrix(blk.attn_c_proj_weight, C, HD);                                   // (C, HD), head h: columns h·d…
        for (int64_t h = 0; h < H; ++h) {
            // Query head h mixes the values of its key/value head (grouped-query attention).
            const MatrixD S = w_v.middleRows((h / group) * d, d) * read * w_o.middleCols(h * d, d);  // (d, d)
            const Eigen::VectorXcd lambda = Eigen::EigenSolver<MatrixD>(S, false).eigenvalues();
            double sum = 0, size = 0;
            for (const std::complex<double>& x : lambda) {
                sum += x.real();
                size += std::abs(x);
            }
            scores.data[static_cast<size_t>(l * H + h)] = size > 0 ? static_cast<float>(sum / size) : 0.0f;
        }
    }
    return scores;
}
}  // namespace

HeadScores head_scores(const GPT& model, const HeadScoreOptions& options) {
    const GPTConfig& c = model.config();
    check_model(c);
    const int64_t T = options.length == 0 ? std::min(c.block_size, kDefaultScoreLength) : options.length;
    if (T > c.block_size) {
        throw Error(std::string(kFn) + ": expected a length within the model's block size " + std::to_string(c.block_size) +
                    ", got " + std::to_string(T));
    }
    if (options.batch_size < 1) {
        throw Error(std::string(kFn) + ": expected a batch size of at least 1, got " + std::to_string(options.batch_size));
    }
    GPT::check_pass_fits(c, options.batch_size, T, T, kFn);
    Generator gen(options.seed);
    return head_scores(model, repeated_sequences(options.batch_size, T, c.vocab_size, gen, kFn), options.ablation);
}

HeadScores head_scores(const GPT& model, RepeatedSequences sequences, bool ablation) {
    const GPTConfig& c = model.config();
    check_model(c);
    check_repeats(sequences);
    const RepeatedSequences& s = sequences;
    const int64_t L = c.n_layer, H = c.n_head, B = s.B, T = s.T, V = c.vocab_size;
    HeadScores out;
    out.prefix_matching = Tensor({L, H});
    out.previous_token = Tensor({L, H});
    int64_t copy_queries = 0;
    for (const Repeat& r : s.repeats) copy_queries += r.length - 1;
    // Each layer's weights (B, H, T, T) are read as the pass goes.
    const GPT::AttentionObserver observe = [&](int64_t l, const std::vector<float>& w, const Matrix&) {
        for (int64_t h = 0; h < H; ++h) {
            double prefix = 0, previous = 0;
            for (int64_t b = 0; b < B; ++b) {
                const float* map = w.data() + (b * H + h) * T * T;
                const Repeat& r = s.repeats[static_cast<size_t>(b)];
                for (int64_t k = 0; k + 1 < r.length; ++k) prefix += map[(r.second + k) * T + r.first + k + 1];
                for (int64_t t = 1; t < T; ++t) previous += map[t * T + t - 1];
            }
            out.prefix_matching.data[static_cast<size_t>(l * H + h)] = static_cast<float>(prefix / static_cast<double>(copy_queries));
            out.previous_token.data[static_cast<size_t>(l * H + h)] = static_cast<float>(previous / static_cast<double>(B * (T - 1)));
        }
    };
    const Tensor logits = model.forward_observed(s.ids, B, observe);
    out.first_repeat_loss = static_cast<float>(copy_loss(logits, s, V, false));
    const double second = copy_loss(logits, s, V, true);
    out.second_repeat_loss = static_cast<float>(second);
    out.copying = copying_scores(model);
    if (ablation) {
        out.in_context_loss_gain = Tensor({L, H});
        Tensor mask({L, H}, std::vector<float>(static_cast<size_t>(L * H), 1.0f));
        for (int64_t k = 0; k < L * H; ++k) {
            mask.data[static_cast<size_t>(k)] = 0.0f;
            const double without = copy_loss(model.forward(s.ids, B, nullptr, &mask), s, V, true);
            out.in_context_loss_gain.data[static_cast<size_t>(k)] = static_cast<float>(without - second);
            mask.data[static_cast<size_t>(k)] = 1.0f;
        }
    }
    out.sequences = std::move(sequences);
    return out;
}

}  // namespace attn
