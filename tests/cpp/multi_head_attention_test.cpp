// Multi-head attention (notebook 001 §7, and nn.MultiheadAttention).
#include "attn/mask.hpp"
#include "attn/multi_head_attention.hpp"
#include "attn/scaled_dot_product_attention.hpp"
#include "fixtures.hpp"
#include "golden.hpp"

#include <cmath>

using namespace attn;
using fixtures::transposed;
using golden::near;

namespace {
// Rows [h·d_k, (h+1)·d_k) of a (C, C) projection weight: head h's projection.
Tensor head_rows(const Tensor& w, int64_t h, int64_t d_k) {
    const int64_t C = w.shape[1];
    return Tensor({d_k, C}, std::vector<float>(w.data.begin() + h * d_k * C, w.data.begin() + (h + 1) * d_k * C));
}
Tensor slice(const Tensor& t, int64_t index, Shape shape) {
    const int64_t n = numel(shape);
    return Tensor(std::move(shape), std::vector<float>(t.data.begin() + index * n, t.data.begin() + (index + 1) * n));
}

// The definition: each head is one scaled dot-product attention on its own
// slice of the projections; concatenate the heads and apply W_o.
Tensor reference_mha(const MultiHeadAttention& mha, const Tensor& x, const AttentionOptions& o,
                     std::vector<Tensor>* head_weights) {
    const int64_t B = x.shape[0], T = x.shape[1], C = mha.d_model(), H = mha.num_heads(), d_k = mha.d_k();
    Tensor concat({B, T, C});
    for (int64_t h = 0; h < H; ++h) {
        const Tensor q = matmul(x, transposed(head_rows(mha.W_q.weight, h, d_k)));
        const Tensor k = matmul(x, transposed(head_rows(mha.W_k.weight, h, d_k)));
        const Tensor v = matmul(x, transposed(head_rows(mha.W_v.weight, h, d_k)));
        const AttentionTrace a = scaled_dot_product_attention(q, k, v, o);
        head_weights->push_back(a.weights);
        for (int64_t r = 0; r < B * T; ++r)
            for (int64_t j = 0; j < d_k; ++j) concat[r * C + h * d_k + j] = a.output[r * d_k + j];
    }
    return mha.W_o.forward(concat);
}
}  // namespace

TEST(MultiHeadAttention, EqualsConcatenatedSingleHeadsThroughWo) {
    manual_seed(0);
    const MultiHeadAttention mha(12, 3);
    const Tensor x = randn({2, 5, 12});
    for (int variant = 0; variant < 4; ++variant) {
        AttentionOptions o;
        if (variant == 1) o.causal = true;
        if (variant == 2) o.key_lengths = {5, 2};
        if (variant == 3) {
            o.mask = causal_mask(5);
            o.fill_value = -1e9f;  // notebook 001's masked_fill
        }
        std::vector<Tensor> per_head;
        const Tensor expected = reference_mha(mha, x, o, &per_head);
        const MultiHeadAttentionTrace t = mha.forward(x, o);
        EXPECT_TRUE(near(t.output, expected, 1e-5f)) << "variant " << variant;
        // The fused kernel's weights equal scaled_dot_product_attention's, head by head.
        for (int64_t b = 0; b < 2; ++b)
            for (int64_t h = 0; h < 3; ++h)
                EXPECT_TRUE(near(slice(t.weights, b * 3 + h, {5, 5}), slice(per_head[static_cast<size_t>(h)], b, {5, 5}),
                                 1e-6f))
                    << "variant " << variant << " b " << b << " h " << h;
    }
}

TEST(MultiHeadAttention, Notebook001ShapesAndPerHeadCausalWeights) {
    // batch_size = 2, sequence_length = 5, d_model = 64, num_heads = 8, causal mask
    manual_seed(0);
    const MultiHeadAttention mha(64, 8);
    AttentionOptions causal;
    causal.mask = causal_mask(5);
    causal.fill_value = -1e9f;
    const MultiHeadAttentionTrace t = mha.forward(randn({2, 5, 64}), causal);
    EXPECT_EQ(t.output.shape, (Shape{2, 5, 64}));
    EXPECT_EQ(t.weights.shape, (Shape{2, 8, 5, 5}));
    EXPECT_EQ(t.queries.shape, (Shape{2, 8, 5, 8}));
    for (int64_t bh = 0; bh < 16; ++bh)
        for (int64_t i = 0; i < 5; ++i) {
            float sum = 0;
            for (int64_t j = 0; j < 5; ++j) {
                const float w = t.weights[(bh * 5 + i) * 5 + j];
                if (j > i) EXPECT_EQ(w, 0.0f);
                sum += w;
            }
            EXPECT_NEAR(sum, 1.0f, 1e-6f);
        }
}

TEST(MultiHeadAttention, DrawsWqWkWvWoInOrderWithoutBias) {
    manual_seed(9);
    const MultiHeadAttention mha(8, 2);
    manual_seed(9);
    const Linear q(8, 8, false), k(8, 8, false), v(8, 8, false), o(8, 8, false);
    EXPECT_TRUE(near(mha.W_q.weight, q.weight, 0.0f));
    EXPECT_TRUE(near(mha.W_o.weight, o.weight, 0.0f));
    EXPECT_FALSE(mha.W_v.has_bias());
}

TEST(MultiHeadAttention, UnbatchedInputIsOneSequence) {
    manual_seed(3);
    const MultiHeadAttention mha(6, 2);
    const Tensor x = randn({4, 6});
    Tensor batched = x;
    batched.shape = {1, 4, 6};
    const MultiHeadAttentionTrace t = mha.forward(x);
    EXPECT_EQ(t.output.shape, (Shape{4, 6}));
    EXPECT_TRUE(near(Tensor({1, 4, 6}, t.output.data), mha.forward(batched).output, 0.0f));
}

TEST(MultiHeadAttention, MisuseThrowsClearErrors) {
    try {
        MultiHeadAttention(10, 3);
        FAIL();
    } catch (const Error& e) {
        EXPECT_STREQ(e.what(), "MultiHeadAttention: d_model must be divisible by num_heads, got d_model=10 and num_heads=3");
    }
    EXPECT_THROW(MultiHeadAttention(8, 0), Error);
    EXPECT_THROW(MultiHeadAttention(0, 1), Error);
    const MultiHeadAttention mha(8, 2);
    EXPECT_THROW(mha.forward(Tensor({2, 3, 7})), Error);
    AttentionOptions bad;
    bad.key_lengths = {1, 2, 3};
    EXPECT_THROW(mha.forward(Tensor({2, 3, 8}), bad), Error);
    bad.key_lengths = {1, 4};
    EXPECT_THROW(mha.forward(Tensor({2, 3, 8}), bad), Error);
}

TEST(TorchMultiheadAttention, InitialisesInPyTorchsOrder) {
    const int64_t E = 8;
    manual_seed(42);
    const TorchMultiheadAttention mha(E, 2);
    manual_seed(42);
    const Linear out_proj(E, E);  // drawn first: weight, then bias
    Tensor in_proj({3 * E, E});
    const double a = std::sqrt(6.0 / static_cast<double>(E + 3 * E));  // xavier_uniform_
    uniform_(in_proj, -a, a);
    EXPECT_TRUE(near(mha.out_proj.weight, out_proj.weight, 0.0f));
    EXPECT_TRUE(near(mha.in_proj_weight, in_proj, 1e-7f));
    for (float b : mha.in_proj_bias.data) EXPECT_EQ(b, 0.0f);
    for (float b : mha.out_proj.bias.data) EXPECT_EQ(b, 0.0f);
}

TEST(TorchMultiheadAttention, CrossAttentionMatchesItsDefinition) {
    manual_seed(5);
    TorchMultiheadAttention mha(4, 2);
    normal_(mha.in_proj_bias, 0.0, 1.0);  // non-zero biases exercise the bias path
    const Tensor q = randn({1, 2, 4}), kv = randn({1, 3, 4});
    const MultiHeadAttentionTrace t = mha.forward(q, kv, kv);
    EXPECT_EQ(t.weights.shape, (Shape{1, 2, 2, 3}));
    EXPECT_EQ(t.average_weights.shape, (Shape{1, 2, 3}));
    // Head 0's query for query token 0, by hand: x W_qᵀ + b_q, first 2 columns.
    for (int64_t j = 0; j < 2; ++j) {
        float e = mha.in_proj_bias[j];
        for (int64_t c = 0; c < 4; ++c) e += q[c] * mha.in_proj_weight.at(j, c);
        EXPECT_NEAR(t.queries[j], e, 1e-5f);
    }
    for (int64_t i = 0; i < 6; ++i)
        EXPECT_NEAR(t.average_weights[i], (t.weights[i] + t.weights[6 + i]) / 2.0f, 1e-7f);
    EXPECT_THROW(mha.forward(q, kv, randn({1, 2, 4})), Error);
}
