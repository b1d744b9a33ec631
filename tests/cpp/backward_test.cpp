// Every backward pass against finite differences: each layer alone through a
// random projection L = Σ out ⊙ R, then the whole model through its
// cross-entropy loss. Five-point central differences (error O(h⁴)) keep the
// float reference accurate to about 1e-5.
#include "attn/activations.hpp"
#include "attn/cross_entropy.hpp"
#include "attn/gpt.hpp"
#include "attn/layer_norm.hpp"
#include "attn/linear.hpp"
#include "golden.hpp"

// The kernel behind the attention modules, an internal of the library.
#include "../../cpp/src/attention_kernel.hpp"

#include <functional>

using namespace attn;

namespace {
// The finite step: small enough for Gemma's embeddings × √C (at 1e-2 the stencil's truncation error reached 5% of a
// token embedding's gradient), large enough that float32 rounding of the loss stays under atol.
constexpr float kH = 4e-3f;

float numeric(float& x, const std::function<double()>& f) {
    const float saved = x;
    auto at = [&](float d) {
        x = saved + d;
        return f();
    };
    const double g = (-at(2 * kH) + 8 * at(kH) - 8 * at(-kH) + at(-2 * kH)) / (12.0 * kH);
    x = saved;
    return static_cast<float>(g);
}

// Compares analytic gradients with numeric ones for every element of `params`.
void expect_gradients(std::vector<float>& params, const std::vector<float>& analytic, const std::function<double()>& f,
                      const char* what, float atol = 2e-4f, float rtol = 2e-3f) {
    ASSERT_EQ(params.size(), analytic.size()) << what;
    float worst = 0;
    for (size_t i = 0; i < params.size(); ++i) {
        const float n = numeric(params[i], f);
        const float err = std::fabs(n - analytic[i]);
        worst = std::max(worst, err / (atol + rtol * std::fabs(n)));
        EXPECT_LE(err, atol + rtol * std::fabs(n)) << what << "[" << i << "]: analytic " << analytic[i] << ", numeric " << n;
    }
    ::testing::Test::RecordProperty(what, std::to_string(worst));
}

std::vector<float> random_vector(size_t n, Generator& gen) {
    Tensor t = randn({static_cast<int64_t>(n)}, gen);
    return t.data;
}

double dot(const float* a, const std::vector<float>& r) {
    double s = 0;
    for (size_t i = 0; i < r.size(); ++i) s += static_cast<double>(a[i]) * r[i];
    return s;
}
}  // namespace

TEST(Backward, Linear) {
    Generator gen(1);
    const int64_t N = 3, C = 4, OC = 5;
    auto inp = random_vector(N * C, gen), w = random_vector(OC * C, gen), b = random_vector(OC, gen);
    const auto R = random_vector(N * OC, gen);
    std::vector<float> out(N * OC), dinp(N * C), dw(OC * C, 0.0f), db(OC, 0.0f);
    auto f = [&] {
        linear_forward(out.data(), inp.data(), w.data(), b.data(), N, C, OC);
        return dot(out.data(), R);
    };
    linear_backward(dinp.data(), dw.data(), db.data(), R.data(), inp.data(), w.data(), N, C, OC);
    expect_gradients(inp, dinp, f, "dinp");
    expect_gradients(w, dw, f, "dweight");
    expect_gradients(b, db, f, "dbias");
}

TEST(Backward, LayerNorm) {
    Generator gen(2);
    const int64_t N = 3, C = 6;
    auto inp = random_vector(N * C, gen), w = random_vector(C, gen), b = random_vector(C, gen);
    const auto R = random_vector(N * C, gen);
    std::vector<float> out(N * C), mean(N), rstd(N), dinp(N * C, 0.0f), dw(C, 0.0f), db(C, 0.0f);
    auto f = [&] {
        layer_norm_forward(out.data(), inp.data(), w.data(), b.data(), N, C, 1e-5f, mean.data(), rstd.data());
        return dot(out.data(), R);
    };
    f();
    layer_norm_backward(dinp.data(), dw.data(), db.data(), R.data(), inp.data(), w.data(), mean.data(), rstd.data(), N, C);
    expect_gradients(inp, dinp, f, "dinp");
    expect_gradients(w, dw, f, "dweight");
    expect_gradients(b, db, f, "dbias");
}

TEST(Backward, GeluAndRelu) {
    Generator gen(3);
    auto x = random_vector(20, gen);
    for (float& v : x)
        if (std::fabs(v) < 0.1f) v += 0.3f;  // ReLU is not differentiable at 0
    const auto R = random_vector(20, gen);
    std::vector<float> y(20), dx(20);
    for (bool gelu : {true, false}) {
        auto f = [&] {
            y = x;
            gelu ? gelu_forward(y.data(), 20) : relu_forward(y.data(), 20);
            return dot(y.data(), R);
        };
        gelu ? gelu_backward(dx.data(), x.data(), R.data(), 20) : relu_backward(dx.data(), x.data(), R.data(), 20);
        expect_gradients(x, dx, f, gelu ? "gelu" : "relu");
    }
}

TEST(Backward, MultiHeadAttentionWithMasksAndDropout) {
    Generator gen(4);
    const int64_t B = 2, T = 4, H = 2, C = 6;
    auto q = random_vector(B * T * C, gen), k = random_vector(B * T * C, gen), v = random_vector(B * T * C, gen);
    const auto R = random_vector(B * T * C, gen);
    std::vector<float> keep(static_cast<size_t>(B * H * T * T));
    for (size_t i = 0; i < keep.size(); ++i) keep[i] = i % 3 == 0 ? 0.0f : 1.5f;  // a fixed dropout mask
    for (bool dropout : {false, true}) {
        AttentionOptions o;
        o.causal = true;
        o.key_lengths = {4, 3};
        std::vector<float> weights(B * H * T * T), y(B * T * C);
        auto f = [&] {
            Matrix Y(B * T, C);
            multi_head_attention_forward(ConstMatrixMap(q.data(), B * T, C), ConstMatrixMap(k.data(), B * T, C),
                                         ConstMatrixMap(v.data(), B * T, C), B, H, o, Y, nullptr, weights.data(),
                                         "test", dropout ? keep.data() : nullptr);
            std::copy_n(Y.data(), y.size(), y.data());
            return dot(y.data(), R);
        };
        f();
        Matrix dq = Matrix::Zero(B * T, C), dk = Matrix::Zero(B * T, C), dv = Matrix::Zero(B * T, C);
        multi_head_attention_backward(dq, dk, dv, ConstMatrixMap(R.data(), B * T, C), ConstMatrixMap(q.data(), B * T, C),
                                      ConstMatrixMap(k.data(), B * T, C), ConstMatrixMap(v.data(), B * T, C),
                                      weights.data(), dropout ? keep.data() : nullptr, B, H);
        expect_gradients(q, std::vector<float>(dq.data(), dq.data() + dq.size()), f, "dq");
        expect_gradients(k, std::vector<float>(dk.data(), dk.data() + dk.size()), f, "dk");
        expect_gradients(v, std::vector<float>(dv.data(), dv.data() + dv.size()), f, "dv");
    }
}

TEST(Backward, CrossEntropy) {
    Generator gen(5);
    const int64_t N = 4, V = 7;
    auto logits = random_vector(N * V, gen);
    const std::vector<int64_t> targets = {0, 6, 3, 3};
    std::vector<float> dlogits(N * V);
    cross_entropy_forward_backward(logits.data(), targets.data(), N, V, dlogits.data());
    expect_gradients(logits, dlogits, [&] { return cross_entropy_forward_backward(logits.data(), targets.data(), N, V); },
                     "dlogits");
    // Uniform logits give log V.
    std::vector<float> flat(V, 0.5f);
    const int64_t t = 2;
    EXPECT_NEAR(cross_entropy_forward_backward(flat.data(), &t, 1, V), std::log(7.0f), 1e-6f);
}

namespace {
void check_model(GPTConfig c, const char* label, int64_t n_head = 2) {
    c.vocab_size = 7;
    c.n_embd = 8;
    c.n_head = n_head;
    c.n_layer = 2;
    c.n_inner = 12;
    c.block_size = 6;
    GPT model(c);
    // Check at a generic point: every parameter O(1). (nanoGPT's init gives
    // embeddings of std 0.02, where a finite step of 1e-2 would be half their
    // scale right before a LayerNorm, and LayerNorms start at exactly 1 and 0.)
    Generator gen(11);
    for (auto& [name, t] : model.named_parameters()) {
        const bool ln_weight = name.find("ln_") != std::string::npos && name.find("weight") != std::string::npos;
        for (float& x : t->data) x = (ln_weight ? 1.0f : 0.0f) + 0.4f * static_cast<float>(gen.normal_double());
    }
    const int64_t B = 2, T = 5;
    const std::vector<int64_t> ids = {1, 2, 3, 4, 5, 6, 0, 1, 2, 3};
    const std::vector<int64_t> targets = {2, 3, 4, 5, 6, 0, 1, 2, 3, 4};
    const Generator dropout_seed(99);
    auto loss = [&](GPTActivations& acts, std::vector<float>* dlogits) {
        Generator g = dropout_seed;  // the same masks every evaluation
        const Tensor logits = model.forward_train(ids, B, acts, c.dropout > 0 ? &g : nullptr);
        return static_cast<double>(cross_entropy_forward_backward(logits.data.data(), targets.data(), B * T, c.vocab_size,
                                                                  dlogits ? dlogits->data() : nullptr));
    };
    GPTActivations acts;
    std::vector<float> dlogits(static_cast<size_t>(B * T * c.vocab_size));
    loss(acts, &dlogits);
    GPT grads = model.zeros_like();
    model.backward(acts, dlogits.data(), grads);
    auto g = grads.named_parameters();
    auto p = model.named_parameters();
    ASSERT_EQ(g.size(), p.size());
    for (size_t i = 0; i < p.size(); ++i) {
        GPTActivations scratch;
        expect_gradients(p[i].second->data, g[i].second->data, [&] { return loss(scratch, nullptr); },
                         (std::string(label) + " " + p[i].first).c_str());
    }
}
}  // namespace

TEST(Backward, WholeModelPreNormGeluBiasesUntied) {
    GPTConfig c;
    c.norm = NormPlacement::Pre;
    c.activation = Activation::GELU;
    c.head_bias = true;
    check_model(c, "pre");
}

TEST(Backward, WholeModelPostNormNotebook001) {
    // GELU in place of notebook 001's ReLU: a finite step across ReLU's kink
    // measures nothing (ReLU's own backward is checked away from 0 above).
    GPTConfig c = GPTConfig::notebook001(7, 8, 2, 12, 6);
    c.activation = Activation::GELU;
    check_model(c, "post");
}

TEST(Backward, WholeModelTiedNoBiasesWithDropout) {
    GPTConfig c = GPTConfig::nanogpt(7, 6, 2, 2, 8, /*bias=*/false, /*tie=*/true);
    c.dropout = 0.2f;
    check_model(c, "tied+dropout");
}

TEST(Backward, WholeModelAttentionOnly) {
    GPTConfig c;
    c.attn_only = true;
    c.head_bias = true;
    check_model(c, "attn-only");
}

// Today's decoders: the Llama family's RMSNorm, rotary positions stretched by llama3 scaling (its original context,
// 4, shorter than the 5 tokens), grouped-query attention (4 query heads reading 2 key/value heads of 4 dimensions,
// not 8 / 4), a SwiGLU MLP, Qwen2's q/k/v biases, and Mistral's sliding window on every other layer.
TEST(Backward, WholeModelLlamaShapedGroupedRotarySlidingSwiGLU) {
    GPTConfig c;
    c.norm_type = NormType::RMSNorm;
    c.positions = Positions::Rope;
    c.rope_theta = 100.0f;
    c.rope_scaling = RopeScaling::Llama3;
    c.rope_factor = 4.0f;
    c.rope_original_context = 4;
    c.n_kv_head = 2;
    c.head_dim = 4;
    c.gated_mlp = true;
    c.activation = Activation::SiLU;
    c.attention_bias = false;
    c.qkv_bias = true;
    c.bias = false;
    c.sliding_window = 2;
    c.sliding_window_pattern = 2;
    check_model(c, "llama", 4);
}

// Gemma 3's additions: RMSNorm × (1 + w), q/k norms, four norms per block, GeGLU, embeddings × √C, scores ×
// 1/√query_pre_attn_scalar, one key/value head (MQA) of 6 dimensions, and sliding layers with their own RoPE base.
TEST(Backward, WholeModelGemmaShapedQKNormSandwichMultiQuery) {
    GPTConfig c;
    c.norm_type = NormType::GemmaRMSNorm;
    c.positions = Positions::Rope;
    c.rope_theta = 1000.0f;
    c.rope_local_theta = 10.0f;
    c.n_kv_head = 1;
    c.head_dim = 6;
    c.qk_norm = true;
    c.sandwich_norm = true;
    c.gated_mlp = true;
    c.activation = Activation::GELUTanh;
    c.scale_embeddings = true;
    c.query_pre_attn_scalar = 5.0f;
    c.attention_bias = false;
    c.bias = false;
    c.tie_embeddings = true;
    c.sliding_window = 3;
    c.sliding_window_pattern = 2;
    check_model(c, "gemma", 4);
}
