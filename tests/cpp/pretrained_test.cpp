// load_pretrained (pretrained.hpp) on Hugging Face folders built here from a model of this library: GPT-2's names,
// Conv1D weights stored (in, out), a character-level or a byte-level BPE tokenizer. (The numbers of folders that
// PyTorch wrote are checked against PyTorch in tests/js/pretrained.test.js.)
#include "attn/pretrained.hpp"
#include "fixtures.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <unistd.h>

#include <cstring>
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

// Gemma 3's tokenizer holds 262,145 tokens for an embedding of 262,144 rows, and its folder was refused whole. A
// tokenizer may be larger than the embedding; an id past it is named when a text gives one, by the model.
TEST(LoadPretrained, ATokenizerLargerThanTheEmbeddingWasRefused) {
    GPT model(gpt2_shaped(5));
    auto files = hugging_face_files(model);
    files["tokenizer.json"] = character_tokenizer("abcdefg");
    const Pretrained loaded = load_pretrained(files);
    const auto& tokenizer = std::get<Tokenizer>(loaded.tokenizer);
    EXPECT_EQ(tokenizer.vocab_size(), 7);
    EXPECT_EQ(logits_of(loaded.model), logits_of(model));
    EXPECT_EQ(error_of([&] { loaded.model.forward(tokenizer.encode("ag"), 1); }),
              "GPT.forward: expected token ids in [0, 5), got 6 at index 1");
}

TEST(LoadPretrained, WhatIsMissingOrWrongIsNamed) {
    GPT model(gpt2_shaped(5));
    auto files = hugging_face_files(model);
    EXPECT_EQ(error_of([&] { load_pretrained(files); }),
              "loadPretrained: the model folder has no tokenizer: expected tokenizer.json, or vocab.json and merges.txt; it holds config.json, model.safetensors");
    files["tokenizer.json"] = R"({"model": {"type": "WordLevel", "vocab": {"ab": 0}}})";
    EXPECT_EQ(error_of([&] { load_pretrained(files); }),
              "loadPretrained: tokenizer.json is a WordLevel vocabulary but not one of single characters with ids 0 to 0 (at \"ab\": 0); this library reads character-level and BPE tokenizers");
    files["tokenizer.json"] = character_tokenizer("abcde");
    files.erase("model.safetensors");
    files["pytorch_model.bin"] = "PK";
    EXPECT_EQ(error_of([&] { load_pretrained(files); }),
              "loadPretrained: the model folder has pytorch_model.bin but no model.safetensors; this library reads safetensors (convert with transformers: model.save_pretrained(folder, safe_serialization=True))");
    EXPECT_EQ(error_of([] { load_pretrained(std::string("/nonexistent/folder")); }).rfind("loadPretrained: could not read the model folder /nonexistent/folder: ", 0), 0u);
}

namespace {
// A safetensors file of F32 tensors, by name.
std::string safetensors_file(const std::map<std::string, Tensor>& tensors) {
    nlohmann::json header = nlohmann::json::object();
    std::string data;
    for (const auto& [name, t] : tensors) {
        header[name] = {{"dtype", "F32"}, {"shape", t.shape}, {"data_offsets", {data.size(), data.size() + 4 * t.data.size()}}};
        data.append(reinterpret_cast<const char*>(t.data.data()), 4 * t.data.size());
    }
    const std::string text = header.dump();
    std::string file(8, '\0');
    for (int i = 0; i < 8; ++i) file[static_cast<size_t>(i)] = static_cast<char>((text.size() >> (8 * i)) & 0xFF);
    return file + text + data;
}

// Rows [begin, begin + n) of a (rows, cols) tensor, or elements of a vector.
Tensor rows(const Tensor& t, int64_t begin, int64_t n) {
    const int64_t cols = t.dim() == 2 ? t.shape[1] : 1;
    Shape shape = t.dim() == 2 ? Shape{n, cols} : Shape{n};
    return Tensor(shape, std::vector<float>(t.data.begin() + begin * cols, t.data.begin() + (begin + n) * cols));
}

// A Llama-shaped model of this library as LlamaForCausalLM.save_pretrained writes it, in `shards` files listed by
// model.safetensors.index.json: q_proj, k_proj and v_proj are the rows of the one q/k/v projection.
std::map<std::string, std::string> llama_files(const GPT& m, int shards) {
    const GPTConfig& c = m.config();
    const int64_t HD = c.q_width(), KD = c.kv_width();
    std::map<std::string, Tensor> t;
    t["model.embed_tokens.weight"] = m.wte;
    for (int64_t l = 0; l < c.n_layer; ++l) {
        const GPTBlock& b = m.h[static_cast<size_t>(l)];
        const std::string p = "model.layers." + std::to_string(l) + ".";
        t[p + "input_layernorm.weight"] = b.ln_1_weight;
        t[p + "self_attn.q_proj.weight"] = rows(b.attn_c_attn_weight, 0, HD);
        t[p + "self_attn.k_proj.weight"] = rows(b.attn_c_attn_weight, HD, KD);
        t[p + "self_attn.v_proj.weight"] = rows(b.attn_c_attn_weight, HD + KD, KD);
        t[p + "self_attn.o_proj.weight"] = b.attn_c_proj_weight;
        t[p + "post_attention_layernorm.weight"] = b.ln_2_weight;
        t[p + "mlp.gate_proj.weight"] = b.mlp_c_gate_weight;
        t[p + "mlp.up_proj.weight"] = b.mlp_c_fc_weight;
        t[p + "mlp.down_proj.weight"] = b.mlp_c_proj_weight;
    }
    t["model.norm.weight"] = m.ln_f_weight;
    std::map<std::string, std::string> files;
    nlohmann::json weight_map = nlohmann::json::object();
    std::vector<std::map<std::string, Tensor>> parts(static_cast<size_t>(shards));
    int k = 0;
    for (const auto& [name, tensor] : t) {
        const std::string file = "model-0000" + std::to_string(k % shards + 1) + "-of-0000" + std::to_string(shards) + ".safetensors";
        parts[static_cast<size_t>(k % shards)][name] = tensor;
        weight_map[name] = file;
        ++k;
    }
    for (int s = 0; s < shards; ++s) {
        files["model-0000" + std::to_string(s + 1) + "-of-0000" + std::to_string(shards) + ".safetensors"] = safetensors_file(parts[static_cast<size_t>(s)]);
    }
    files["model.safetensors.index.json"] = nlohmann::json{{"metadata", {{"total_size", 0}}}, {"weight_map", weight_map}}.dump();
    files["config.json"] = nlohmann::json{{"model_type", "llama"}, {"vocab_size", c.vocab_size}, {"hidden_size", c.n_embd},
                                          {"intermediate_size", c.n_inner}, {"num_hidden_layers", c.n_layer},
                                          {"num_attention_heads", c.n_head}, {"num_key_value_heads", c.n_kv_head},
                                          {"head_dim", c.head_dim}, {"max_position_embeddings", c.block_size},
                                          {"rms_norm_eps", c.layer_norm_epsilon}, {"rope_theta", c.rope_theta},
                                          {"tie_word_embeddings", true}, {"hidden_act", "silu"}}.dump();
    files["tokenizer.json"] = character_tokenizer("abcde");
    return files;
}

GPTConfig llama_shaped() {
    GPTConfig c;
    c.vocab_size = 5;
    c.n_embd = 16;
    c.n_head = 4;
    c.n_kv_head = 2;
    c.head_dim = 6;
    c.n_layer = 2;
    c.n_inner = 24;
    c.block_size = 32;
    c.norm_type = NormType::RMSNorm;
    c.positions = Positions::Rope;
    c.gated_mlp = true;
    c.activation = Activation::SiLU;
    c.attention_bias = c.bias = false;
    c.tie_embeddings = true;
    c.layer_norm_epsilon = 1e-6f;
    return c;
}
}  // namespace

TEST(LoadPretrained, ALlamaFolderInShardsComputesWhatTheModelDid) {
    GPT model(llama_shaped());
    Generator gen(5);
    for (auto& [name, t] : model.named_parameters()) {  // norms away from 1, so that a misplaced one shows
        if (name.find("ln_") != std::string::npos) for (float& x : t->data) x += 0.3f * static_cast<float>(gen.normal_double());
    }
    const Pretrained loaded = load_pretrained(llama_files(model, 3));
    EXPECT_EQ(logits_of(loaded.model), logits_of(model));
    EXPECT_EQ(loaded.model.config().n_kv_head, 2);
    EXPECT_EQ(loaded.model.config().head_dim, 6);
}

TEST(LoadPretrained, AShardIndexThatIsWrongIsNamed) {
    GPT model(llama_shaped());
    auto files = llama_files(model, 2);
    auto without = files;
    without.erase("model-00002-of-00002.safetensors");
    EXPECT_NE(error_of([&] { load_pretrained(without); }).find("lists model-00002-of-00002.safetensors, which the model folder does not hold"), std::string::npos) << error_of([&] { load_pretrained(without); });
    auto twice = files;
    twice["model-00002-of-00002.safetensors"] = twice["model-00001-of-00002.safetensors"];
    EXPECT_NE(error_of([&] { load_pretrained(twice); }).find("is listed twice"), std::string::npos) << error_of([&] { load_pretrained(twice); });
    auto outside = files;
    outside["model.safetensors.index.json"] = R"({"weight_map": {"model.norm.weight": "../model.safetensors"}})";
    EXPECT_NE(error_of([&] { load_pretrained(outside); }).find("expected the name of a file in the model folder"), std::string::npos) << error_of([&] { load_pretrained(outside); });
    // The index's tensor-to-shard map is held to the shards: an entry no shard holds, and one in the other shard.
    const auto with_entry = [&](const std::string& tensor, const std::string& file) {
        auto changed = files;
        nlohmann::json index = nlohmann::json::parse(changed["model.safetensors.index.json"]);
        index["weight_map"][tensor] = file;
        changed["model.safetensors.index.json"] = index.dump();
        return error_of([&] { load_pretrained(changed); });
    };
    EXPECT_EQ(with_entry("model.layers.7.mlp.up_proj.weight", "model-00001-of-00002.safetensors"),
              "loadPretrained: model.safetensors.index.json puts tensor \"model.layers.7.mlp.up_proj.weight\" in "
              "model-00001-of-00002.safetensors, but no shard holds it");
    EXPECT_EQ(with_entry("model.norm.weight", "model-00001-of-00002.safetensors"),
              "loadPretrained: model.safetensors.index.json puts tensor \"model.norm.weight\" in "
              "model-00001-of-00002.safetensors, but model-00002-of-00002.safetensors holds it");
    // A loader given the shards in another order than the index lists them (or not all of them) says so.
    const auto header_of = [&](const std::string& name) {
        const std::string& bytes = files.at(name);
        const uint64_t n = PretrainedLoader::header_length(bytes.substr(0, 8), bytes.size(), name);
        return SafetensorsHeader{name, bytes.substr(8, static_cast<size_t>(n)), bytes.size()};
    };
    const std::string first = "model-00001-of-00002.safetensors", second = "model-00002-of-00002.safetensors";
    EXPECT_EQ(error_of([&] {
                  PretrainedLoader(files.at("config.json"), {header_of(second), header_of(first)}, files.at("model.safetensors.index.json"));
              }),
              "loadPretrained: model.safetensors.index.json lists the shards " + first + ", " + second + "; the files given are " +
                  second + ", " + first);
    auto none = files;
    none.erase("model.safetensors.index.json");
    EXPECT_NE(error_of([&] { load_pretrained(none); }).find("has no model.safetensors (the weights, or model.safetensors.index.json and its shards)"), std::string::npos) << error_of([&] { load_pretrained(none); });
}

// A model whose matrices are kept in bfloat16 computes what the same values in float32 compute (widening is exact),
// and refuses to train: backward would have no float32 weights to update.
TEST(LoadPretrained, SixteenBitWeightsComputeTheirFloatValuesAndRefuseTraining) {
    GPT wide(llama_shaped());
    GPT narrow = GPT::zeros(llama_shaped(), [](const std::string&) { return Half::BF16; });
    auto w = wide.named_parameters();
    auto n = narrow.named_parameters();
    ASSERT_EQ(w.size(), n.size());
    for (size_t i = 0; i < w.size(); ++i) {
        Tensor& t = *w[i].second;
        if (!n[i].second->is_half()) {
            n[i].second->data = t.data;
            continue;
        }
        for (size_t k = 0; k < t.data.size(); ++k) {  // round each weight to bfloat16, in both models
            uint32_t bits;
            std::memcpy(&bits, &t.data[k], 4);
            n[i].second->half[k] = static_cast<uint16_t>(bits >> 16);
            t.data[k] = widen(n[i].second->half[k], Half::BF16);
        }
    }
    EXPECT_TRUE(narrow.has_half_weights());
    EXPECT_EQ(narrow.num_parameters(false), wide.num_parameters(false));
    const std::vector<float> a = logits_of(wide), b = logits_of(narrow);
    for (size_t k = 0; k < a.size(); ++k) EXPECT_NEAR(a[k], b[k], 1e-5f) << k;
    GPTActivations acts;
    EXPECT_NE(error_of([&] { narrow.forward_train({1, 2}, 1, acts, nullptr); }).find("GPT.forwardTrain: the model's weights are kept in 16 bits"),
              std::string::npos);
}

// What a fine-tuning run saves (pretrained_weights_file) loads back as the same model, in both layouts: GPT-2's
// Conv1D weights transposed back to (in, out), and Llama's q/k/v rows split into q_proj, k_proj and v_proj
// (shards read, one file written). Values are float32, so the logits are bit for bit the same.
TEST(LoadPretrained, ASavedModelLoadsBackBitForBit) {
    GPT gpt2(gpt2_shaped(5));
    auto gpt2_folder = hugging_face_files(gpt2);
    gpt2_folder["tokenizer.json"] = character_tokenizer("abcde");
    GPT llama(llama_shaped());
    for (auto files : {gpt2_folder, llama_files(llama, 3)}) {
        const Pretrained loaded = load_pretrained(files);
        std::map<std::string, std::string> saved = {{"config.json", files.at("config.json")},
                                                    {"tokenizer.json", files.at("tokenizer.json")},
                                                    {"model.safetensors", pretrained_weights_file(loaded.model, files.at("config.json"))}};
        const Pretrained again = load_pretrained(saved);
        EXPECT_EQ(logits_of(again.model), logits_of(loaded.model));
    }
    // A config.json of other shapes is refused, not written beside weights it does not describe.
    const std::string other = llama_files(llama, 1).at("config.json");
    EXPECT_EQ(error_of([&] { pretrained_weights_file(gpt2, other); }),
              "loadPretrained: config.json describes a model of other shapes than the one to save");
}
