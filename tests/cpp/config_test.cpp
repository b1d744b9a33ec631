// The tables of named settings (config.hpp, generate.hpp): JSON, flags, help and messages.
#include "attn/config.hpp"
#include "attn/generate.hpp"
#include "fixtures.hpp"
#include "golden.hpp"

#include <algorithm>

using namespace attn;
using namespace fixtures;

TEST(Config, OneSchemaReadsWritesAndNamesEveryField) {
    GPTConfig c = GPTConfig::nanogpt(50, 32, 3, 2, 16, false, true);
    c.dropout = 0.25f;
    for (Naming n : {Naming::Snake, Naming::Camel, Naming::Flag}) {
        // Written and read back, in every spelling, the config is the same.
        const std::string text = to_json(c, n);
        EXPECT_EQ(to_json(gpt_config_from_json(text, n, "test"), n), text);
    }
    EXPECT_NE(to_json(c, Naming::Snake).find("\"n_embd\":16"), std::string::npos);
    EXPECT_NE(to_json(c, Naming::Camel).find("\"nEmbd\":16"), std::string::npos);
    EXPECT_EQ(error_of([] { gpt_config_from_json(R"({"nEmbed": 8})", Naming::Camel, "GPT"); }),
              "GPT: unknown config field \"nEmbed\"; did you mean \"nEmbd\"?");
    EXPECT_EQ(error_of([] { gpt_config_from_json(R"({"n_head": 2.5})", Naming::Snake, "f"); }),
              "f: expected n_head to be an integer in [1, 4096], got 2.5");
    EXPECT_EQ(error_of([] { gpt_config_from_json(R"({"dropout": 1})", Naming::Camel, "GPT"); }),
              "GPT: expected dropout to be a number in [0, 1), got 1");
    EXPECT_EQ(error_of([] { gpt_config_from_json(R"({"norm": "middle"})", Naming::Camel, "GPT"); }),
              "GPT: expected norm to be one of post|pre, got \"middle\"");
    EXPECT_EQ(error_of([] { train_config_from_json(R"({"decayLr": "no"})", Naming::Camel, "Trainer"); }),
              "Trainer: expected decayLr to be true or false, got \"no\"");
    TrainConfig t;
    set_field(t, "--learning-rate", "3e-3", Naming::Flag, "attn-train");
    set_field(t, "--decay-lr", "false", Naming::Flag, "attn-train");
    EXPECT_FLOAT_EQ(t.lr.learning_rate, 3e-3f);
    EXPECT_FALSE(t.lr.decay_lr);
    // nanoGPT's name is --learning-rate; with no name near, the message lists them.
    const std::string lr = error_of([&] { set_field(t, "--lr", "1", Naming::Flag, "attn-train"); });
    EXPECT_EQ(lr.rfind("attn-train: unknown flag \"--lr\"; expected one of ", 0), 0u) << lr;
    EXPECT_NE(lr.find("--learning-rate"), std::string::npos) << lr;
}

TEST(Config, GenerationOptionsAreOneTableForJsonFlagsAndHelp) {
    // The defaults, as the JS API's attn.defaultGenerateOptions() returns them.
    EXPECT_EQ(to_json(GenerateOptions{}, Naming::Camel),
              R"({"eosTokenId":[],"maxNewTokens":100,"padTokenId":null,"seed":null,"temperature":1.0,"topK":0,"topP":1.0,"useKvCache":true})");
    GenerateOptions o;
    o.max_new_tokens = 7;
    o.sampling.temperature = 0.8f;
    o.sampling.top_k = 3;
    o.seed = 42;
    o.use_kv_cache = false;
    o.sampling.top_p = 0.9;
    o.eos_token_ids = {2, 0};
    o.pad_token_id = 1;
    for (Naming n : {Naming::Snake, Naming::Camel, Naming::Flag}) {
        const std::string text = to_json(o, n);
        EXPECT_EQ(to_json(generate_options_from_json(text, n, "test"), n), text);
    }
    // A subset over the defaults; null unsets the seed.
    const GenerateOptions read = generate_options_from_json(R"({"topK": 5, "seed": null})", Naming::Camel, "generate", o);
    EXPECT_EQ(read.sampling.top_k, 5);
    EXPECT_FALSE(read.seed.has_value());
    EXPECT_EQ(read.max_new_tokens, 7);
    EXPECT_EQ(error_of([] { generate_options_from_json(R"({"topk": 5})", Naming::Camel, "generate"); }),
              "generate: unknown option \"topk\"; did you mean \"topK\"?");
    // transformers' snake_case names (generation_config.json's) find their camelCase.
    EXPECT_EQ(error_of([] { generate_options_from_json(R"({"top_p": 0.9})", Naming::Camel, "generate"); }),
              "generate: unknown option \"top_p\"; did you mean \"topP\"?");
    EXPECT_EQ(error_of([] { generate_options_from_json(R"({"max_new_tokens": 9})", Naming::Camel, "generate"); }),
              "generate: unknown option \"max_new_tokens\"; did you mean \"maxNewTokens\"?");
    const std::string sample = error_of([] { generate_options_from_json(R"({"do_sample": true})", Naming::Camel, "generate"); });
    EXPECT_EQ(sample.rfind("generate: unknown option \"do_sample\"; expected one of ", 0), 0u) << sample;
    EXPECT_NE(sample.find("topP"), std::string::npos) << sample;
    EXPECT_EQ(error_of([] { generate_options_from_json(R"({"temperature": -0.5})", Naming::Camel, "stream"); }),
              "stream: expected temperature to be a number >= 0, got -0.5");
    EXPECT_EQ(error_of([] { generate_options_from_json(R"({"seed": 1.5})", Naming::Camel, "generate"); }),
              "generate: expected seed to be an integer (or null), got 1.5");
    EXPECT_EQ(*generate_options_from_json(R"({"seed": -3})", Naming::Camel, "generate").seed, -3);  // wraps as in PyTorch
    EXPECT_EQ(error_of([] { generate_options_from_json("[1]", Naming::Camel, "generate"); }),
              "generate: expected options as a JSON object");
    // Flags, as attn-train generate takes them.
    GenerateOptions f;
    set_field(f, "--max-new-tokens", "12", Naming::Flag, "attn-train");
    set_field(f, "--seed", "null", Naming::Flag, "attn-train");
    set_field(f, "--use-kv-cache", "false", Naming::Flag, "attn-train");
    EXPECT_EQ(f.max_new_tokens, 12);
    EXPECT_FALSE(f.seed.has_value());
    EXPECT_FALSE(f.use_kv_cache);
    EXPECT_EQ(error_of([&] { set_field(f, "--top-k", "-1", Naming::Flag, "attn-train"); }),
              "attn-train: expected --top-k to be an integer >= 0, got -1");
    // A struct built in C++ is held to the same limits.
    GenerateOptions bad;
    bad.sampling.temperature = -1.0f;
    EXPECT_EQ(error_of([&] { bad.validate("generate"); }), "generate: expected temperature to be a number >= 0, got -1");
}

TEST(Config, HelpListsEachFieldWithItsValueAsWritten) {
    GenerateOptions o;
    o.sampling.temperature = 0.8f;
    const std::vector<FieldInfo> info = fields(o, Naming::Flag);
    ASSERT_EQ(info.size(), 8u);
    EXPECT_EQ(info[1].name, "--temperature");
    EXPECT_EQ(info[1].kind, "number");
    EXPECT_EQ(info[1].value, "0.8");  // the float's shortest form, not 0.800000011920929
    EXPECT_EQ(info[5].kind, "true|false");
    EXPECT_EQ(info[6].name, "--eos-token-id");  // a list: as the command line takes it
    EXPECT_EQ(info[6].kind, "integers");
    EXPECT_EQ(info[6].value, "none");
    o.eos_token_ids = {1, 106};
    EXPECT_EQ(fields(o, Naming::Flag)[6].value, "1,106");
    const std::vector<FieldInfo> training = fields(TrainConfig{}, Naming::Camel);
    const auto decay = std::find_if(training.begin(), training.end(), [](const FieldInfo& f) { return f.name == "weightDecay"; });
    ASSERT_NE(decay, training.end());
    EXPECT_EQ(decay->value, "0.1");
    EXPECT_EQ(fields(GPTConfig{}, Naming::Snake).front().name, "vocab_size");
}

TEST(Config, HeadsMustDivideTheWidthNamedAsTheCallerNamesThem) {
    GPTConfig c = tiny();
    c.n_head = 3;
    EXPECT_EQ(error_of([&] { c.validate("GPT", Naming::Camel); }), "GPT: nEmbd must be divisible by nHead, got nEmbd=16 and nHead=3");
    EXPECT_EQ(error_of([&] { c.validate("attn-train", Naming::Flag); }),
              "attn-train: --n-embd must be divisible by --n-head, got --n-embd=16 and --n-head=3");
    EXPECT_EQ(error_of([] { GPTConfig::notebook001(10, 8, 3, 16, 6, "notebook001Config"); }),
              "notebook001Config: d_model must be divisible by num_heads, got d_model=8 and num_heads=3");
    // A valid config passes, and the notebook's example is one.
    EXPECT_EQ(error_of([] { GPTConfig::notebook001(1000, 64, 8, 256, 50).validate(); }), "no error");
}
