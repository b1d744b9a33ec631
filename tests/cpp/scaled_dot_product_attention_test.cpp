// Scaled dot-product attention with masks (notebooks 001 and 004).
#include "attn/mask.hpp"
#include "attn/online_softmax.hpp"
#include "attn/softmax.hpp"
#include "attn/scaled_dot_product_attention.hpp"
#include "attn/score_explanation.hpp"
#include "attn/self_attention.hpp"
#include "golden.hpp"

#include <cmath>
#include <limits>
#include <vector>
#include <string>

using namespace attn;
using golden::near;
using golden::notebook;

namespace {
constexpr float kInf = std::numeric_limits<float>::infinity();

void expect_rows_sum_to_one(const Tensor& w) {
    const int64_t n = w.size(-1);
    for (int64_t r = 0; r < w.numel() / n; ++r) {
        float s = 0;
        for (int64_t j = 0; j < n; ++j) s += w[r * n + j];
        EXPECT_NEAR(s, 1.0f, 1e-6f) << "row " << r;
    }
}

void expect_no_nan(const Tensor& t) {
    for (float x : t.data) ASSERT_FALSE(std::isnan(x));
}

struct Qkv {
    Tensor q, k, v;
};

Qkv random_qkv(const Shape& lead, int64_t T, int64_t d, uint64_t seed) {
    manual_seed(seed);
    Shape s = lead;
    s.push_back(T);
    s.push_back(d);
    Qkv r{randn(s), randn(s), randn(s)};
    return r;
}
}  // namespace

TEST(ScaledDotProductAttention, UnmaskedIsTheNotebookComputation) {
    manual_seed(123);
    const SelfAttentionV1 sa(3, 2);
    const SelfAttentionTrace t = sa.forward(notebook("nb002.inputs"));
    const AttentionTrace a = scaled_dot_product_attention(t.queries, t.keys, t.values);
    EXPECT_TRUE(near(a.scaled_scores, notebook("nb002.seed123.scaled_attn_scores")));
    EXPECT_TRUE(near(a.weights, notebook("nb002.seed123.attn_weights")));
    EXPECT_TRUE(near(a.output, notebook("nb002.seed123.context_matrix")));
    for (float m : a.mask.data) EXPECT_EQ(m, 1.0f);
}

TEST(ScaledDotProductAttention, CausalMaskZeroesTheFutureExactly) {
    const Qkv x = random_qkv({2}, 5, 4, 1);
    AttentionOptions o;
    o.causal = true;
    const AttentionTrace a = scaled_dot_product_attention(x.q, x.k, x.v, o);
    for (int64_t b = 0; b < 2; ++b)
        for (int64_t i = 0; i < 5; ++i)
            for (int64_t j = 0; j < 5; ++j) {
                const float w = a.weights[(b * 5 + i) * 5 + j];
                if (j > i) {
                    EXPECT_EQ(w, 0.0f);
                } else {
                    EXPECT_GT(w, 0.0f);
                }
            }
    expect_rows_sum_to_one(a.weights);
    // The first query sees only itself: its output is the first value.
    for (int64_t c = 0; c < 4; ++c) EXPECT_NEAR(a.output[c], x.v[c], 1e-6f);
}

TEST(ScaledDotProductAttention, CausalFlagEqualsTrilMask) {
    const Qkv x = random_qkv({}, 6, 3, 2);
    AttentionOptions flag, tril;
    flag.causal = true;
    tril.mask = causal_mask(6);
    EXPECT_TRUE(near(scaled_dot_product_attention(x.q, x.k, x.v, flag).output,
                     scaled_dot_product_attention(x.q, x.k, x.v, tril).output, 0.0f));
    EXPECT_TRUE(near(causal_mask(3), {1, 0, 0, 1, 1, 0, 1, 1, 1}, 0.0f));
}

TEST(ScaledDotProductAttention, MinusInfAndMinus1e9GiveTheSameWeightsWhenARowKeepsAKey) {
    const Qkv x = random_qkv({}, 4, 8, 3);
    AttentionOptions inf, big;
    inf.causal = big.causal = true;
    big.fill_value = -1e9f;  // notebook 001's masked_fill(mask == 0, -1e9)
    const AttentionTrace a = scaled_dot_product_attention(x.q, x.k, x.v, inf);
    const AttentionTrace b = scaled_dot_product_attention(x.q, x.k, x.v, big);
    EXPECT_TRUE(near(a.weights, b.weights, 0.0f));
    EXPECT_EQ(a.masked_scores.at(0, 1), -kInf);
    EXPECT_EQ(b.masked_scores.at(0, 1), -1e9f);
}

TEST(ScaledDotProductAttention, KeyPaddingMasksKeysPastEachLength) {
    const Qkv x = random_qkv({3}, 4, 2, 4);
    AttentionOptions o;
    o.key_lengths = {4, 2, 1};
    const AttentionTrace a = scaled_dot_product_attention(x.q, x.k, x.v, o);
    for (int64_t b = 0; b < 3; ++b)
        for (int64_t i = 0; i < 4; ++i)
            for (int64_t j = 0; j < 4; ++j)
                if (j >= o.key_lengths[static_cast<size_t>(b)]) EXPECT_EQ(a.weights[(b * 4 + i) * 4 + j], 0.0f);
    expect_rows_sum_to_one(a.weights);
    // Same as an explicit (B, 1, T_k) padding mask.
    AttentionOptions m;
    m.mask = padding_mask({4, 2, 1}, 4);
    EXPECT_TRUE(near(scaled_dot_product_attention(x.q, x.k, x.v, m).weights, a.weights, 0.0f));
}

TEST(ScaledDotProductAttention, ClickedCellsRenormaliseTheirRow) {
    const Qkv x = random_qkv({}, 3, 2, 5);
    const AttentionTrace plain = scaled_dot_product_attention(x.q, x.k, x.v);
    AttentionOptions o;
    o.mask = Tensor({3, 3}, std::vector<float>(9, 1.0f));
    o.mask.at(1, 2) = 0.0f;
    const AttentionTrace a = scaled_dot_product_attention(x.q, x.k, x.v, o);
    EXPECT_EQ(a.weights.at(1, 2), 0.0f);
    const float kept = plain.weights.at(1, 0) + plain.weights.at(1, 1);
    EXPECT_NEAR(a.weights.at(1, 0), plain.weights.at(1, 0) / kept, 1e-6f);
    EXPECT_NEAR(a.weights.at(1, 1), plain.weights.at(1, 1) / kept, 1e-6f);
    EXPECT_TRUE(near(golden::row(a.weights, 0), golden::row(plain.weights, 0), 0.0f));
}

TEST(ScaledDotProductAttention, FullyMaskedRowIsZeroWithMinusInfAndUniformWithFiniteFill) {
    const Qkv x = random_qkv({2}, 3, 2, 6);
    AttentionOptions o;
    o.key_lengths = {3, 0};  // batch row 1 has no keys at all
    const AttentionTrace a = scaled_dot_product_attention(x.q, x.k, x.v, o);
    expect_no_nan(a.weights);
    expect_no_nan(a.output);
    for (int64_t i = 9; i < 18; ++i) EXPECT_EQ(a.weights[i], 0.0f);
    for (int64_t i = 6; i < 12; ++i) EXPECT_EQ(a.output[i], 0.0f);
    o.fill_value = -1e9f;
    const AttentionTrace f = scaled_dot_product_attention(x.q, x.k, x.v, o);
    expect_no_nan(f.output);
    for (int64_t i = 9; i < 18; ++i) EXPECT_NEAR(f.weights[i], 1.0f / 3.0f, 1e-6f);
}

TEST(ScaledDotProductAttention, MaskBroadcastsOverBatchAndHeads) {
    const Qkv x = random_qkv({2, 3}, 4, 2, 7);  // (B, H, T, d)
    AttentionOptions per_batch;
    per_batch.mask = Tensor({2, 1, 4, 4});
    for (int64_t i = 0; i < 4; ++i)
        for (int64_t j = 0; j < 4; ++j) {
            per_batch.mask[i * 4 + j] = j <= i ? 1.0f : 0.0f;  // batch 0: causal
            per_batch.mask[16 + i * 4 + j] = 1.0f;              // batch 1: none
        }
    const AttentionTrace a = scaled_dot_product_attention(x.q, x.k, x.v, per_batch);
    ASSERT_EQ(a.weights.shape, (Shape{2, 3, 4, 4}));
    for (int64_t h = 0; h < 3; ++h) {
        EXPECT_EQ(a.weights[(0 * 3 + h) * 16 + 0 * 4 + 1], 0.0f);
        EXPECT_GT(a.weights[(1 * 3 + h) * 16 + 0 * 4 + 1], 0.0f);
    }
    AttentionOptions per_head;  // (H, T, T) right-aligns with (B, H, T, T)
    per_head.mask = Tensor({3, 4, 4});
    EXPECT_NO_THROW(scaled_dot_product_attention(x.q, x.k, x.v, per_head));
    AttentionOptions bad;  // 2 does not broadcast against H = 3
    bad.mask = Tensor({2, 4, 4});
    EXPECT_THROW(scaled_dot_product_attention(x.q, x.k, x.v, bad), Error);
}

TEST(ScaledDotProductAttention, CausalWithFewerQueriesAlignsToTheLastKeys) {
    manual_seed(8);
    const Tensor q = randn({2, 4}), k = randn({5, 4}), v = randn({5, 4});
    AttentionOptions o;
    o.causal = true;
    const AttentionTrace a = scaled_dot_product_attention(q, k, v, o);
    // Query 0 is token 3 of 5: keys 0..3; query 1 is token 4: all keys.
    EXPECT_EQ(a.weights.at(0, 4), 0.0f);
    EXPECT_GT(a.weights.at(0, 3), 0.0f);
    EXPECT_GT(a.weights.at(1, 4), 0.0f);
}

TEST(ScaledDotProductAttention, ExplicitScaleReplacesOneOverSqrtDk) {
    const Qkv x = random_qkv({}, 3, 4, 9);
    AttentionOptions o;
    o.scale = 0.5f;  // equals 1/√4
    EXPECT_TRUE(near(scaled_dot_product_attention(x.q, x.k, x.v, o).weights,
                     scaled_dot_product_attention(x.q, x.k, x.v).weights, 1e-7f));
    o.scale = 3.0f;
    const AttentionTrace a = scaled_dot_product_attention(x.q, x.k, x.v, o);
    EXPECT_NEAR(a.scaled_scores[1], a.scores[1] * 3.0f, 1e-6f);
}

TEST(ScaledDotProductAttention, BadArgumentsThrowWithShapes) {
    const Tensor q({2, 3, 4}), k({2, 5, 4}), v({2, 5, 6});
    EXPECT_NO_THROW(scaled_dot_product_attention(q, k, v));
    try {
        scaled_dot_product_attention(q, Tensor({2, 5, 3}), v);
        FAIL();
    } catch (const Error& e) {
        EXPECT_STREQ(e.what(), "scaledDotProductAttention: expected key of shape [2, T_k, 4], got [2, 5, 3]");
    }
    try {
        scaled_dot_product_attention(q, k, Tensor({2, 4, 6}));
        FAIL();
    } catch (const Error& e) {
        EXPECT_STREQ(e.what(), "scaledDotProductAttention: expected value of shape [2, 5, d_v], got [2, 4, 6]");
    }
    EXPECT_THROW(scaled_dot_product_attention(Tensor({4}), k, v), Error);
    EXPECT_THROW(scaled_dot_product_attention(q, Tensor({3, 5, 4}), v), Error);
    AttentionOptions lengths;
    lengths.key_lengths = {5};
    EXPECT_THROW(scaled_dot_product_attention(q, k, v, lengths), Error);
    lengths.key_lengths = {5, 6};
    EXPECT_THROW(scaled_dot_product_attention(q, k, v, lengths), Error);
    AttentionOptions nan_fill;
    nan_fill.fill_value = std::nanf("");
    EXPECT_THROW(scaled_dot_product_attention(q, k, v, nan_fill), Error);
    Tensor inf_q = q;
    inf_q[3] = kInf;
    EXPECT_THROW(scaled_dot_product_attention(inf_q, k, v), Error);
    EXPECT_THROW(causal_mask(0), Error);
    EXPECT_THROW(padding_mask({3}, 2), Error);
}

// attention(), the streaming path without intermediates, natively (the JS tests
// run it in WASM): across block boundaries (64 queries × 256 keys), with causal
// alignment, key lengths, a broadcast mask and both fill values.
TEST(Attention, StreamingOutputEqualsTheTracedOutput) {
    manual_seed(9);
    const Tensor q = randn({2, 130, 16}), k = randn({2, 300, 16}), v = randn({2, 300, 8});
    Tensor mask({300});
    for (int64_t j = 0; j < 300; ++j) mask[j] = j % 7 == 3 ? 0.0f : 1.0f;
    for (float fill : {-kInf, -1e9f}) {
        for (int variant = 0; variant < 4; ++variant) {
            AttentionOptions o;
            o.fill_value = fill;
            o.causal = variant == 1;
            if (variant == 2) o.key_lengths = {0, 257};
            if (variant == 3) o.mask = mask;
            EXPECT_TRUE(near(attention(q, k, v, o), scaled_dot_product_attention(q, k, v, o).output, 1e-5f))
                << "variant " << variant << ", fill " << fill;
        }
    }
}

TEST(Attention, ATraceThatCannotFitIsRefusedNamingItsMemory) {
    const Tensor q({1, 8192, 1}), k({1, 8192, 1}), v({1, 8192, 1});
    try {
        scaled_dot_product_attention(q, k, v);
        FAIL() << "no error";
    } catch (const Error& e) {
        EXPECT_STREQ(e.what(), "scaledDotProductAttention: its five [1, 8192, 8192] intermediates would need 1.2 GiB, "
                               "more than the 1.0 GiB a trace may take; attention() computes the output alone in "
                               "little memory");
    }
    EXPECT_EQ(attention(q, k, v).shape, (Shape{1, 8192, 1}));
}

// The neuron view of one weight of notebook 002's map (seed 123): the products
// sum to the map's score, the division by √d_k gives its scaled score, and the
// mixed value rows sum to the context vector, each against the traced tensors.
TEST(ExplainScore, TakesApartNotebook002sScoreForJourneyAndStarts) {
    manual_seed(123);
    const SelfAttentionV1 sa(3, 2);
    const SelfAttentionTrace t = sa.forward(notebook("nb002.inputs"));
    const ScoreExplanation e = explain_score(t.queries, t.keys, t.values, t.weights, 1, 2);
    EXPECT_EQ(e.products.shape, (Shape{2}));
    EXPECT_FLOAT_EQ(e.products[0], t.queries[2] * t.keys[4]);
    EXPECT_FLOAT_EQ(e.products[1], t.queries[3] * t.keys[5]);
    EXPECT_NEAR(e.score, notebook("nb002.seed123.attn_scores")[1 * 6 + 2], 1e-6f);
    EXPECT_FLOAT_EQ(e.divisor, std::sqrt(2.0f));
    EXPECT_NEAR(e.scaled_score, notebook("nb002.seed123.scaled_attn_scores")[1 * 6 + 2], 1e-6f);
    EXPECT_TRUE(near(e.weights, Tensor({6}, std::vector<float>(t.weights.data.begin() + 6, t.weights.data.begin() + 12)), 0.0f));
    EXPECT_TRUE(near(e.output, Tensor({2}, {notebook("nb002.seed123.context_matrix")[2], notebook("nb002.seed123.context_matrix")[3]})));
    EXPECT_FLOAT_EQ(e.mixed[2 * 2 + 1], e.weights[2] * t.values[2 * 2 + 1]);
}

TEST(ExplainScore, RefusesWhatDoesNotFit) {
    const Tensor q({3, 2}), k({4, 2}), v({4, 5}), w({3, 4});
    const auto message = [](auto&& call) {
        try {
            call();
        } catch (const Error& e) {
            return std::string(e.what());
        }
        return std::string("no error");
    };
    EXPECT_EQ(message([&] { explain_score(q, k, v, w, 3, 0); }),
              "explainScore: expected a query in [0, 3) and a key in [0, 4), got (3, 0)");
    EXPECT_EQ(message([&] { explain_score(q, Tensor({4, 3}), v, w, 0, 0); }),
              "explainScore: expected keys of shape (T_k, 2) like the queries, got [4, 3]");
    EXPECT_EQ(message([&] { explain_score(q, k, v, Tensor({4, 3}), 0, 0); }),
              "explainScore: expected weights of shape [3, 4] (T_q, T_k), got [4, 3]");
    Tensor nan({3, 2});
    nan[1] = NAN;
    EXPECT_EQ(message([&] { explain_score(nan, k, v, w, 0, 0); }),
              "explainScore: expected finite values in queries, got NaN at flat index 1");
}

// FlashAttention's online softmax: a running maximum and a rescaled running sum give softmax() in one pass.
TEST(OnlineSoftmax, EqualsTheSoftmaxForEveryBlockSize) {
    const float inf = std::numeric_limits<float>::infinity();
    const Tensor scores({7}, {0.5f, -1.0f, 3.0f, -inf, 2.5f, 7.25f, 0.0f});
    const Tensor expected = softmax(scores);
    for (int64_t block : {1, 2, 3, 7, 10}) {
        const OnlineSoftmaxTrace t = online_softmax(scores, block);
        EXPECT_EQ(t.maxima.numel(), (7 + block - 1) / block);
        for (int64_t j = 0; j < 7; ++j) EXPECT_NEAR(t.weights.data[j], expected.data[j], 1e-6f) << block << ", " << j;
        EXPECT_EQ(t.maxima.data.back(), 7.25f);
    }
    const OnlineSoftmaxTrace one = online_softmax(scores, 1);
    EXPECT_EQ(one.maxima.data[1], 0.5f);  // −1 does not raise it
    EXPECT_NEAR(one.sums.data[1], 1.0f + std::exp(-1.5f), 1e-6f);
    EXPECT_NEAR(one.sums.data[2], (1.0f + std::exp(-1.5f)) * std::exp(0.5f - 3.0f) + 1.0f, 1e-6f);  // rescaled
    EXPECT_EQ(online_softmax(Tensor({2}, {-inf, -inf})).weights.data, (std::vector<float>{0, 0}));
    EXPECT_THROW(online_softmax(Tensor({2}, {1, std::nanf("")})), Error);
    EXPECT_THROW(online_softmax(scores, 0), Error);
    EXPECT_THROW(online_softmax(Tensor({2, 2})), Error);
}
