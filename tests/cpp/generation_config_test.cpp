// A model folder's generation settings: generation_config.json read as transformers' GenerationConfig reads it,
// and config.json's stop tokens for a folder without one. The files are the real ones of GPT-2, Qwen3,
// Llama 3.2 Instruct and Gemma 3 (their generation_config.json as the hub serves them).
#include "attn/generation_config.hpp"
#include "golden.hpp"

#include <string>

using namespace attn;

namespace {
std::string error_of(const std::optional<std::string>& generation_config, const std::string& config = "{}") {
    try {
        generation_options_from_files(generation_config, config, GenerateOptions{}, "loadPretrained");
    } catch (const Error& e) {
        return e.what();
    }
    return "(read without an error)";
}
}  // namespace

TEST(GenerationConfig, DoSampleFalseOrAbsentIsGreedyAndTheStopTokensAreRead) {
    // openai-community/gpt2: no do_sample, so greedy, as transformers' generate() is for it.
    const GenerateOptions gpt2 = generation_options_from_files(
        R"({"_from_model_config": true, "bos_token_id": 50256, "eos_token_id": 50256, "transformers_version": "4.26.0.dev0"})", "{}");
    EXPECT_EQ(gpt2.sampling.temperature, 0.0f);
    EXPECT_EQ(gpt2.sampling.top_k, 50);  // GenerationConfig's, for a caller who turns sampling on
    EXPECT_EQ(gpt2.sampling.top_p, 1.0);
    EXPECT_EQ(gpt2.eos_token_ids, (std::vector<int64_t>{50256}));
    EXPECT_FALSE(gpt2.pad_token_id.has_value());
    // A greedy file's temperature is not used, so 0 is no error there.
    EXPECT_EQ(generation_options_from_files(R"({"do_sample": false, "temperature": 0.0, "eos_token_id": 2})", "{}").sampling.temperature, 0.0f);
}

TEST(GenerationConfig, DoSampleTrueTakesTheFilesSamplingWithTransformersDefaultsForWhatItLeavesOut) {
    // Qwen/Qwen3-0.6B
    const GenerateOptions qwen3 = generation_options_from_files(
        R"({"bos_token_id": 151643, "do_sample": true, "eos_token_id": [151645, 151643], "pad_token_id": 151643,
            "temperature": 0.6, "top_k": 20, "top_p": 0.95, "transformers_version": "4.51.0"})", "{}");
    EXPECT_EQ(qwen3.sampling.temperature, 0.6f);
    EXPECT_EQ(qwen3.sampling.top_k, 20);
    EXPECT_EQ(qwen3.sampling.top_p, 0.95);
    EXPECT_EQ(qwen3.eos_token_ids, (std::vector<int64_t>{151645, 151643}));
    EXPECT_EQ(qwen3.pad_token_id, 151643);
    // meta-llama/Llama-3.2-1B-Instruct: no top_k, so GenerationConfig's 50.
    const GenerateOptions llama = generation_options_from_files(
        R"({"bos_token_id": 128000, "do_sample": true, "eos_token_id": [128001, 128008, 128009], "temperature": 0.6,
            "top_p": 0.9, "transformers_version": "4.45.0.dev0"})", "{}");
    EXPECT_EQ(llama.sampling.temperature, 0.6f);
    EXPECT_EQ(llama.sampling.top_k, 50);
    EXPECT_EQ(llama.sampling.top_p, 0.9);
    EXPECT_EQ(llama.eos_token_ids, (std::vector<int64_t>{128001, 128008, 128009}));
    // google/gemma-3-270m-it: unknown keys (cache_implementation) ignored; no temperature, so 1.
    const GenerateOptions gemma = generation_options_from_files(
        R"({"bos_token_id": 2, "cache_implementation": "hybrid", "do_sample": true, "eos_token_id": [1, 106],
            "pad_token_id": 0, "top_k": 64, "top_p": 0.95, "transformers_version": "4.55.0.dev0"})", "{}");
    EXPECT_EQ(gemma.sampling.temperature, 1.0f);
    EXPECT_EQ(gemma.sampling.top_k, 64);
    EXPECT_EQ(gemma.eos_token_ids, (std::vector<int64_t>{1, 106}));
    EXPECT_EQ(gemma.pad_token_id, 0);
    // Everything left out: transformers' defaults; null (None) turns top-k off, as its warper is then not made.
    const GenerateOptions bare = generation_options_from_files(R"({"do_sample": true})", "{}");
    EXPECT_EQ(bare.sampling.temperature, 1.0f);
    EXPECT_EQ(bare.sampling.top_k, 50);
    EXPECT_EQ(bare.sampling.top_p, 1.0);
    EXPECT_TRUE(bare.eos_token_ids.empty());
    EXPECT_EQ(generation_options_from_files(R"({"do_sample": true, "top_k": null, "top_p": null, "eos_token_id": null})", "{}").sampling.top_k, 0);
    // What the file does not set stays the base's (the command line's longer run and seed).
    GenerateOptions base;
    base.max_new_tokens = 200;
    base.seed = 1337;
    base.eos_token_ids = {5};
    const GenerateOptions over = generation_options_from_files(R"({"do_sample": true})", "{}", base);
    EXPECT_EQ(over.max_new_tokens, 200);
    EXPECT_EQ(over.seed, 1337);
    EXPECT_TRUE(over.eos_token_ids.empty());  // the file replaces the base's stop tokens, as transformers replaces the config
    // The config.json beside it is not read for stop tokens when the file exists.
    EXPECT_TRUE(generation_options_from_files(R"({})", R"({"eos_token_id": 3})").eos_token_ids.empty());
}

TEST(GenerationConfig, WithoutTheFileConfigJsonGivesTheStopTokensAndTheSamplingStaysTheLibrarys) {
    GenerateOptions base;  // nanoGPT's: temperature 1, every token
    const GenerateOptions smollm = generation_options_from_files(std::nullopt, R"({"model_type": "llama", "eos_token_id": 2, "pad_token_id": 2})", base);
    EXPECT_EQ(smollm.eos_token_ids, (std::vector<int64_t>{2}));
    EXPECT_EQ(smollm.pad_token_id, 2);
    EXPECT_EQ(smollm.sampling.temperature, 1.0f);
    EXPECT_EQ(smollm.sampling.top_k, 0);
    EXPECT_EQ(smollm.sampling.top_p, 1.0);
    EXPECT_EQ(generation_options_from_files(std::nullopt, R"({"eos_token_id": [128001, 128009]})").eos_token_ids,
              (std::vector<int64_t>{128001, 128009}));
    EXPECT_TRUE(generation_options_from_files(std::nullopt, R"({"eos_token_id": null})").eos_token_ids.empty());
    // A composite config (Gemma 3's multimodal one): its text model's, under text_config, for what the top leaves unset.
    const GenerateOptions gemma = generation_options_from_files(
        std::nullopt, R"({"model_type": "gemma3", "text_config": {"eos_token_id": [1, 106], "pad_token_id": 0}})");
    EXPECT_EQ(gemma.eos_token_ids, (std::vector<int64_t>{1, 106}));
    EXPECT_EQ(gemma.pad_token_id, 0);
    EXPECT_EQ(generation_options_from_files(std::nullopt, R"({"eos_token_id": 7, "text_config": {"eos_token_id": 1}})").eos_token_ids,
              (std::vector<int64_t>{7}));
}

TEST(GenerationConfig, WrongTypesAndValuesAreErrorsNamingTheFileAndTheKey) {
    // A file's fault: the kind of Error the JS API gives ERR_ATTN_INVALID_FILE.
    EXPECT_THROW(generation_options_from_files(R"({"top_k": "20"})", "{}"), FormatError);
    EXPECT_EQ(error_of(R"({"do_sample": true, "temperature": "hot"})"),
              "loadPretrained: generation_config.json's temperature: expected a number, got \"hot\"");
    EXPECT_EQ(error_of(R"({"do_sample": "yes"})"), "loadPretrained: generation_config.json's do_sample: expected true or false, got \"yes\"");
    EXPECT_EQ(error_of(R"({"eos_token_id": "</s>"})"),
              "loadPretrained: generation_config.json's eos_token_id: expected a token id (an integer >= 0) or a list of them, got \"</s>\"");
    EXPECT_EQ(error_of(R"({"eos_token_id": [1, -106]})"),
              "loadPretrained: generation_config.json's eos_token_id: expected a token id (an integer >= 0) or a list of them, got -106");
    EXPECT_EQ(error_of(R"({"top_k": 2.5})"), "loadPretrained: generation_config.json's top_k: expected an integer >= 0, got 2.5");
    EXPECT_EQ(error_of(R"({"top_p": 1.5})"), "loadPretrained: generation_config.json's top_p: expected a number in (0, 1], got 1.5");
    EXPECT_EQ(error_of(R"({"do_sample": true, "temperature": 0})"),
              "loadPretrained: generation_config.json's temperature: expected a number > 0 when do_sample is true (do_sample false is greedy), got 0");
    EXPECT_EQ(error_of(R"({"pad_token_id": [0]})"), "loadPretrained: generation_config.json's pad_token_id: expected a token id (an integer >= 0), got [0]");
    EXPECT_EQ(error_of(R"([1, 2])"), "loadPretrained: generation_config.json is not a JSON object");
    EXPECT_EQ(error_of(R"({"do_sample": tru)"), "loadPretrained: generation_config.json is not a JSON object");
    EXPECT_EQ(error_of(std::nullopt, R"({"eos_token_id": {"id": 2}})"),
              "loadPretrained: config.json's eos_token_id: expected a token id (an integer >= 0) or a list of them, got {\"id\":2}");
    EXPECT_EQ(error_of(std::nullopt, R"({"text_config": {"eos_token_id": true}})"),
              "loadPretrained: config.json's text_config's eos_token_id: expected a token id (an integer >= 0) or a list of them, got true");
}
