// Induction heads: the repeats task's sequences (repeated_sequences.hpp), the attention-only model, the scores
// (head_scores.hpp) against the same numbers computed here by other means, and the recipe (config.hpp) forming
// an induction head in a short run.
#include "attn/head_scores.hpp"
#include "attn/trainer.hpp"
#include "fixtures.hpp"

#include <Eigen/Eigenvalues>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

using namespace attn;
using fixtures::error_of;

namespace {
GPT attention_only(int64_t n_layer = 2, uint64_t seed = 5) {
    GPTConfig c = GPTConfig::induction(11);
    c.n_layer = n_layer;
    c.n_embd = 12;
    c.n_head = 3;
    c.block_size = 20;
    c.seed = seed;
    return GPT(c);
}
}  // namespace

TEST(RepeatedSequences, EachRowRepeatsOneSegmentAtDrawnPlaces) {
    Generator gen(3);
    const RepeatedSequences s = repeated_sequences(200, 48, 32, gen);
    ASSERT_EQ(s.ids.size(), 200u * 48u);
    ASSERT_EQ(s.repeats.size(), 200u);
    int64_t shortest = 100, longest = 0, latest_first = 0;
    for (int64_t b = 0; b < s.B; ++b) {
        const Repeat& r = s.repeats[static_cast<size_t>(b)];
        const int64_t* row = s.ids.data() + b * 48;
        EXPECT_GE(r.second, r.first + r.length);
        EXPECT_LE(r.second + r.length, 48);
        EXPECT_TRUE(std::equal(row + r.first, row + r.first + r.length, row + r.second)) << b;
        shortest = std::min(shortest, r.length);
        longest = std::max(longest, r.length);
        latest_first = std::max(latest_first, r.first);
    }
    for (int64_t id : s.ids) ASSERT_TRUE(id >= 0 && id < 32);
    // Lengths span ⌊48/4⌋ … ⌊48/3⌋, and places vary (a fixed offset could be copied by position alone).
    EXPECT_EQ(shortest, 12);
    EXPECT_EQ(longest, 16);
    EXPECT_GT(latest_first, 10);
    // The same generator state gives the same sequences.
    Generator again(3);
    EXPECT_EQ(repeated_sequences(200, 48, 32, again).ids, s.ids);
}

TEST(RepeatedSequences, RefusesSequencesTooShortToRepeat) {
    Generator gen(1);
    EXPECT_EQ(error_of([&] { repeated_sequences(4, 7, 32, gen); }),
              "repeatedSequences: expected sequences of at least 8 tokens (a repeat of 2 tokens or more, twice, with room "
              "around it), got 7");
    EXPECT_EQ(error_of([&] { repeated_sequences(0, 8, 32, gen); }), "repeatedSequences: expected at least 1 sequence, got 0");
    EXPECT_EQ(error_of([&] { repeated_sequences(1, 8, 1, gen); }),
              "repeatedSequences: expected a vocabulary of at least 2 tokens to draw from, got 1");
}

TEST(AttentionOnly, HasNoFeedForwardAndItsResidualStreamIsEmbeddingsPlusHeads) {
    const GPT m = attention_only();
    for (const auto& [name, t] : m.named_parameters()) {
        EXPECT_EQ(name.find("mlp"), std::string::npos) << name;
        EXPECT_EQ(name.find("ln_2"), std::string::npos) << name;
    }
    const GPTConfig& c = m.config();
    // (V + T)·C + L·4·C² + V·C (untied), plus biases and norms.
    EXPECT_EQ(c.matrix_parameters(), (11.0 + 20.0) * 12 + 2 * 4 * 144.0 + 11 * 12);
    // Each block's output is its input plus its attention sublayer, nothing more.
    const std::vector<int64_t> ids = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
    GPTTrace trace;
    m.forward(ids, 1, &trace);
    GPTConfig without = c;
    without.attn_only = false;
    EXPECT_EQ(GPT::parameter_layout(c).size() + 2 * 6, GPT::parameter_layout(without).size());  // ln_2, c_fc, c_proj
    const Tensor& in = trace.layers[1].input;
    const Tensor& out0 = trace.layers[0].output;
    EXPECT_EQ(in.data, out0.data);
}

TEST(HeadScores, EqualTheTracesWeightsAndLossesComputedByHand) {
    const GPT m = attention_only();
    HeadScoreOptions o;
    o.batch_size = 3;
    o.seed = 9;
    const HeadScores s = head_scores(m, o);
    const RepeatedSequences& q = s.sequences;
    ASSERT_EQ(q.T, 20);  // the block size
    ASSERT_EQ(s.prefix_matching.shape, (Shape{2, 3}));
    ASSERT_EQ(s.in_context_loss_gain.shape, (Shape{2, 3}));
    GPTTrace trace;
    const Tensor logits = m.forward(q.ids, q.B, &trace);
    const int64_t T = q.T, H = 3, V = 11;
    auto loss_at = [&](const Tensor& lg, int64_t b, int64_t i) {
        const float* row = lg.data.data() + (b * T + i) * V;
        double z = 0;
        for (int64_t v = 0; v < V; ++v) z += std::exp(static_cast<double>(row[v]));
        return std::log(z) - row[q.ids[static_cast<size_t>(b * T + i + 1)]];
    };
    auto copy_loss = [&](const Tensor& lg, bool second) {
        double sum = 0;
        int64_t n = 0;
        for (int64_t b = 0; b < q.B; ++b) {
            const Repeat& r = q.repeats[static_cast<size_t>(b)];
            for (int64_t k = 0; k + 1 < r.length; ++k, ++n) sum += loss_at(lg, b, (second ? r.second : r.first) + k);
        }
        return sum / static_cast<double>(n);
    };
    EXPECT_NEAR(s.first_repeat_loss, copy_loss(logits, false), 1e-5);
    EXPECT_NEAR(s.second_repeat_loss, copy_loss(logits, true), 1e-5);
    for (int64_t l = 0; l < 2; ++l) {
        const Tensor& w = trace.layers[static_cast<size_t>(l)].weights;  // (B, H, T, T)
        for (int64_t h = 0; h < H; ++h) {
            double prefix = 0, previous = 0;
            int64_t n_prefix = 0;
            for (int64_t b = 0; b < q.B; ++b) {
                const Repeat& r = q.repeats[static_cast<size_t>(b)];
                const auto at = [&](int64_t i, int64_t j) { return w.data[static_cast<size_t>(((b * H + h) * T + i) * T + j)]; };
                for (int64_t k = 0; k + 1 < r.length; ++k, ++n_prefix) prefix += at(r.second + k, r.first + k + 1);
                for (int64_t t = 1; t < T; ++t) previous += at(t, t - 1);
            }
            EXPECT_NEAR(s.prefix_matching.data[static_cast<size_t>(l * H + h)], prefix / static_cast<double>(n_prefix), 1e-6);
            EXPECT_NEAR(s.previous_token.data[static_cast<size_t>(l * H + h)], previous / static_cast<double>(q.B * (T - 1)), 1e-6);
            Tensor mask({2, H}, std::vector<float>(6, 1.0f));
            mask.data[static_cast<size_t>(l * H + h)] = 0.0f;
            const double gain = copy_loss(m.forward(q.ids, q.B, nullptr, &mask), true) - copy_loss(logits, true);
            EXPECT_NEAR(s.in_context_loss_gain.data[static_cast<size_t>(l * H + h)], gain, 1e-5);
        }
    }
}

TEST(HeadScores, CopyingIsTheEigenvalueRatioOfTheWholeVocabularyCircuit) {
    // Computed here from the V × V matrix itself, where head_scores uses the d × d one with the same eigenvalues.
    const GPT m = attention_only(2, 17);
    const HeadScores s = head_scores(m, HeadScoreOptions{2, 0, 0, false});
    EXPECT_TRUE(s.in_context_loss_gain.data.empty());
    const GPTConfig& c = m.config();
    const int64_t C = c.n_embd, V = c.vocab_size, d = C / c.n_head;
    using MatrixD = Eigen::MatrixXd;
    const auto matrix = [](const Tensor& t, int64_t rows, int64_t cols) {
        return Eigen::Map<const Matrix>(t.data.data(), rows, cols).cast<double>().eval();
    };
    for (int64_t l = 0; l < 2; ++l) {
        const GPTBlock& blk = m.h[static_cast<size_t>(l)];
        for (int64_t h = 0; h < c.n_head; ++h) {
            const MatrixD ov = matrix(m.lm_head_weight, V, C) * matrix(m.ln_f_weight, C, 1).asDiagonal() *
                               matrix(blk.attn_c_proj_weight, C, C).middleCols(h * d, d) *
                               matrix(blk.attn_c_attn_weight, 3 * C, C).middleRows(2 * C + h * d, d) *
                               matrix(blk.ln_1_weight, C, 1).asDiagonal() * matrix(m.wte, V, C).transpose();
            const Eigen::VectorXcd lambda = Eigen::EigenSolver<MatrixD>(ov, false).eigenvalues();
            const double expected = lambda.real().sum() / lambda.cwiseAbs().sum();
            EXPECT_NEAR(s.copying.data[static_cast<size_t>(l * c.n_head + h)], expected, 1e-5) << l << "." << h;
        }
    }
}

TEST(HeadScores, BadRequestsRaiseClearErrors) {
    EXPECT_EQ(error_of([] { head_scores(attention_only(1)); }),
              "headScores: expected a model of at least 2 layers (an induction head composes two: a previous-token head, "
              "then a head whose keys read its output), got 1");
    const GPT m = attention_only();
    EXPECT_EQ(error_of([&] { head_scores(m, HeadScoreOptions{4, 21, 0, false}); }),
              "headScores: expected a length within the model's block size 20, got 21");
    EXPECT_EQ(error_of([&] { head_scores(m, HeadScoreOptions{4, 7, 0, false}); }),
              "headScores: expected sequences of at least 8 tokens (a repeat of 2 tokens or more, twice, with room around "
              "it), got 7");
    EXPECT_EQ(error_of([&] { head_scores(m, HeadScoreOptions{0, 8, 0, false}); }),
              "headScores: expected a batch size of at least 1, got 0");
    EXPECT_NE(error_of([&] { head_scores(m, HeadScoreOptions{1 << 20, 20, 0, false}); }).find("more than the library's limit"),
              std::string::npos);
    Generator gen(2);
    RepeatedSequences s = repeated_sequences(2, 12, 11, gen);
    s.ids[static_cast<size_t>(s.repeats[1].second) + 12] += 1;  // row 1's second copy no longer equals its first
    s.ids[static_cast<size_t>(s.repeats[1].second) + 12] %= 11;
    EXPECT_NE(error_of([&] { head_scores(m, s, false); }).find("sequence 1's repeat"), std::string::npos);
    s.repeats[0].second = 11;
    EXPECT_NE(error_of([&] { head_scores(m, s, false); }).find("does not fit a sequence of 12 tokens"), std::string::npos);
}

// The recipe's phase change (docs/induction.md): before it the second copy is as unpredictable as the first;
// after it a layer-1 head attends to the token after the earlier occurrence, a layer-0 head to the previous
// token, and switching that layer-0 head off breaks the layer-1 head's keys, so the loss on the second copy rises.
TEST(HeadScores, TheInductionRecipeFormsAnInductionHeadIn800Steps) {
    const std::string alphabet = "abcdefghijklmnopqrstuvwxyzABCDEF";
    Trainer run(GPTConfig::induction(), TrainConfig::induction(), alphabet);
    const HeadScores before = head_scores(run.model());
    EXPECT_GT(before.second_repeat_loss, 3.0f);
    while (run.iter() < 800) run.step();
    const HeadScores s = head_scores(run.model());
    const int64_t H = 2;
    const auto top = [&](const Tensor& t, int64_t l) {
        return std::max_element(t.data.begin() + l * H, t.data.begin() + (l + 1) * H) - t.data.begin();
    };
    const auto induction = top(s.prefix_matching, 1), previous = top(s.previous_token, 0);
    const auto all = [](const Tensor& t) {
        std::string text;
        for (float x : t.data) text += std::to_string(x) + " ";
        return text;
    };
    SCOPED_TRACE("prefix matching " + all(s.prefix_matching) + "| previous token " + all(s.previous_token) + "| copying " +
                 all(s.copying) + "| loss gain " + all(s.in_context_loss_gain) + "| losses " +
                 std::to_string(s.first_repeat_loss) + " " + std::to_string(s.second_repeat_loss));
    EXPECT_GT(s.prefix_matching.data[static_cast<size_t>(induction)], 0.5f);
    EXPECT_GT(s.previous_token.data[static_cast<size_t>(previous)], 0.4f);
    EXPECT_GT(s.first_repeat_loss, 3.2f);  // ln 32 = 3.47: the first copy stays unpredictable
    EXPECT_LT(s.second_repeat_loss, 1.5f);
    EXPECT_GT(s.copying.data[static_cast<size_t>(induction)], 0.5f);
    // Without the previous-token head most of what the repeat gained is lost (0.84 → 2.81 nats in this run, the
    // first copy's 3.50); layer 1's two heads both match prefixes (0.76 and 0.71), so one alone costs less.
    EXPECT_GT(s.in_context_loss_gain.data[static_cast<size_t>(previous)], 0.6f * (s.first_repeat_loss - s.second_repeat_loss));
    EXPECT_GT(s.in_context_loss_gain.data[static_cast<size_t>(induction)], 0.3f);
}
