// Notebooks 000 and 002, "Implementing self-attention with trainable weights",
// and notebook 003's embedding example.
#include "attn/embedding.hpp"
#include "attn/scaled_dot_product_attention.hpp"
#include "attn/self_attention.hpp"
#include "attn/simple_attention.hpp"
#include "attn/softmax.hpp"
#include "fixtures.hpp"
#include "golden.hpp"

using namespace attn;
using fixtures::transposed;
using golden::near;
using golden::notebook;

TEST(SelfAttentionV1, Seed123WeightsAreTheNotebooks) {
    manual_seed(123);
    const SelfAttentionV1 sa(3, 2);
    EXPECT_TRUE(near(sa.W_query, notebook("nb002.seed123.W_query")));
    EXPECT_TRUE(near(sa.W_key, notebook("nb002.seed123.W_key")));
    EXPECT_TRUE(near(sa.W_value, notebook("nb002.seed123.W_value")));
    EXPECT_TRUE(near(sa.W_query, notebook("nb000.seed123.W_query")));
    EXPECT_TRUE(near(sa.W_key, notebook("nb000.seed123.W_key")));
    EXPECT_TRUE(near(sa.W_value, notebook("nb000.seed123.W_value")));
}

TEST(SelfAttentionV1, EveryIntermediateOfNotebook002) {
    manual_seed(123);
    const SelfAttentionV1 sa(3, 2);
    const SelfAttentionTrace t = sa.forward(notebook("nb002.inputs"));
    EXPECT_TRUE(near(t.queries, notebook("nb002.seed123.queries")));
    EXPECT_TRUE(near(t.keys, notebook("nb002.seed123.keys")));
    EXPECT_TRUE(near(t.values, notebook("nb002.seed123.values")));
    EXPECT_TRUE(near(t.scores, notebook("nb002.seed123.attn_scores")));
    EXPECT_TRUE(near(t.scaled_scores, notebook("nb002.seed123.scaled_attn_scores")));
    EXPECT_TRUE(near(t.weights, notebook("nb002.seed123.attn_weights")));
    EXPECT_TRUE(near(t.context, notebook("nb002.seed123.context_matrix")));
    EXPECT_TRUE(near(t.context, notebook("nb002.seed123.self_attention_v1")));
    // The "journey" row, as both notebooks single it out.
    EXPECT_TRUE(near(golden::row(t.queries, 1), notebook("nb002.seed123.query_2")));
    EXPECT_TRUE(near(golden::row(t.keys, 1), notebook("nb002.seed123.key_2")));
    EXPECT_TRUE(near(golden::row(t.values, 1), notebook("nb002.seed123.value_2")));
    EXPECT_TRUE(near(golden::row(t.scores, 1), notebook("nb002.seed123.attn_scores_2")));
    EXPECT_TRUE(near(golden::row(t.context, 1), notebook("nb002.seed123.context_journey")));
}

TEST(SelfAttentionV1, EveryIntermediateOfNotebook000) {
    manual_seed(123);
    const SelfAttentionV1 sa(3, 2);
    const SelfAttentionTrace t = sa.forward(notebook("nb000.inputs"));
    EXPECT_TRUE(near(golden::row(t.queries, 1), notebook("nb000.seed123.query_2")));
    EXPECT_TRUE(near(transposed(t.keys), notebook("nb000.seed123.keys_T")));
    EXPECT_NEAR(t.scores.at(1, 1), notebook("nb000.seed123.attn_score_22")[0], 1e-4f);
    EXPECT_TRUE(near(golden::row(t.scores, 1), notebook("nb000.seed123.attn_scores_2")));
    EXPECT_TRUE(near(golden::row(t.weights, 1), notebook("nb000.seed123.attn_weights_2")));
    EXPECT_TRUE(near(t.values, notebook("nb000.seed123.values")));
    EXPECT_TRUE(near(golden::row(t.context, 1), notebook("nb000.seed123.context_vec_2")));
    EXPECT_TRUE(near(t.context, notebook("nb000.seed123.sa_v1")));
}

TEST(SelfAttentionV2, Seed789AndSeed78GiveTheNotebooksContexts) {
    manual_seed(789);
    EXPECT_TRUE(near(SelfAttentionV2(3, 2).forward(notebook("nb000.inputs")).context,
                     notebook("nb000.seed789.sa_v2")));
    manual_seed(78);
    EXPECT_TRUE(near(SelfAttentionV2(3, 2).forward(notebook("nb002.inputs")).context,
                     notebook("nb002.seed78.self_attention_v2")));
}

TEST(SelfAttentionV2, BiasIsDrawnAfterEachWeightAndApplied) {
    manual_seed(1);
    const SelfAttentionV2 sa(3, 2, /*qkv_bias=*/true);
    manual_seed(1);
    const Linear q(3, 2), k(3, 2), v(3, 2);
    EXPECT_TRUE(near(sa.W_key.bias, k.bias, 0.0f));
    const Tensor x = notebook("nb000.inputs");
    const SelfAttentionTrace t = sa.forward(x);
    EXPECT_TRUE(near(t.queries, q.forward(x), 1e-6f));
    EXPECT_TRUE(near(t.values, v.forward(x), 1e-6f));
}

TEST(SelfAttention, BatchedForwardEqualsEachItemAlone) {
    manual_seed(5);
    const SelfAttentionV1 sa(4, 3);
    const Tensor batch = rand({2, 5, 4});
    const SelfAttentionTrace t = sa.forward(batch);
    ASSERT_EQ(t.weights.shape, (Shape{2, 5, 5}));
    ASSERT_EQ(t.context.shape, (Shape{2, 5, 3}));
    for (int64_t b = 0; b < 2; ++b) {
        const Tensor item({5, 4}, std::vector<float>(batch.data.begin() + b * 20, batch.data.begin() + (b + 1) * 20));
        const Tensor ctx = sa.forward(item).context;
        EXPECT_TRUE(near(ctx, Tensor({5, 3}, std::vector<float>(t.context.data.begin() + b * 15,
                                                                 t.context.data.begin() + (b + 1) * 15)),
                         1e-6f));
    }
}

TEST(SelfAttention, ShapeErrorsNameFunctionExpectedAndGiven) {
    manual_seed(123);
    const SelfAttentionV1 v1(3, 2);
    try {
        v1.forward(Tensor({6, 4}));
        FAIL();
    } catch (const Error& e) {
        EXPECT_STREQ(e.what(), "SelfAttentionV1.forward: expected x of shape [..., T, 3] with T > 0, got [6, 4]");
    }
    EXPECT_THROW(v1.forward(Tensor({3})), Error);
    EXPECT_THROW(v1.forward(Tensor({0, 3})), Error);
    EXPECT_THROW(SelfAttentionV1(0, 2), Error);
    EXPECT_THROW(SelfAttentionV2(3, -1), Error);
    EXPECT_THROW(SelfAttentionV2(3, 2).forward(Tensor({2, 2})), Error);
    EXPECT_THROW(SelfAttentionU(0), Error);
}

// Notebook 003: "Can you help me to translate this sentence" as word ids,
// embedded with Embedding(10, 16) after manual_seed(123), attended with
// U_query/U_key/U_value = rand(16, 16) after manual_seed(123) again. The
// notebook omits these outputs, so the test checks each step against its
// definition and the generator against docs/torch-rng.md.
TEST(SelfAttentionU, Notebook003EmbeddingExample) {
    const std::vector<int64_t> sentence = {0, 7, 1, 2, 5, 6, 4, 3};
    manual_seed(123);
    const Embedding embed(10, 16);
    const Tensor x = embed.forward(sentence, {8});
    ASSERT_EQ(x.shape, (Shape{8, 16}));
    for (int64_t c = 0; c < 16; ++c) EXPECT_EQ(x.at(1, c), embed.weight.at(7, c));  // "you" is id 7

    // omega_mat == omega (notebook 003 §1)
    EXPECT_TRUE(near(attention_scores_loop(x), attention_scores(x), 1e-4f));

    manual_seed(123);
    const SelfAttentionU sa(16);
    // Same seed as docs/torch-rng.md's rand(3, 2) check: U_query starts with it.
    EXPECT_TRUE(near(Tensor({6}, std::vector<float>(sa.U_query.data.begin(), sa.U_query.data.begin() + 6)),
                     golden::rng("rand_3x2_seed123").at("data").get<std::vector<float>>()));
    const SelfAttentionTrace t = sa.forward(x);
    // q_i = Û_q x_i, written out as the notebook's column-vector sum.
    for (int64_t i = 0; i < 8; ++i)
        for (int64_t r = 0; r < 16; ++r) {
            float q = 0;
            for (int64_t c = 0; c < 16; ++c) q += sa.U_query.at(r, c) * x.at(i, c);
            EXPECT_NEAR(t.queries.at(i, r), q, 1e-4f);
        }
    ASSERT_EQ(t.scores.shape, (Shape{8, 8}));
    // attention_weights_2 = softmax(omega_2 / d**0.5); context_vector_2 = α₂ V.
    Tensor omega_2 = golden::row(t.scores, 1);
    for (auto& w : omega_2.data) w /= 4.0f;
    EXPECT_TRUE(near(golden::row(t.weights, 1), attn::softmax(omega_2), 1e-6f));
    EXPECT_TRUE(near(golden::row(t.context, 1), context_vector(golden::row(t.weights, 1), t.values), 1e-3f));
}
