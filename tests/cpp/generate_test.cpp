// Sampling and generation.
#include "attn/generate.hpp"
#include "golden.hpp"

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

namespace {
GPT tiny_model(NormPlacement norm) {
    GPTConfig c;
    c.vocab_size = 9;
    c.n_embd = 16;
    c.n_head = 2;
    c.n_layer = 2;
    c.n_inner = 32;
    c.block_size = 8;
    c.norm = norm;
    c.seed = 3;
    return GPT(c);
}
}  // namespace

TEST(Generate, KVCacheGenerationEqualsFullRecomputeTokenForToken) {
    for (NormPlacement norm : {NormPlacement::Pre, NormPlacement::Post}) {
        const GPT model = tiny_model(norm);
        GenerateOptions o;
        o.max_new_tokens = 20;  // runs past block_size 8: the context is cropped
        o.seed = 1234;
        o.use_kv_cache = true;
        const std::vector<int64_t> cached = generate(model, {1, 2, 3, 4, 5, 6}, 2, o);
        o.use_kv_cache = false;
        const std::vector<int64_t> full = generate(model, {1, 2, 3, 4, 5, 6}, 2, o);
        EXPECT_EQ(cached, full);
        EXPECT_EQ(cached.size(), 2u * 23u);
    }
}

TEST(Generate, SameSeedSameTokensAndStreaming) {
    const GPT model = tiny_model(NormPlacement::Pre);
    GenerateOptions o;
    o.max_new_tokens = 10;
    o.seed = 99;
    std::vector<int64_t> streamed;
    const std::vector<int64_t> a = generate(model, {4}, 1, o, [&](const std::vector<int64_t>& step) {
        streamed.push_back(step[0]);
        return true;
    });
    EXPECT_EQ(a, generate(model, {4}, 1, o));
    EXPECT_EQ(std::vector<int64_t>(a.begin() + 1, a.end()), streamed);
    o.seed = 100;
    EXPECT_NE(a, generate(model, {4}, 1, o));
    // The callback can stop generation early.
    int calls = 0;
    const auto stopped = generate(model, {4}, 1, o, [&](const std::vector<int64_t>&) { return ++calls < 3; });
    EXPECT_EQ(stopped.size(), 4u);
}

TEST(Generate, BadArgumentsAreErrors) {
    const GPT model = tiny_model(NormPlacement::Pre);
    GenerateOptions o;
    EXPECT_THROW(generate(model, {}, 1, o), Error);
    EXPECT_THROW(generate(model, {9}, 1, o), Error);
    o.max_new_tokens = -1;
    EXPECT_THROW(generate(model, {1}, 1, o), Error);
    o.max_new_tokens = 1;
    GenerationSession s(model, {1}, 1, o);
    s.next();
    EXPECT_TRUE(s.done());
    EXPECT_THROW(s.next(), Error);
}
