// Generation: nanoGPT's generate loop, with and without the KV cache.
#include "attn/generate.hpp"
#include "attn/kv_cache.hpp"
#include "golden.hpp"

using namespace attn;
using golden::near;

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

// A model of finite but huge weights (3e38) loaded as verified and gave NaN logits; greedy generation then returned
// token 0 without a word. Its forward now says what is wrong, and so does generation.
TEST(Generate, WeightsThatOverflowFloat32AreAnErrorNotNaNLogitsOrTokenZero) {
    GPT model = tiny_model(NormPlacement::Pre);
    for (auto& [name, t] : model.named_parameters()) std::fill(t->data.begin(), t->data.end(), 3e38f);
    try {
        model.forward({1, 2, 3}, 1);
        FAIL() << "NaN logits were returned";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("GPT.forward: the model's logits are not finite"), std::string::npos) << e.what();
    }
    // A batch large enough to run in parts (GPT::forward) names the row of the whole batch, not of its part: one
    // token's embedding overflows, and only the sequence that starts with it (row 300 of 512) goes wrong.
    Generator g(5);
    GPT split(GPTConfig::nanogpt(9, 8, 2, 2, 16, true, false), g);
    std::fill_n(split.wte.data.begin() + 2 * 16, 16, 3e38f);
    std::vector<int64_t> batch(512 * 8, 1);
    batch[300 * 8] = 2;
    ASSERT_GT(inference_parts(split.config(), 512, 8), 1);
    try {
        split.forward(batch, 512);
        FAIL() << "NaN logits were returned";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("at batch row 300, position 0"), std::string::npos) << e.what();
    }
    GenerateOptions greedy;
    greedy.max_new_tokens = 3;
    greedy.sampling.temperature = 0.0f;
    EXPECT_THROW(generate(model, {1, 2, 3}, 1, greedy), Error);
    SamplingOptions argmax;
    argmax.temperature = 0.0f;
    EXPECT_THROW(sample_next(Tensor({1, 3}, {0.0f, NAN, 1.0f}), argmax), Error);
}

// The cache holds a key and a value per key/value head per layer per token; a sliding layer keeps its window only.
TEST(KvCache, CountsKeyValueHeadsNotQueryHeadsAndStopsSlidingLayersAtTheirWindow) {
    GPTConfig c = GPTConfig::nanogpt(100, 64, 4, 8, 64, false, true);  // 4 layers, 8 heads of 8
    EXPECT_EQ(kv_cache_numbers(c, 10), 2 * 4 * 8 * 8 * 10);
    c.n_kv_head = 2;  // GQA: groups of 4
    EXPECT_EQ(kv_cache_numbers(c, 10), 2 * 4 * 2 * 8 * 10);
    c.sliding_window = 6;
    c.sliding_window_pattern = 2;  // layers 1 and 3 slide (0-based 0 and 2), 2 and 4 attend fully
    EXPECT_EQ(kv_cache_numbers(c, 4), 2 * 4 * 2 * 8 * 4);
    EXPECT_EQ(kv_cache_numbers(c, 100), 2 * 2 * 8 * (2 * 100 + 2 * 6));
    EXPECT_EQ(kv_cache_numbers(c, 0), 0);
    EXPECT_THROW(kv_cache_numbers(c, -1), Error);
}
