// load_pretrained (pretrained.hpp) on Hugging Face folders built here from a model of this library: GPT-2's names,
// Conv1D weights stored (in, out), a character-level or a byte-level BPE tokenizer. (The numbers of folders that
// PyTorch wrote are checked against PyTorch in tests/js/pretrained.test.js.)
#include "attn/pretrained.hpp"
#include "fixtures.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <unistd.h>

#include <filesystem>
#include <fstream>

using namespace attn;
using fixtures::error_of;
using fixtures::spelled;
using fixtures::transposed;

namespace {
// A GPT-2-shaped model (pre-norm, biases, GELU-tanh, tied head) of this library, with random weights.
GPTConfig gpt2_shaped(int64_t vocab) {
    GPTConfig c = GPTConfig::nanogpt(vocab, 16, 2, 2, 8, true, true);
    c.activation = Activation::GELUTanh;
    return c;
}

// The model as GPT2LMHeadModel.save_pretrained writes it: config.json and model.safetensors (F32).
std::map<std::string, std::string> hugging_face_files(const GPT& model) {
    const GPTConfig& c = model.config();
    std::map<std::string, std::string> files;
    files["config.json"] = nlohmann::json{{"model_type", "gpt2"}, {"vocab_size", c.vocab_size}, {"n_embd", c.n_embd},
                                          {"n_layer", c.n_layer}, {"n_head", c.n_head}, {"n_positions", c.block_size},
                                          {"activation_function", "gelu_new"}}.dump();
    nlohmann::json header = nlohmann::json::object();
    std::string data;
    for (const auto& [name, t] : model.named_parameters()) {
        const bool conv1d = name.find(".attn.c_") != std::string::npos || name.find(".mlp.c_") != std::string::npos;
        const Tensor stored = conv1d && t->dim() == 2 ? transposed(*t) : *t;  // (out, in) here, (in, out) in the file
        header[name] = {{"dtype", "F32"}, {"shape", stored.shape}, {"data_offsets", {data.size(), data.size() + 4 * stored.data.size()}}};
        data.append(reinterpret_cast<const char*>(stored.data.data()), 4 * stored.data.size());
    }
    const std::string text = header.dump();
    std::string file(8, '\0');
    for (int i = 0; i < 8; ++i) file[static_cast<size_t>(i)] = static_cast<char>((text.size() >> (8 * i)) & 0xFF);
    files["model.safetensors"] = file + text + data;
    return files;
}

// A character-level tokenizer.json, as tools/nanogpt_to_hf.py writes one.
std::string character_tokenizer(const std::string& chars) {
    nlohmann::json vocab = nlohmann::json::object();
    for (size_t i = 0; i < chars.size(); ++i) vocab[std::string(1, chars[i])] = i;
    return nlohmann::json{{"model", {{"type", "WordLevel"}, {"vocab", vocab}}}}.dump();
}

std::vector<float> logits_of(const GPT& model) { return model.forward({1, 2, 3, 0}, 1).data; }
}  // namespace

TEST(LoadPretrained, AFolderInOneCallComputesWhatTheModelDid) {
    GPT model(gpt2_shaped(5));
    auto files = hugging_face_files(model);
    files["tokenizer.json"] = character_tokenizer("abcde");
    const Pretrained loaded = load_pretrained(files);
    EXPECT_EQ(logits_of(loaded.model), logits_of(model));  // the Conv1D weights went back to (out, in)
    ASSERT_TRUE(std::holds_alternative<Tokenizer>(loaded.tokenizer));
    EXPECT_EQ(std::get<Tokenizer>(loaded.tokenizer).encode("cab"), (std::vector<int64_t>{2, 0, 1}));

    // From a folder on disk, the same.
    const std::filesystem::path dir = std::filesystem::temp_directory_path() / ("attn-pretrained-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    for (const auto& [name, bytes] : files) std::ofstream(dir / name, std::ios::binary) << bytes;
    const Pretrained from_disk = load_pretrained(dir.string());
    EXPECT_EQ(logits_of(from_disk.model), logits_of(model));
    std::filesystem::remove_all(dir);
}

TEST(LoadPretrained, GPT2sTwoTokenizerFilesGiveTheBpe) {
    GPT model(gpt2_shaped(300));
    auto files = hugging_face_files(model);
    nlohmann::json vocab = nlohmann::json::object();
    for (int b = 0; b < 256; ++b) vocab[spelled(std::string(1, static_cast<char>(b)))] = b;
    vocab[spelled(" c")] = 256;
    files["vocab.json"] = vocab.dump();
    files["merges.txt"] = "#version: 0.2\n" + spelled(" ") + " c\n";
    const Pretrained loaded = load_pretrained(files);
    ASSERT_TRUE(std::holds_alternative<BPETokenizer>(loaded.tokenizer));
    EXPECT_EQ(std::get<BPETokenizer>(loaded.tokenizer).encode("a c"), (std::vector<int64_t>{'a', 256}));
    EXPECT_EQ(logits_of(loaded.model), logits_of(model));
}

TEST(LoadPretrained, WhatIsMissingOrWrongIsNamed) {
    GPT model(gpt2_shaped(5));
    auto files = hugging_face_files(model);
    EXPECT_EQ(error_of([&] { load_pretrained(files); }),
              "loadPretrained: the model folder has no tokenizer: expected tokenizer.json, or vocab.json and merges.txt; it holds config.json, model.safetensors");
    files["tokenizer.json"] = character_tokenizer("abcdefg");
    EXPECT_EQ(error_of([&] { load_pretrained(files); }), "loadPretrained: the tokenizer has 7 tokens, more than config.json's vocab_size 5");
    files["tokenizer.json"] = R"({"model": {"type": "WordLevel", "vocab": {"ab": 0}}})";
    EXPECT_EQ(error_of([&] { load_pretrained(files); }),
              "loadPretrained: tokenizer.json is a WordLevel vocabulary but not one of single characters with ids 0 to 0 (at \"ab\": 0); this library reads character-level and GPT-2 BPE tokenizers");
    files["tokenizer.json"] = character_tokenizer("abcde");
    files.erase("model.safetensors");
    files["pytorch_model.bin"] = "PK";
    EXPECT_EQ(error_of([&] { load_pretrained(files); }),
              "loadPretrained: the model folder has pytorch_model.bin but no model.safetensors; this library reads safetensors (convert with transformers: model.save_pretrained(folder, safe_serialization=True))");
    EXPECT_EQ(error_of([] { load_pretrained(std::string("/nonexistent/folder")); }).rfind("loadPretrained: could not read the model folder /nonexistent/folder: ", 0), 0u);
}
