// The nn layers' forward passes and their argument checks, and the fixed sinusoidal positions added before them.
#include "attn/embedding.hpp"
#include "attn/layer_norm.hpp"
#include "attn/linear.hpp"
#include "attn/sinusoidal_positions.hpp"
#include "golden.hpp"

#include <cmath>

using namespace attn;
using golden::near;

TEST(Linear, ForwardIsXWTransposedPlusBias) {
    manual_seed(0);
    const Linear lin(3, 2);
    const Tensor x({2, 3}, {1, 2, 3, -1, 0, 0.5f});
    const Tensor y = lin.forward(x);
    ASSERT_EQ(y.shape, (Shape{2, 2}));
    for (int64_t i = 0; i < 2; ++i)
        for (int64_t o = 0; o < 2; ++o) {
            float e = lin.bias[o];
            for (int64_t c = 0; c < 3; ++c) e += x.at(i, c) * lin.weight.at(o, c);
            EXPECT_NEAR(y.at(i, o), e, 1e-6f);
        }
    EXPECT_EQ(lin.forward(Tensor({4, 5, 3})).shape, (Shape{4, 5, 2}));
    try {
        lin.forward(Tensor({2, 4}));
        FAIL();
    } catch (const Error& e) {
        EXPECT_STREQ(e.what(), "Linear.forward: expected x of shape [..., 3], got [2, 4]");
    }
    EXPECT_THROW(Linear(0, 2), Error);
}

TEST(Embedding, LooksUpRowsAndRejectsBadIds) {
    manual_seed(0);
    const Embedding emb(4, 3);
    const Tensor out = emb.forward({3, 0, 3}, {3});
    ASSERT_EQ(out.shape, (Shape{3, 3}));
    for (int64_t c = 0; c < 3; ++c) {
        EXPECT_EQ(out.at(0, c), emb.weight.at(3, c));
        EXPECT_EQ(out.at(1, c), emb.weight.at(0, c));
    }
    try {
        emb.forward({1, 4}, {2});
        FAIL();
    } catch (const Error& e) {
        EXPECT_STREQ(e.what(), "Embedding.forward: expected ids in [0, 4), got 4 at index 1");
    }
    EXPECT_THROW(emb.forward({-1}, {1}), Error);
    EXPECT_THROW(emb.forward({1, 2}, {3}), Error);
}

TEST(LayerNorm, NormalisesEachRowToZeroMeanUnitVariance) {
    const LayerNorm ln(4);
    const Tensor y = ln.forward(Tensor({2, 4}, {1, 2, 3, 4, -10, 0, 10, 20}));
    for (int64_t r = 0; r < 2; ++r) {
        float mean = 0, var = 0;
        for (int64_t j = 0; j < 4; ++j) mean += y.at(r, j) / 4;
        for (int64_t j = 0; j < 4; ++j) var += (y.at(r, j) - mean) * (y.at(r, j) - mean) / 4;
        EXPECT_NEAR(mean, 0.0f, 1e-6f);
        EXPECT_NEAR(var, 1.0f, 1e-4f);
    }
    // torch.nn.LayerNorm(4)(torch.tensor([1., 2., 3., 4.]))
    EXPECT_TRUE(near(golden::row(y, 0), {-1.3416f, -0.4472f, 0.4472f, 1.3416f}));
    EXPECT_THROW(ln.forward(Tensor({2, 3})), Error);
}

TEST(Tensor, RejectsAbsurdAndInconsistentShapes) {
    EXPECT_THROW(Tensor({1 << 16, 1 << 16}), Error);
    EXPECT_THROW(Tensor({2, 2}, {1, 2, 3}), Error);
    EXPECT_THROW(Tensor({-2}), Error);
    EXPECT_THROW(matmul(Tensor({2, 3}), Tensor({2, 3})), Error);
}

// Vaswani et al. 2017 §3.5: PE[pos][2i] = sin(pos / 10000^(2i/d)), PE[pos][2i + 1] = cos(…), in float32.
TEST(SinusoidalPositions, AreTheSinesAndCosinesOfEachPositionAtEachRate) {
    const Tensor pe = sinusoidal_positions(50, 8);
    EXPECT_EQ(pe.shape, (Shape{50, 8}));
    for (int64_t pos : {0, 1, 7, 49}) {
        for (int64_t i = 0; i < 4; ++i) {
            const double angle = static_cast<double>(pos) / std::pow(10000.0, 2.0 * static_cast<double>(i) / 8.0);
            EXPECT_NEAR(pe.data[pos * 8 + 2 * i], std::sin(angle), 1e-5) << pos << ", " << i;
            EXPECT_NEAR(pe.data[pos * 8 + 2 * i + 1], std::cos(angle), 1e-5) << pos << ", " << i;
        }
    }
    EXPECT_THROW(sinusoidal_positions(4, 3), Error);
    EXPECT_THROW(sinusoidal_positions(0, 4), Error);
    EXPECT_THROW(sinusoidal_positions(1 << 20, 1 << 10), Error);
}
