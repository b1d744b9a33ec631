// Choosing the next token: temperature, top-k and torch.multinomial's exponential race.
#include "attn/sampling.hpp"
#include "attn/softmax.hpp"
#include "golden.hpp"

#include <cmath>
#include <limits>

using namespace attn;
using golden::near;

TEST(Sampling, MultinomialIsTheExponentialRaceOfTorch) {
    // Seed 42, rand(5), then exponential_(1) gives 1.6459 0.4294 0.0677 1.3809
    // 0.7803 (docs/torch-rng.md): with equal probabilities the smallest q wins.
    manual_seed(42);
    rand({5});
    EXPECT_EQ(multinomial(Tensor({1, 5}, std::vector<float>(5, 0.2f))), (std::vector<int64_t>{2}));
    manual_seed(42);
    rand({5});
    // p / q = [.5/1.6459, .1/.4294, .1/.0677, .2/1.3809, .1/.7803] -> index 2
    EXPECT_EQ(multinomial(Tensor({1, 5}, {0.5f, 0.1f, 0.1f, 0.2f, 0.1f})), (std::vector<int64_t>{2}));
    manual_seed(42);
    rand({5});
    // Zero probability never wins: index 2 excluded -> .5/1.6459 = .304 is the max
    EXPECT_EQ(multinomial(Tensor({1, 5}, {0.5f, 0.1f, 0.0f, 0.3f, 0.1f})), (std::vector<int64_t>{0}));
    EXPECT_THROW(multinomial(Tensor({1, 2}, {0.0f, 0.0f})), Error);
    EXPECT_THROW(multinomial(Tensor({1, 2}, {-1.0f, 2.0f})), Error);
}

TEST(Sampling, GreedyTopKAndTemperature) {
    const Tensor logits({2, 4}, {0.1f, 2.0f, 1.9f, -1.0f, 3.0f, 0.0f, 3.0f, 1.0f});
    SamplingOptions greedy;
    greedy.temperature = 0.0f;
    EXPECT_EQ(sample_next(logits, greedy), (std::vector<int64_t>{1, 0}));  // first max on ties
    SamplingOptions top1;
    top1.top_k = 1;
    for (int i = 0; i < 20; ++i) EXPECT_EQ(sample_next(logits, top1)[0], 1);
    SamplingOptions top2;
    top2.top_k = 2;
    for (int i = 0; i < 50; ++i) {
        const int64_t t = sample_next(logits, top2)[0];
        EXPECT_TRUE(t == 1 || t == 2);
    }
    SamplingOptions bad;
    bad.temperature = -1.0f;
    EXPECT_THROW(sample_next(logits, bad), Error);
}

TEST(Sampling, TemperatureAndTopKAreNanoGPTsSoftmaxOfScaledAndCutLogits) {
    // nanoGPT's generate: logits / temperature, logits below the k-th largest
    // set to -inf, softmax, multinomial. The same generator state must give the
    // same draw as doing those steps by hand.
    const Tensor logits({2, 5}, {0.5f, 2.0f, -1.0f, 1.5f, 0.0f, 3.0f, -2.0f, 0.1f, 2.9f, 1.0f});
    SamplingOptions o;
    o.temperature = 0.7f;
    o.top_k = 3;
    Tensor cut = logits;
    for (float& x : cut.data) x /= 0.7f;
    const float inf = std::numeric_limits<float>::infinity();
    for (size_t j : {2, 4}) cut.data[j] = -inf;  // row 0 keeps 2.0, 1.5, 0.5
    for (size_t j : {6, 7}) cut.data[j] = -inf;  // row 1 keeps 3.0, 2.9, 1.0
    for (uint64_t seed = 0; seed < 50; ++seed) {
        Generator a(seed), b(seed);
        const std::vector<int64_t> drawn = sample_next(logits, o, a);
        EXPECT_EQ(drawn, multinomial(softmax(cut), b)) << "seed " << seed;
        EXPECT_TRUE(drawn[0] == 0 || drawn[0] == 1 || drawn[0] == 3);
        EXPECT_TRUE(drawn[1] == 0 || drawn[1] == 3 || drawn[1] == 4);
    }
    // top_k at or above the vocabulary keeps everything.
    SamplingOptions all;
    all.top_k = 5;
    Generator a(3), b(3);
    EXPECT_EQ(sample_next(logits, all, a), multinomial(softmax(logits), b));
    // Bad shapes and options name the function.
    SamplingOptions negative;
    negative.top_k = -1;
    EXPECT_THROW(sample_next(logits, negative), Error);
    EXPECT_THROW(sample_next(Tensor({5}), SamplingOptions{}), Error);
}

TEST(Sampling, TheDistributionIsTheOneSampleNextDrawsFrom) {
    const Tensor logits({2, 5}, {0.5f, 2.0f, -1.0f, 1.5f, 0.0f, 3.0f, -2.0f, 0.1f, 2.9f, 1.0f});
    SamplingOptions o;
    o.temperature = 0.7f;
    o.top_k = 3;
    const Tensor p = sampling_distribution(logits, o);
    EXPECT_EQ(p.shape, logits.shape);
    // Cut keys get exactly 0; the rest are the softmax of the kept logits / 0.7.
    for (size_t j : {2, 4, 6, 7}) EXPECT_EQ(p.data[j], 0.0f);
    const double z = std::exp(2.0 / 0.7) + std::exp(1.5 / 0.7) + std::exp(0.5 / 0.7);
    EXPECT_NEAR(p.data[1], std::exp(2.0 / 0.7) / z, 1e-6);
    for (uint64_t seed = 0; seed < 20; ++seed) {
        Generator a(seed), b(seed);
        EXPECT_EQ(sample_next(logits, o, a), multinomial(p, b)) << "seed " << seed;
    }
    // Greedy: all the mass on the first largest logit (3.0 ties at indices 1 and 2: the first wins).
    SamplingOptions greedy;
    greedy.temperature = 0.0f;
    const Tensor g = sampling_distribution(Tensor({1, 4}, {1.0f, 3.0f, 3.0f, 0.0f}), greedy);
    EXPECT_EQ(g.data, (std::vector<float>{0.0f, 1.0f, 0.0f, 0.0f}));
    SamplingOptions bad;
    bad.temperature = std::numeric_limits<float>::infinity();
    EXPECT_THROW(sampling_distribution(logits, bad), Error);
}

// transformers' TopPLogitsWarper, by hand: sort ascending, softmax, cumulative sum; a token goes while the sum up to
// it is <= 1 - top_p, and the likeliest stays. Here after temperature and top-k, the order of transformers' warpers.
TEST(Sampling, TopPCutsTheUnlikeliestTokensWhoseMassIsWithinOneMinusTopP) {
    // softmax([0, 1, 2, 3]) = 0.0321, 0.0871, 0.2369, 0.6439: cumulative 0.0321, 0.1192, 0.3561, 1.
    const Tensor logits({1, 4}, {2.0f, 0.0f, 3.0f, 1.0f});
    const auto kept = [&](double top_p, int64_t top_k = 0, float temperature = 1.0f) {
        SamplingOptions o;
        o.top_p = top_p;
        o.top_k = top_k;
        o.temperature = temperature;
        const Tensor p = sampling_distribution(logits, o);
        std::vector<int64_t> out;
        for (int64_t j = 0; j < 4; ++j)
            if (p.data[static_cast<size_t>(j)] > 0.0f) out.push_back(j);
        return out;
    };
    EXPECT_EQ(kept(1.0), (std::vector<int64_t>{0, 1, 2, 3}));
    EXPECT_EQ(kept(0.97), (std::vector<int64_t>{0, 1, 2, 3}));  // 0.0321 > 0.03: nothing goes
    EXPECT_EQ(kept(0.9), (std::vector<int64_t>{0, 2, 3}));       // 0.0321 <= 0.1 goes, 0.1192 stays
    EXPECT_EQ(kept(0.7), (std::vector<int64_t>{0, 2}));          // 0.1192 <= 0.3 goes, 0.3561 stays
    EXPECT_EQ(kept(0.5), (std::vector<int64_t>{2}));             // 0.3561 <= 0.5: the likeliest alone
    EXPECT_EQ(kept(1e-9), (std::vector<int64_t>{2}));            // at least one token always stays
    // With top_k 3 first: softmax([1, 2, 3]) = 0.0900, 0.2447, 0.6652; top_p 0.9 cuts 0.0900 (<= 0.1).
    EXPECT_EQ(kept(0.9, 3), (std::vector<int64_t>{0, 2}));
    // Temperature first: at 4, sorted 0.1653, 0.2123, 0.2725, 0.3499 (cumulative 0.1653, 0.3776, ...): one goes.
    EXPECT_EQ(kept(0.7, 0, 4.0f), (std::vector<int64_t>{0, 2, 3}));
    // The kept tokens' probabilities are the softmax of their logits alone, and sample_next draws from them.
    SamplingOptions o;
    o.top_p = 0.7;
    const Tensor p = sampling_distribution(logits, o);
    EXPECT_NEAR(p.data[0], std::exp(2.0) / (std::exp(2.0) + std::exp(3.0)), 1e-6);
    for (uint64_t seed = 0; seed < 20; ++seed) {
        Generator a(seed), b(seed);
        EXPECT_EQ(sample_next(logits, o, a), multinomial(p, b)) << "seed " << seed;
    }
}

// Equal logits keep their order through the sort (as torch.sort keeps them in rows of up to 16): of four equal
// tokens, top_p 0.5 cuts the two of lower index, whose cumulative probabilities 0.25 and 0.5 are exactly <= 0.5.
TEST(Sampling, TopPOnTiesCutsTheLowerIndicesFirstAndLimitsAreRefused) {
    SamplingOptions o;
    o.top_p = 0.5;
    EXPECT_EQ(sampling_distribution(Tensor({1, 4}, std::vector<float>(4, 1.0f)), o).data, (std::vector<float>{0, 0, 0.5f, 0.5f}));
    o.top_p = 0.75;  // 0.25 <= 0.25 goes; 0.5 stays
    const Tensor three = sampling_distribution(Tensor({1, 4}, std::vector<float>(4, 1.0f)), o);
    EXPECT_EQ(three.data[0], 0.0f);
    for (size_t j = 1; j < 4; ++j) EXPECT_NEAR(three.data[j], 1.0 / 3, 1e-7);
    for (double bad : {0.0, -0.1, 1.5, std::numeric_limits<double>::quiet_NaN()}) {
        o.top_p = bad;
        EXPECT_THROW(sampling_distribution(Tensor({1, 2}, {0.0f, 1.0f}), o), Error) << bad;
    }
    // Greedy ignores top_p: the first largest logit.
    SamplingOptions greedy;
    greedy.temperature = 0.0f;
    greedy.top_p = 0.1;
    EXPECT_EQ(sample_next(Tensor({1, 3}, {1.0f, 3.0f, 2.0f}), greedy), (std::vector<int64_t>{1}));
}
