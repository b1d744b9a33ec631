// The tiny language model: notebook 001's SimpleLanguageModel and nanoGPT's GPT.
#include "attn/gpt.hpp"
#include "attn/mask.hpp"
#include "attn/multi_head_attention.hpp"
#include "fixtures.hpp"
#include "golden.hpp"

#include <cmath>
#include <string>
#include <tuple>

using namespace attn;
using fixtures::error_of;
using golden::near;

namespace {
GPTConfig small(NormPlacement norm, bool tie = false) {
    GPTConfig c;
    c.vocab_size = 11;
    c.n_embd = 16;
    c.n_head = 4;
    c.n_layer = 2;
    c.n_inner = 24;
    c.block_size = 12;
    c.norm = norm;
    c.activation = norm == NormPlacement::Pre ? Activation::GELU : Activation::ReLU;
    c.init = norm == NormPlacement::Pre ? InitScheme::GPT2 : InitScheme::PyTorch;
    c.tie_embeddings = tie;
    c.seed = 7;
    return c;
}

std::vector<int64_t> ids_of(const std::vector<int64_t>& v) { return v; }

Tensor rows_of(const Tensor& logits, int64_t b, int64_t t0, int64_t t1) {
    const int64_t T = logits.shape[1], V = logits.shape[2];
    return Tensor({t1 - t0, V}, std::vector<float>(logits.data.begin() + (b * T + t0) * V, logits.data.begin() + (b * T + t1) * V));
}
}  // namespace

TEST(GPT, Notebook001ExampleShapes) {
    // vocab 1000, d_model 64, 4 heads, d_ff 256, max length 128; batch 3, length 10
    const GPT model(GPTConfig::notebook001(1000, 64, 4, 256, 128));
    manual_seed(0);
    const std::vector<int64_t> x = randint(0, 1000, {3, 10});
    const Tensor logits = model.forward(x, 3);
    EXPECT_EQ(logits.shape, (Shape{3, 10, 1000}));
    // Parameters of SimpleLanguageModel, counted by hand from its __init__.
    const int64_t expected = 1000 * 64 + 128 * 64 + 4 * 64 * 64 + (64 * 256 + 256) + (256 * 64 + 64) + 4 * 64 +
                             (64 * 1000 + 1000);
    EXPECT_EQ(model.num_parameters(false), expected);
    EXPECT_EQ(model.num_parameters(), expected - 128 * 64);
}

TEST(GPT, Notebook001InitIsPyTorchsConstructionOrder) {
    const GPTConfig c = GPTConfig::notebook001(10, 8, 2, 16, 6);
    const GPT model(c);
    Generator gen(c.seed);
    const Tensor tok = randn({10, 8}, gen), pos = randn({6, 8}, gen);
    Linear W_q(8, 8, false, gen), W_k(8, 8, false, gen), W_v(8, 8, false, gen), W_o(8, 8, false, gen);
    Linear ff1(8, 16, true, gen), ff2(16, 8, true, gen), out(8, 10, true, gen);
    EXPECT_TRUE(near(model.wte, tok, 0.0f));
    EXPECT_TRUE(near(model.wpe, pos, 0.0f));
    const Tensor& qkv = model.h[0].attn_c_attn_weight;
    EXPECT_TRUE(near(Tensor({8, 8}, std::vector<float>(qkv.data.begin() + 64, qkv.data.begin() + 128)), W_k.weight, 0.0f));
    EXPECT_TRUE(near(model.h[0].attn_c_proj_weight, W_o.weight, 0.0f));
    EXPECT_TRUE(near(model.h[0].mlp_c_proj_bias, ff2.bias, 0.0f));
    EXPECT_TRUE(near(model.lm_head_weight, out.weight, 0.0f));
    EXPECT_TRUE(near(model.lm_head_bias, out.bias, 0.0f));
}

TEST(GPT, NanoGPTParameterCountForShakespeareChar) {
    // nanoGPT prints "number of parameters: 10.65M" for train_shakespeare_char.
    const GPT model(GPTConfig::nanogpt(65, 256, 6, 6, 384, /*bias=*/false, /*tie=*/true));
    EXPECT_NEAR(static_cast<double>(model.num_parameters()) / 1e6, 10.65, 0.005);
    EXPECT_EQ(model.named_parameters().front().first, "transformer.wte.weight");
    for (const auto& [name, t] : model.named_parameters()) EXPECT_NE(name, "lm_head.weight");
}

TEST(GPT, NanoGPTInitStatistics) {
    GPTConfig c = GPTConfig::nanogpt(50, 16, 3, 2, 64, true, false);
    const GPT model(c);
    auto stddev = [](const Tensor& t) {
        double s = 0, s2 = 0;
        for (float x : t.data) s += x, s2 += double(x) * x;
        const double m = s / t.numel();
        return std::sqrt(s2 / t.numel() - m * m);
    };
    EXPECT_NEAR(stddev(model.h[0].mlp_c_fc_weight), 0.02, 0.002);
    EXPECT_NEAR(stddev(model.h[1].attn_c_proj_weight), 0.02 / std::sqrt(6.0), 0.002);
    for (float b : model.h[2].attn_c_attn_bias.data) EXPECT_EQ(b, 0.0f);
    EXPECT_TRUE(model.lm_head_bias.data.empty());
}

TEST(GPT, TheModelsAttentionIsMultiHeadAttention) {
    // Notebook 001's model: one post-norm block. Its layer-0 attention weights
    // equal MultiHeadAttention.forward on the embeddings with the same W.
    const GPT model(GPTConfig::notebook001(20, 8, 2, 16, 6));
    const std::vector<int64_t> ids = {3, 1, 4, 1, 5, 9};
    GPTTrace trace;
    model.forward(ids, 1, &trace);
    MultiHeadAttention mha(8, 2);
    const Tensor& qkv = model.h[0].attn_c_attn_weight;
    for (auto [w, p] : {std::pair{&mha.W_q, 0}, {&mha.W_k, 1}, {&mha.W_v, 2}})
        std::copy_n(qkv.data.begin() + p * 64, 64, w->weight.data.begin());
    mha.W_o.weight = model.h[0].attn_c_proj_weight;
    AttentionOptions causal;
    causal.causal = true;
    const MultiHeadAttentionTrace t = mha.forward(trace.layers[0].input, causal);
    EXPECT_TRUE(near(trace.layers[0].weights, t.weights, 1e-6f));
    EXPECT_TRUE(near(trace.layers[0].queries, t.queries, 1e-6f));
}

TEST(GPT, TraceHasEveryLayerAndHeadAndCostsNothingWhenOff) {
    const GPT model(small(NormPlacement::Pre));
    const std::vector<int64_t> ids = {1, 2, 3, 4, 5, 6, 7, 8};
    GPTTrace trace;
    const Tensor with = model.forward(ids, 2, &trace);
    EXPECT_TRUE(near(with, model.forward(ids, 2), 0.0f));
    ASSERT_EQ(trace.layers.size(), 2u);
    EXPECT_EQ(trace.embeddings.shape, (Shape{2, 4, 16}));
    EXPECT_EQ(trace.layers[1].weights.shape, (Shape{2, 4, 4, 4}));
    EXPECT_EQ(trace.layers[1].keys.shape, (Shape{2, 4, 4, 4}));
    EXPECT_TRUE(near(trace.layers[1].input, trace.layers[0].output, 0.0f));  // the residual stream
    EXPECT_TRUE(near(trace.layers[0].input, trace.embeddings, 0.0f));
}

// Reference for the head mask, computed without it: a head's output enters the
// model only through its d input columns of c_proj (W_o is (C out, C in)), so
// scaling those columns scales the head's contribution exactly as scaling its
// weights does.
TEST(GPT, HeadMaskEqualsScalingTheHeadsColumnsOfTheOutputProjection) {
    for (NormPlacement norm : {NormPlacement::Pre, NormPlacement::Post}) {
        const GPT model(small(norm));
        const std::vector<int64_t> ids = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
        const int64_t C = 16, d = 4;
        Tensor mask({2, 4}, std::vector<float>(8, 1.0f));
        EXPECT_TRUE(near(model.forward(ids, 2, nullptr, &mask), model.forward(ids, 2), 0.0f)) << "all ones";
        mask.data[1 * 4 + 2] = 0.0f;  // layer 1, head 2 off
        mask.data[0 * 4 + 1] = 0.5f;  // layer 0, head 1 halved
        GPT by_hand = model;
        for (auto [layer, head, keep] : {std::tuple{1, 2, 0.0f}, std::tuple{0, 1, 0.5f}}) {
            Tensor& w = by_hand.h[static_cast<size_t>(layer)].attn_c_proj_weight;
            for (int64_t r = 0; r < C; ++r)
                for (int64_t k = head * d; k < (head + 1) * d; ++k) w.data[static_cast<size_t>(r * C + k)] *= keep;
        }
        GPTTrace trace;
        const Tensor masked = model.forward(ids, 2, &trace, &mask);
        EXPECT_TRUE(near(masked, by_hand.forward(ids, 2), 1e-5f));
        EXPECT_FALSE(near(masked, model.forward(ids, 2), 1e-3f)) << "the mask changed nothing";
        // The trace's weights are the multiplied ones: head 1.2 all zero, head 0.1 rows summing to 0.5.
        const Tensor& w1 = trace.layers[1].weights;  // (B, H, T, T)
        for (int64_t b = 0; b < 2; ++b)
            for (int64_t i = 0; i < 25; ++i) EXPECT_EQ(w1.data[static_cast<size_t>(((b * 4 + 2) * 25) + i)], 0.0f);
        const Tensor& w0 = trace.layers[0].weights;
        float row = 0;
        for (int64_t j = 0; j < 5; ++j) row += w0.data[static_cast<size_t>((0 * 4 + 1) * 25 + 4 * 5 + j)];
        EXPECT_NEAR(row, 0.5f, 1e-6f);
    }
}

TEST(GPT, BadHeadMasksRaiseClearErrors) {
    const GPT model(small(NormPlacement::Pre));
    const std::vector<int64_t> ids = {1, 2, 3};
    const Tensor wrong({4, 2}, std::vector<float>(8, 1.0f));
    const auto message = [&](const Tensor& mask) {
        try {
            model.forward(ids, 1, nullptr, &mask);
        } catch (const Error& e) {
            return std::string(e.what());
        }
        return std::string("no error");
    };
    EXPECT_EQ(message(wrong), "GPT.forward: expected headMask of shape [2, 4] (n_layer, n_head), got [4, 2]");
    Tensor nan({2, 4}, std::vector<float>(8, 1.0f));
    nan.data[5] = NAN;
    EXPECT_EQ(message(nan), "GPT.forward: expected finite values in headMask, got NaN at flat index 5");
}

TEST(GPT, ChangingAFutureTokenNeverChangesEarlierLogits) {
    for (NormPlacement norm : {NormPlacement::Pre, NormPlacement::Post}) {
        const GPT model(small(norm, /*tie=*/norm == NormPlacement::Pre));
        const std::vector<int64_t> a = {1, 2, 3, 4, 5, 6, 7, 8};
        for (int64_t t = 0; t + 1 < 8; ++t) {
            std::vector<int64_t> b = a;
            b[static_cast<size_t>(t + 1)] = (b[static_cast<size_t>(t + 1)] + 5) % 11;
            const Tensor la = model.forward(a, 1), lb = model.forward(b, 1);
            EXPECT_TRUE(near(rows_of(la, 0, 0, t + 1), rows_of(lb, 0, 0, t + 1), 0.0f)) << "t=" << t;
            EXPECT_FALSE(near(rows_of(la, 0, t + 1, t + 2), rows_of(lb, 0, t + 1, t + 2), 1e-6f));
        }
    }
}

TEST(GPT, CachedForwardEqualsFullRecompute) {
    for (NormPlacement norm : {NormPlacement::Pre, NormPlacement::Post}) {
        const GPT model(small(norm));
        const std::vector<int64_t> ids = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 0, 1, 2};
        const Tensor full = model.forward(ids, 2);  // (2, 12, V)
        KVCache cache = model.new_cache(2);
        // prefill 5 tokens per row, then one at a time
        std::vector<int64_t> prefill;
        for (int64_t b = 0; b < 2; ++b) prefill.insert(prefill.end(), ids.begin() + b * 12, ids.begin() + b * 12 + 5);
        EXPECT_TRUE(near(model.forward_cached(prefill, 2, cache), Tensor({2, 5, 11}, [&] {
                             std::vector<float> v;
                             for (int64_t b = 0; b < 2; ++b) {
                                 const Tensor r = rows_of(full, b, 0, 5);
                                 v.insert(v.end(), r.data.begin(), r.data.end());
                             }
                             return v;
                         }()),
                         1e-5f));
        for (int64_t t = 5; t < 12; ++t) {
            const Tensor step = model.forward_cached({ids[static_cast<size_t>(t)], ids[static_cast<size_t>(12 + t)]}, 2, cache);
            EXPECT_TRUE(near(rows_of(step, 0, 0, 1), rows_of(full, 0, t, t + 1), 1e-5f)) << "t=" << t;
            EXPECT_TRUE(near(rows_of(step, 1, 0, 1), rows_of(full, 1, t, t + 1), 1e-5f)) << "t=" << t;
        }
        EXPECT_THROW(model.forward_cached({1, 2}, 2, cache), Error);  // past the block size
    }
}

TEST(GPT, BadConfigsAndIdsRaiseClearErrors) {
    GPTConfig c = small(NormPlacement::Pre);
    c.n_head = 5;
    try {
        GPT m(c);
        FAIL();
    } catch (const Error& e) {
        EXPECT_STREQ(e.what(), "GPT: n_embd must be divisible by n_head, got n_embd=16 and n_head=5");
    }
    c = small(NormPlacement::Pre);
    c.n_head = 0;
    EXPECT_THROW(GPT{c}, Error);
    c = small(NormPlacement::Pre);
    c.dropout = 1.0f;
    EXPECT_THROW(GPT{c}, Error);
    c = small(NormPlacement::Pre);
    c.vocab_size = 1 << 20;
    c.n_embd = 1 << 12;
    c.n_head = 1;
    EXPECT_THROW(GPT{c}, Error);
    const GPT model(small(NormPlacement::Pre));
    try {
        model.forward({1, 2, 11}, 1);
        FAIL();
    } catch (const Error& e) {
        EXPECT_STREQ(e.what(), "GPT.forward: expected token ids in [0, 11), got 11 at index 2");
    }
    EXPECT_THROW(model.forward(std::vector<int64_t>(13, 1), 1), Error);  // longer than block_size 12
    EXPECT_THROW(model.forward({1, 2, 3}, 2), Error);
    EXPECT_THROW(model.forward({}, 1), Error);
}

// A forward whose attention weights could not be allocated said only "vector" in WASM (std::length_error: 20
// sequences of 1,024 tokens over 64 heads need 1.3 G weights, more than a 32-bit size_t can count). Every buffer
// of a pass is weighed before any is allocated, and the one that does not fit is named.
TEST(GPT, AForwardTooLargeForMemoryIsRefusedNamingItsBufferNotVector) {
    GPTConfig c = small(NormPlacement::Pre);
    c.n_embd = 64;
    c.n_head = 64;
    c.n_layer = 1;
    c.block_size = 1024;
    const GPT model(c);
    EXPECT_EQ(error_of([&] { model.forward(std::vector<int64_t>(20 * 1024, 1), 20); }),
              "GPT.forward: a pass of 20 × 1024 tokens needs attention weights of 1342177280 elements (sequences × heads × tokens × "
              "context = 20 × 64 × 1024 × 1024), more than the library's limit of 268435456; use fewer or shorter sequences");
    KVCache cache = model.new_cache(20);
    EXPECT_EQ(error_of([&] { model.forward_cached(std::vector<int64_t>(20 * 1024, 1), 20, cache); }),
              "GPT.forwardCached: a pass of 20 × 1024 tokens needs attention weights of 1342177280 elements (sequences × heads × tokens × "
              "context = 20 × 64 × 1024 × 1024), more than the library's limit of 268435456; use fewer or shorter sequences");
    EXPECT_EQ(model.forward(std::vector<int64_t>(256, 1), 1).shape, (Shape{1, 256, 11}));

    c.vocab_size = 1 << 18;
    c.n_head = 1;
    const GPT wide(c);
    EXPECT_EQ(error_of([&] { wide.forward(std::vector<int64_t>(2 * 1024, 1), 2); }),
              "GPT.forward: a pass of 2 × 1024 tokens needs logits of 536870912 elements (sequences × tokens × vocabulary = 2 × 1024 × "
              "262144), more than the library's limit of 268435456; use fewer or shorter sequences or a smaller vocabulary");
}
