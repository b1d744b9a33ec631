// The library against real PyTorch: tests/golden/{notebooks,modules,models}.json,
// written by tools/make_golden.py from PyTorch's own modules. Nothing here is
// checked against a formula written in a test.
#include "attn/adamw.hpp"
#include "attn/cross_entropy.hpp"
#include "attn/embedding.hpp"
#include "attn/generate.hpp"
#include "attn/gpt.hpp"
#include "attn/layer_norm.hpp"
#include "attn/linear.hpp"
#include "attn/multi_head_attention.hpp"
#include "attn/scaled_dot_product_attention.hpp"
#include "attn/softmax.hpp"
#include "attn/tokenizer.hpp"
#include "attn/trainer.hpp"
#include "golden.hpp"

#include <cmath>

using namespace attn;
using golden::near;
using golden::tensor;
using nlohmann::json;

namespace {
const json& modules() { return golden::file("modules.json"); }
const json& models() { return golden::file("models.json"); }

std::vector<int64_t> ids_of(const json& j) { return j.at("data").get<std::vector<int64_t>>(); }

// Within 1e-5 + 1e-3 relative: gradients span several orders of magnitude.
::testing::AssertionResult close(const Tensor& actual, const Tensor& expected) {
    if (actual.shape != expected.shape) return ::testing::AssertionFailure() << "shape " << shape_str(actual.shape);
    for (int64_t i = 0; i < actual.numel(); ++i) {
        if (!(std::fabs(actual[i] - expected[i]) <= 1e-5f + 1e-3f * std::fabs(expected[i]))) {
            return ::testing::AssertionFailure() << "element " << i << ": " << actual[i] << " vs " << expected[i];
        }
    }
    return ::testing::AssertionSuccess();
}

GPTConfig nanogpt_config(const json& c) {
    GPTConfig config = GPTConfig::nanogpt(c.at("vocab_size"), c.at("block_size"), c.at("n_layer"), c.at("n_head"),
                                          c.at("n_embd"), c.at("bias"), c.at("tie"));
    config.seed = c.at("seed");
    return config;
}
}  // namespace

TEST(PyTorchGolden, SoftmaxAndNormalisationAlongEveryDim) {
    const json& c = modules().at("along_dim");
    const Tensor x = tensor(c.at("x")), positive = tensor(c.at("positive"));
    for (const int64_t dim : {0, 1, 2, -1, -2, -3}) {
        const std::string d = std::to_string(dim);
        EXPECT_TRUE(near(softmax(x, dim), tensor(c.at("softmax").at(d)), 1e-6f)) << "dim " << d;
        EXPECT_TRUE(near(softmax_naive(x, dim), tensor(c.at("softmax_naive").at(d)), 1e-6f)) << "dim " << d;
        EXPECT_TRUE(near(normalize_sum(positive, dim), tensor(c.at("normalize_sum").at(d)), 1e-6f)) << "dim " << d;
    }
    const auto message = [](auto call) {
        try {
            call();
        } catch (const Error& e) {
            return std::string(e.what());
        }
        return std::string("no error");
    };
    EXPECT_EQ(message([&] { softmax(x, 3); }), "softmax: expected dim in [-3, 2] for a 3-D tensor, got 3");
    EXPECT_EQ(message([&] { normalize_sum(Tensor({2, 0, 3}), -2); }),
              "normalizeSum: expected scores with no dimension of size 0, got shape [2, 0, 3]");
}

TEST(PyTorchGolden, NotebookTranscriptionAgreesWithPyTorch) {
    // The printed values round PyTorch's to 4 decimals.
    int checked = 0;
    for (const auto& [key, e] : golden::file("notebooks.json").items()) {
        if (!e.is_object()) continue;
        const auto data = e.at("data").get<std::vector<float>>(), printed = e.at("printed").get<std::vector<float>>();
        ASSERT_EQ(data.size(), printed.size()) << key;
        for (size_t i = 0; i < data.size(); ++i) EXPECT_NEAR(printed[i], data[i], 5.01e-5) << key << "[" << i << "]";
        ++checked;
    }
    EXPECT_EQ(checked, 39);
}

TEST(PyTorchGolden, LinearEmbeddingLayerNorm) {
    const json& m = modules();
    manual_seed(m.at("linear").at("seed"));
    const Linear linear(4, 3);
    EXPECT_TRUE(near(linear.weight, tensor(m.at("linear").at("weight")), 1e-7f));
    EXPECT_TRUE(near(linear.bias, tensor(m.at("linear").at("bias")), 1e-7f));
    EXPECT_TRUE(near(linear.forward(tensor(m.at("linear").at("x"))), tensor(m.at("linear").at("y")), 1e-6f));

    manual_seed(m.at("embedding").at("seed"));
    const Embedding embedding(5, 3);
    EXPECT_TRUE(near(embedding.weight, tensor(m.at("embedding").at("weight")), 1e-7f));
    EXPECT_TRUE(near(embedding.forward(ids_of(m.at("embedding").at("ids")), {2, 3}), tensor(m.at("embedding").at("y")), 0.0f));

    LayerNorm norm(4);
    norm.weight = tensor(m.at("layer_norm").at("weight"));
    norm.bias = tensor(m.at("layer_norm").at("bias"));
    EXPECT_TRUE(near(norm.forward(tensor(m.at("layer_norm").at("x"))), tensor(m.at("layer_norm").at("y")), 2e-6f));
}

TEST(PyTorchGolden, ScaledDotProductAttentionWithMasks) {
    const json& c = modules().at("sdpa");
    const Tensor q = tensor(c.at("query")), k = tensor(c.at("key")), v = tensor(c.at("value"));
    AttentionOptions causal;
    causal.causal = true;
    AttentionOptions mask;
    mask.mask = tensor(c.at("mask_pattern"));
    AttentionOptions padding;  // (B, 1, T_k) lengths [4, 2], causal, notebook 001's -1e9
    padding.key_lengths = c.at("key_lengths").get<std::vector<int64_t>>();
    padding.causal = true;
    padding.fill_value = -1e9f;
    for (const auto& [name, options] : std::vector<std::pair<std::string, AttentionOptions>>{
             {"plain", {}}, {"causal", causal}, {"masked", mask}, {"padding_causal_1e9", padding}}) {
        const json& e = c.at(name);
        const AttentionTrace t = scaled_dot_product_attention(q, k, v, options);
        EXPECT_TRUE(near(t.scores, tensor(e.at("scores")), 1e-6f)) << name;
        EXPECT_TRUE(near(t.scaled_scores, tensor(e.at("scaled_scores")), 1e-6f)) << name;
        EXPECT_TRUE(near(t.weights, tensor(e.at("weights")), 1e-6f)) << name;
        EXPECT_TRUE(near(t.output, tensor(e.at("output")), 1e-6f)) << name;
        if (e.contains("masked_scores")) EXPECT_TRUE(near(t.masked_scores, tensor(e.at("masked_scores")), 1e-6f)) << name;
    }
}

TEST(PyTorchGolden, MultiHeadAttentionAppliesA3DMaskPerBatchRowLikeNotebook001) {
    // Regression: a (B, T, T) mask was broadcast against the heads, silently
    // wrong when B = num_heads (here both are 2), where notebook 001's
    // mask.unsqueeze(1) applies it per batch row.
    const json& c = modules().at("notebook001_mha");
    manual_seed(c.at("seed"));
    const MultiHeadAttention mha(c.at("d_model"), c.at("num_heads"));
    for (const char* w : {"W_q", "W_k", "W_v", "W_o"}) {
        const Linear& layer = std::string(w) == "W_q" ? mha.W_q : std::string(w) == "W_k" ? mha.W_k : std::string(w) == "W_v" ? mha.W_v : mha.W_o;
        EXPECT_TRUE(near(layer.weight, tensor(c.at(w)), 1e-7f)) << w;
    }
    for (const auto& [name, mask] : {std::pair{"causal", "causal_mask"}, std::pair{"per_row", "per_row_mask"}}) {
        AttentionOptions o;
        o.mask = tensor(c.at(mask));
        o.fill_value = -1e9f;
        const MultiHeadAttentionTrace t = mha.forward(tensor(c.at("x")), o);
        EXPECT_TRUE(near(t.output, tensor(c.at(name).at("output")), 1e-6f)) << name;
        EXPECT_TRUE(near(t.weights, tensor(c.at(name).at("weights")), 1e-6f)) << name;
    }
}

TEST(PyTorchGolden, TorchMultiheadAttentionTakesAttnMaskShapesAndKeyPadding) {
    const json& c = modules().at("torch_mha");
    manual_seed(c.at("seed"));
    const TorchMultiheadAttention mha(c.at("embed_dim"), c.at("num_heads"));
    EXPECT_TRUE(near(mha.in_proj_weight, tensor(c.at("in_proj_weight")), 1e-7f));
    EXPECT_TRUE(near(mha.in_proj_bias, tensor(c.at("in_proj_bias")), 0.0f));
    EXPECT_TRUE(near(mha.out_proj.weight, tensor(c.at("out_proj_weight")), 1e-7f));
    const Tensor q = tensor(c.at("query")), kv = tensor(c.at("key"));
    Tensor tril2({3, 5});  // attend to keys j <= i + 2
    for (int64_t i = 0; i < 3; ++i)
        for (int64_t j = 0; j <= i + 2; ++j) tril2.at(i, j) = 1;
    AttentionOptions two_d, three_d, padding;
    two_d.mask = tril2;
    three_d.mask = tensor(c.at("heads_mask_attend"));  // (B·H, T_q, T_k)
    padding.key_lengths = c.at("key_lengths").get<std::vector<int64_t>>();
    for (const auto& [name, options] : std::vector<std::pair<std::string, AttentionOptions>>{
             {"plain", {}}, {"attn_mask_2d", two_d}, {"attn_mask_3d", three_d}, {"key_padding", padding}}) {
        const MultiHeadAttentionTrace t = mha.forward(q, kv, kv, options);
        EXPECT_TRUE(near(t.output, tensor(c.at(name).at("output")), 1e-6f)) << name;
        EXPECT_TRUE(near(t.average_weights, tensor(c.at(name).at("average_weights")), 1e-6f)) << name;
    }
    AttentionOptions wrong;
    wrong.mask = Tensor({3, 3, 5});
    EXPECT_THROW(mha.forward(q, kv, kv, wrong), Error);  // neither (T_q, T_k) nor (B·H, T_q, T_k)
}

TEST(PyTorchGolden, Notebook001SimpleLanguageModel) {
    const json& c = models().at("notebook001");
    GPTConfig config = GPTConfig::notebook001(c.at("vocab_size"), c.at("d_model"), c.at("num_heads"), c.at("d_ff"),
                                              c.at("max_seq_length"));
    config.seed = c.at("seed");
    const GPT model(config);
    EXPECT_TRUE(near(model.forward(ids_of(c.at("ids")), 2), tensor(c.at("logits")), 2e-6f));
}

TEST(PyTorchGolden, NanoGPTParametersLogitsLossAndEveryGradient) {
    for (const auto& [variant, c] : models().at("nanogpt").items()) {
        const GPT model(nanogpt_config(c.at("config")));
        const auto params = model.named_parameters();
        ASSERT_EQ(params.size(), c.at("parameters").size()) << variant;
        for (const auto& [name, p] : params) EXPECT_TRUE(near(*p, tensor(c.at("parameters").at(name)), 1e-7f)) << variant << " " << name;

        const std::vector<int64_t> ids = ids_of(c.at("ids")), targets = ids_of(c.at("targets"));
        const Tensor logits = model.forward(ids, 2);
        EXPECT_TRUE(near(logits, tensor(c.at("logits")), 1e-6f)) << variant;
        GPTActivations acts;
        const Tensor train_logits = model.forward_train(ids, 2, acts, nullptr);
        std::vector<float> dlogits(train_logits.data.size());
        const int64_t V = model.config().vocab_size;
        const float loss = cross_entropy_forward_backward(train_logits.data.data(), targets.data(), 16, V, dlogits.data());
        EXPECT_NEAR(loss, c.at("loss").get<float>(), 1e-6) << variant;
        GPT grads = model.zeros_like();
        model.backward(acts, dlogits.data(), grads);
        for (const auto& [name, g] : grads.named_parameters()) EXPECT_TRUE(close(*g, tensor(c.at("gradients").at(name)))) << variant << " " << name;
    }
}

TEST(PyTorchGolden, FiveStepsOfNanoGPTsTrainPy) {
    const json& c = models().at("train");
    const json& m = c.at("model");
    const std::string text = c.at("text");
    GPTConfig model = GPTConfig::nanogpt(0, m.at("block_size"), m.at("n_layer"), m.at("n_head"), m.at("n_embd"), m.at("bias"), m.at("tie"));
    TrainConfig t;
    t.batch_size = c.at("batch_size");
    t.lr.learning_rate = c.at("learning_rate");
    t.lr.min_lr = c.at("min_lr");
    t.lr.warmup_iters = c.at("warmup_iters");
    t.lr.lr_decay_iters = c.at("lr_decay_iters");
    t.adamw = {c.at("beta1"), c.at("beta2"), 1e-8f, c.at("weight_decay")};
    t.grad_clip = c.at("grad_clip");
    t.seed = c.at("seed");
    Trainer trainer(model, t, text);
    for (const json& expected : c.at("steps")) {
        const StepResult r = trainer.step();
        EXPECT_NEAR(r.lr, expected.at("lr").get<double>(), 1e-9) << r.iter;
        EXPECT_NEAR(r.loss, expected.at("loss").get<double>(), 2e-6) << r.iter;
        EXPECT_NEAR(r.grad_norm, expected.at("grad_norm").get<double>(), 1e-5) << r.iter;
    }
    for (const auto& [name, p] : trainer.model().named_parameters()) {
        EXPECT_TRUE(close(*p, tensor(c.at("parameters_after").at(name)))) << name;
    }
}

TEST(PyTorchGolden, SampledIdsOfNanoGPTsGenerate) {
    const json& c = models().at("sampling");
    const GPT model(nanogpt_config(models().at("nanogpt").at(c.at("model").get<std::string>()).at("config")));
    std::vector<int64_t> prompt;
    for (const auto& row : c.at("prompt")) for (int64_t id : row) prompt.push_back(id);
    GenerateOptions o;
    o.max_new_tokens = c.at("max_new_tokens");
    o.sampling.temperature = c.at("temperature");
    o.sampling.top_k = c.at("top_k");
    o.seed = c.at("seed");
    EXPECT_EQ(generate(model, prompt, 2, o), ids_of(c.at("ids")));
}
