// Notebook 000, "Simple self-attention mechanism without trainable weights".
#include "attn/simple_attention.hpp"
#include "attn/softmax.hpp"
#include "attn/torch_rng.hpp"
#include "golden.hpp"

#include <cmath>

using namespace attn;
using golden::near;
using golden::notebook;

TEST(SimpleAttention, ScoresForJourneyLoopForm) {
    EXPECT_TRUE(near(attention_scores_for_query(notebook("nb000.inputs"), 1),
                     notebook("nb000.attn_scores_2")));
}

TEST(SimpleAttention, SumNormalisation) {
    const Tensor w = normalize_sum(notebook("nb000.attn_scores_2"));
    EXPECT_TRUE(near(w, notebook("nb000.attn_weights_2_tmp")));
    float sum = 0;
    for (float x : w.data) sum += x;
    EXPECT_NEAR(sum, 1.0f, 2e-7f);  // the notebook prints 1.0000001192092896
}

TEST(SimpleAttention, NaiveAndStableSoftmaxAgreeOnTheNotebookScores) {
    const Tensor scores = notebook("nb000.attn_scores_2");
    EXPECT_TRUE(near(softmax_naive(scores), notebook("nb000.attn_weights_2_naive")));
    EXPECT_TRUE(near(softmax(scores), notebook("nb000.attn_weights_2")));
}

TEST(SimpleAttention, ContextVectorForJourneyLoopForm) {
    EXPECT_TRUE(near(context_vector(notebook("nb000.attn_weights_2"), notebook("nb000.inputs")),
                     notebook("nb000.context_vec_2")));
}

TEST(SimpleAttention, AllScoresWeightsAndContexts) {
    const Tensor inputs = notebook("nb000.inputs");
    EXPECT_TRUE(near(attention_scores_loop(inputs), notebook("nb000.attn_scores")));
    const SimpleAttentionTrace t = simple_self_attention(inputs);
    EXPECT_TRUE(near(t.scores, notebook("nb000.attn_scores")));
    EXPECT_TRUE(near(t.weights, notebook("nb000.attn_weights")));
    EXPECT_TRUE(near(t.context, notebook("nb000.all_context_vector")));
}

TEST(SimpleAttention, LoopFormEqualsMatrixForm) {
    manual_seed(11);
    const Tensor x = rand({9, 5});
    const Tensor loop = attention_scores_loop(x), mat = attention_scores(x);
    EXPECT_TRUE(near(loop, mat, 1e-5f));
    for (int64_t q = 0; q < 9; ++q) EXPECT_TRUE(near(attention_scores_for_query(x, q), golden::row(mat, q), 1e-5f));
    const Tensor w = softmax(mat);
    const Tensor z = context_vectors(w, x);
    for (int64_t q = 0; q < 9; ++q) EXPECT_TRUE(near(context_vector(golden::row(w, q), x), golden::row(z, q), 1e-5f));
}

TEST(Softmax, StableSurvivesHugeScoresWhereNaiveOverflows) {
    const Tensor scores({2, 3}, {1e4f, 0.0f, -1e4f, -1e4f, -1e4f + 1.0f, -1e4f});
    const Tensor stable = softmax(scores);
    for (float x : stable.data) EXPECT_TRUE(std::isfinite(x));
    EXPECT_TRUE(near(stable, {1, 0, 0, 0.2119416f, 0.5761169f, 0.2119416f}, 1e-6f));
    const Tensor naive = softmax_naive(scores);
    EXPECT_TRUE(std::isnan(naive[0]));  // exp(1e4) = inf, inf/inf = NaN
    EXPECT_TRUE(std::isnan(naive[3]));  // exp(-1e4) = 0 underflows: 0/0
}

TEST(Softmax, RowOfMinusInfinityGivesZerosNotNaN) {
    const float inf = std::numeric_limits<float>::infinity();
    const Tensor w = softmax(Tensor({2, 2}, {-inf, -inf, 0.0f, -inf}));
    EXPECT_TRUE(near(w, {0, 0, 1, 0}, 0.0f));
}

TEST(SimpleAttention, BadInputsThrowNamingTheFunction) {
    const Tensor inputs = notebook("nb000.inputs");
    try {
        attention_scores_for_query(inputs, 6);
        FAIL();
    } catch (const Error& e) {
        EXPECT_STREQ(e.what(), "attentionScoresForQuery: expected a query index in [0, 6), got 6");
    }
    try {
        attention_scores(Tensor({6}));
        FAIL();
    } catch (const Error& e) {
        EXPECT_STREQ(e.what(), "attentionScores: expected inputs of shape [T, d] with T, d > 0, got [6]");
    }
    EXPECT_THROW(attention_scores(Tensor({0, 3})), Error);
    EXPECT_THROW(context_vector(Tensor({5}), inputs), Error);
    EXPECT_THROW(context_vectors(Tensor({6, 5}), inputs), Error);
    Tensor nan = inputs;
    nan[4] = std::nanf("");
    try {
        simple_self_attention(nan);
        FAIL();
    } catch (const Error& e) {
        EXPECT_STREQ(e.what(), "attentionScores: expected finite values in inputs, got NaN at flat index 4");
    }
}
