// The heads' measurements (head_statistics.hpp) against the same numbers computed here from a full trace.
#include "attn/head_statistics.hpp"
#include "fixtures.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

using namespace attn;
using fixtures::error_of;

namespace {
GPT model() {
    GPTConfig c = GPTConfig::nanogpt(23, 40, 2, 3, 12, true, true);
    c.seed = 11;
    return GPT(c);
}
std::vector<int64_t> text(int64_t T) {
    std::vector<int64_t> ids;
    for (int64_t t = 0; t < T; ++t) ids.push_back((t * 7 + 3) % 23);
    return ids;
}
}  // namespace

TEST(HeadStatistics, EqualTheTracesWeightsMeasuredByHand) {
    const GPT m = model();
    const auto ids = text(37);
    const int64_t T = 37, H = 3;
    GPTTrace trace;
    const Tensor logits = m.forward(ids, 1, &trace);
    HeadSummaryOptions eight;
    eight.thumbnail = 8;
    const HeadSummary s = summarize_heads(m, ids, eight);
    const int64_t block = 5, S = 8;  // ⌈37/8⌉ = 5 rows a cell, ⌈37/5⌉ = 8 cells
    ASSERT_EQ(s.thumbnails.shape, (Shape{2, H, S, S}));
    for (int64_t l = 0; l < 2; ++l) {
        const Tensor& w = trace.layers[static_cast<size_t>(l)].weights;  // (1, H, T, T)
        for (int64_t h = 0; h < H; ++h) {
            const auto at = [&](int64_t i, int64_t j) { return w.data[static_cast<size_t>((h * T + i) * T + j)]; };
            double prev = 0, first = 0, distance = 0, entropy = 0;
            for (int64_t i = 1; i < T; ++i) {
                prev += at(i, i - 1);
                first += at(i, 0);
                for (int64_t j = 0; j <= i; ++j) {
                    distance += at(i, j) * (i - j);
                    entropy -= at(i, j) > 0 ? at(i, j) * std::log(at(i, j)) : 0;
                }
            }
            const size_t k = static_cast<size_t>(l * H + h);
            EXPECT_NEAR(s.previous_token.data[k], prev / (T - 1), 1e-6);
            EXPECT_NEAR(s.first_token.data[k], first / (T - 1), 1e-6);
            EXPECT_NEAR(s.mean_distance.data[k], distance / (T - 1), 1e-5);
            EXPECT_NEAR(s.entropy.data[k], entropy / (T - 1), 1e-5);
            for (int64_t a = 0; a < S; ++a) {
                for (int64_t b = 0; b < S; ++b) {
                    float best = 0;
                    for (int64_t i = a * block; i < std::min(T, (a + 1) * block); ++i)
                        for (int64_t j = b * block; j < std::min(T, (b + 1) * block); ++j) best = std::max(best, at(i, j));
                    EXPECT_EQ(s.thumbnails.data[static_cast<size_t>(((l * H + h) * S + a) * S + b)], best);
                }
            }
            const HeadMap one = head_attention(m, ids, l, h);
            ASSERT_EQ(one.weights.shape, (Shape{T, T}));
            for (int64_t i = 0; i < T * T; ++i) EXPECT_EQ(one.weights.data[static_cast<size_t>(i)], at(i / T, i % T));
            const GPTLayerTrace& lt = trace.layers[static_cast<size_t>(l)];  // queries (1, H, T, d)
            const std::pair<const Tensor*, const Tensor*> parts[] = {{&one.queries, &lt.queries}, {&one.keys, &lt.keys}, {&one.values, &lt.values}};
            for (const auto& [mine, traced] : parts) {
                ASSERT_EQ(mine->shape, (Shape{T, 4}));
                for (int64_t i = 0; i < T * 4; ++i) EXPECT_EQ(mine->data[static_cast<size_t>(i)], traced->data[static_cast<size_t>(h * T * 4 + i)]);
            }
        }
    }
    for (int64_t l = 0; l < 2; ++l) {
        const Tensor all = layer_attention(m, ids, l);
        EXPECT_EQ(all.shape, (Shape{H, T, T}));
        EXPECT_EQ(all.data, trace.layers[static_cast<size_t>(l)].weights.data);
    }
    for (int64_t v = 0; v < 23; ++v) EXPECT_EQ(s.next_logits.data[static_cast<size_t>(v)], logits.data[static_cast<size_t>((T - 1) * 23 + v)]);
    // A head switched off attends nowhere: every statistic of it is 0.
    Tensor mask({2, H}, std::vector<float>(6, 1.0f));
    mask.data[4] = 0;
    HeadSummaryOptions masked;
    masked.head_mask = &mask;
    const HeadSummary off = summarize_heads(m, ids, masked);
    EXPECT_EQ(off.previous_token.data[4], 0.0f);
    EXPECT_EQ(off.entropy.data[4], 0.0f);
    EXPECT_EQ(off.thumbnails.numel(), 0);
}

TEST(HeadStatistics, BadTextsAndHeadsAreErrors) {
    const GPT m = model();
    EXPECT_EQ(error_of([&] { summarize_heads(m, {1}); }), "summarizeHeads: expected a text of at least 2 tokens, got 1");
    EXPECT_EQ(error_of([&] { summarize_heads(m, text(41)); }), "GPT.forward: a context of 41 tokens exceeds the block size 40");
    EXPECT_EQ(error_of([&] { head_attention(m, text(4), 2, 0); }),
              "headAttention: expected layer in [0, 2) and head in [0, 3), got layer 2 and head 0");
    EXPECT_EQ(error_of([&] { layer_attention(m, text(4), 2); }), "layerAttention: expected layer in [0, 2), got 2");
}

// A head's weight by distance: for each d, the mean of w[i][i − d] over the queries that have such a key.
TEST(HeadStatistics, DistanceProfileIsTheMeanWeightOnTheKeyDTokensBack) {
    const GPT m = model();
    const auto ids = text(37);
    const int64_t T = 37, H = 3, P = kDistanceProfile;
    GPTTrace trace;
    m.forward(ids, 1, &trace);
    const HeadSummary s = summarize_heads(m, ids);
    ASSERT_EQ(s.distance_profile.shape, (Shape{2, H, P}));
    for (int64_t l = 0; l < 2; ++l) {
        const Tensor& w = trace.layers[static_cast<size_t>(l)].weights;  // (1, H, T, T)
        for (int64_t h = 0; h < H; ++h) {
            for (int64_t d = 0; d < P; ++d) {
                double sum = 0;
                const int64_t from = std::max<int64_t>(d, 1);
                for (int64_t i = from; i < T; ++i) sum += w.data[static_cast<size_t>((h * T + i) * T + i - d)];
                EXPECT_NEAR(s.distance_profile.data[static_cast<size_t>((l * H + h) * P + d)], sum / static_cast<double>(T - from), 1e-6)
                    << l << ", " << h << ", " << d;
            }
        }
    }
    // A text shorter than the profile: as many distances as it has tokens.
    EXPECT_EQ(summarize_heads(m, text(5)).distance_profile.shape, (Shape{2, H, 5}));
}

// Which layers slide, as the config says (Gemma 3: five local layers to one global).
TEST(HeadStatistics, LayerWindowIsEachLayersSlidingWindowOrZero) {
    GPTConfig c = GPTConfig::nanogpt(23, 40, 2, 3, 12, true, true);
    EXPECT_EQ(summarize_heads(GPT(c), text(6)).layer_window.data, (std::vector<float>{0, 0}));
    c.sliding_window = 4;
    c.sliding_window_pattern = 2;  // layer 1 slides, layer 2 attends fully
    EXPECT_EQ(summarize_heads(GPT(c), text(6)).layer_window.data, (std::vector<float>{4, 0}));
}
