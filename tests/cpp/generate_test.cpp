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

namespace {
// Each row's tokens of a (B, T) result.
std::vector<std::vector<int64_t>> rows_of(const std::vector<int64_t>& tokens, int64_t B) {
    std::vector<std::vector<int64_t>> rows;
    const size_t T = tokens.size() / static_cast<size_t>(B);
    for (int64_t b = 0; b < B; ++b) rows.emplace_back(tokens.begin() + static_cast<int64_t>(T) * b, tokens.begin() + static_cast<int64_t>(T) * (b + 1));
    return rows;
}
}  // namespace

// Stop tokens as transformers' _sample applies them: a row that produced one keeps it and is padded from then on
// (next_tokens * unfinished + pad * (1 - unfinished)), the other rows go on unchanged (batch rows never see each
// other, and every row's draw is made each step), and the generation ends when every row has stopped. So the
// stopped run is the unstopped one cut at each row's first stop token, derived here from the unstopped run.
TEST(Generate, AStopTokenFinishesItsRowWhichIsPaddedUntilEveryRowHasStopped) {
    const GPT model = tiny_model(NormPlacement::Pre);
    const std::vector<int64_t> prompt = {1, 2, 3, 7, 5, 0};  // B = 3, T0 = 2
    constexpr int64_t B = 3, T0 = 2, N = 16;
    for (const bool greedy : {true, false}) {
        for (const bool cached : {true, false}) {
            GenerateOptions o;
            o.max_new_tokens = N;
            o.seed = 7;
            o.use_kv_cache = cached;
            if (greedy) o.sampling.temperature = 0.0f;
            const auto free_rows = rows_of(generate(model, prompt, B, o), B);
            // The first new position where each row makes `token` (N: never).
            const auto first = [&](int64_t token, int64_t b) {
                for (int64_t i = T0; i < T0 + N; ++i)
                    if (free_rows[static_cast<size_t>(b)][static_cast<size_t>(i)] == token) return i - T0;
                return N;
            };
            // A stop token that ends row 0 before the others, and one more that ends a second row.
            int64_t eos = -1, second = -1;
            for (int64_t t = 0; t < 9 && eos < 0; ++t)
                if (first(t, 0) < N - 2 && first(t, 0) < first(t, 1) && first(t, 0) < first(t, 2)) eos = t;
            ASSERT_GE(eos, 0) << "no token ends row 0 first; pick another prompt";
            for (int64_t t = 0; t < 9 && second < 0; ++t)
                if (t != eos && first(t, 1) < N && first(t, 0) > first(eos, 0)) second = t;
            for (const std::vector<int64_t>& stops : {std::vector<int64_t>{eos}, std::vector<int64_t>{eos, second}}) {
                if (stops.back() < 0) continue;
                for (const std::optional<int64_t> pad : {std::optional<int64_t>(), std::optional<int64_t>(8)}) {
                    o.eos_token_ids = stops;
                    o.pad_token_id = pad;
                    std::vector<int64_t> stop_at(B, N);  // the new position of each row's first stop token, N if none
                    for (int64_t b = 0; b < B; ++b)
                        for (int64_t s : stops) stop_at[static_cast<size_t>(b)] = std::min(stop_at[static_cast<size_t>(b)], first(s, b));
                    const int64_t steps = std::min(N, *std::max_element(stop_at.begin(), stop_at.end()) + 1);
                    GenerationSession session(model, prompt, B, o);
                    int64_t made = 0;
                    while (!session.done()) {
                        const std::vector<int64_t> step = session.next();
                        for (int64_t b = 0; b < B; ++b) {
                            const int64_t at = stop_at[static_cast<size_t>(b)];
                            const int64_t want = made <= at ? free_rows[static_cast<size_t>(b)][static_cast<size_t>(T0 + made)] : pad.value_or(stops.front());
                            EXPECT_EQ(step[static_cast<size_t>(b)], want) << "row " << b << " step " << made << (greedy ? " greedy" : " sampled");
                            EXPECT_EQ(session.finished(b), made >= at) << "row " << b << " step " << made;
                        }
                        ++made;
                    }
                    EXPECT_EQ(made, steps);
                    EXPECT_EQ(session.length(), T0 + steps);
                    if (steps < N) EXPECT_THROW(session.next(), Error);
                    EXPECT_EQ(generate(model, prompt, B, o), session.tokens());
                }
            }
        }
    }
}

TEST(Generate, StopAndPadTokensAreReadFromTheOptionsTableAndCheckedAgainstTheVocabulary) {
    GenerateOptions o = generate_options_from_json(R"({"eos_token_id": 4, "top_p": 0.5})", Naming::Snake, "generate");
    EXPECT_EQ(o.eos_token_ids, (std::vector<int64_t>{4}));
    EXPECT_EQ(o.sampling.top_p, 0.5);
    o = generate_options_from_json(R"({"eosTokenId": [4, 7], "padTokenId": 0, "topP": 0.9})", Naming::Camel, "generate");
    EXPECT_EQ(o.eos_token_ids, (std::vector<int64_t>{4, 7}));
    EXPECT_EQ(o.pad_token_id, 0);
    EXPECT_EQ(o.sampling.top_p, 0.9);  // a double: 0.9 as JS and Python have it
    EXPECT_EQ(to_json(o, Naming::Camel).find("\"eosTokenId\":[4,7]") != std::string::npos, true) << to_json(o, Naming::Camel);
    const auto refused = [](const std::string& json, const std::string& message) {
        try {
            generate_options_from_json(json, Naming::Camel, "generate");
            ADD_FAILURE() << json << " was read";
        } catch (const Error& e) {
            EXPECT_NE(std::string(e.what()).find(message), std::string::npos) << e.what();
        }
    };
    refused(R"({"eosTokenId": "2"})", "generate: expected eosTokenId to be an integer >= 0 or a list of them, got \"2\"");
    refused(R"({"eosTokenId": [1, -2]})", "expected eosTokenId to be an integer >= 0 or a list of them, got [1,-2]");
    refused(R"({"eosTokenId": [1.5]})", "expected eosTokenId");
    refused(R"({"topP": 0})", "expected topP to be a number in (0, 1], got 0");
    refused(R"({"topP": 1.01})", "expected topP to be a number in (0, 1]");
    refused(R"({"eosTokenIds": [1]})", "did you mean \"eosTokenId\"?");
    // On the command line: a comma-separated list, or none.
    set_field(o, "--eos-token-id", "1,106", Naming::Flag, "attn-train");
    EXPECT_EQ(o.eos_token_ids, (std::vector<int64_t>{1, 106}));
    set_field(o, "--eos-token-id", "none", Naming::Flag, "attn-train");
    EXPECT_TRUE(o.eos_token_ids.empty());
    EXPECT_THROW(set_field(o, "--eos-token-id", "1,,2", Naming::Flag, "attn-train"), Error);
    // Ids the model cannot make or be fed are refused when the session starts.
    const GPT model = tiny_model(NormPlacement::Pre);  // vocabulary 9
    GenerateOptions bad;
    bad.eos_token_ids = {2, 9};
    EXPECT_THROW(GenerationSession(model, {1}, 1, bad), Error);
    bad.eos_token_ids = {2};
    bad.pad_token_id = 9;
    EXPECT_THROW(GenerationSession(model, {1}, 1, bad), Error);
}
