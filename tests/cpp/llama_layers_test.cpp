// The layers today's decoders add to GPT-2's (rope.hpp, rms_norm.hpp, gated activations in activations.hpp)
// against PyTorch: tests/golden/llama_layers.json, written by tools/make_golden.py from Hugging Face's formulas.
#include "attn/activations.hpp"
#include "attn/rms_norm.hpp"
#include "attn/rope.hpp"
#include "attn/scaled_dot_product_attention.hpp"
#include "fixtures.hpp"
#include "golden.hpp"

#include <gtest/gtest.h>

#include <cmath>

#include "../../cpp/src/attention_kernel.hpp"

using namespace attn;
using fixtures::error_of;

namespace {
const nlohmann::json& layers(const char* key) { return golden::file("llama_layers.json").at(key); }

Rope rope_of(const nlohmann::json& c) {
    Rope r{16, c.at("theta").get<double>()};
    if (!c.at("llama3").is_null()) {
        r.scaled = true;
        r.llama3 = {c["llama3"]["factor"].get<double>(), c["llama3"]["low_freq_factor"].get<double>(),
                    c["llama3"]["high_freq_factor"].get<double>(), c["llama3"]["original_max_position_embeddings"].get<int64_t>()};
    }
    return r;
}
}  // namespace

TEST(Rope, FrequenciesTablesRotationAndGradientAreHuggingFaces) {
    const Tensor x = golden::tensor(layers("rope")["input"]), upstream = golden::tensor(layers("rope")["upstream"]);
    for (const nlohmann::json& c : layers("rope")["cases"]) {
        const Rope rope = rope_of(c);
        SCOPED_TRACE("theta " + std::to_string(rope.theta) + (rope.scaled ? ", llama3" : "") + ", positions from " +
                     std::to_string(c["positions"][0].get<int64_t>()));
        const std::vector<float> inv = rope_inverse_frequencies(rope);
        // The frequencies to the bit: a unit in the last place moves the angle at position 70,000 by 0.004.
        EXPECT_EQ(inv, c["inv_freq"]["data"].get<std::vector<float>>());
        const RopeTables t = rope_tables(rope, c["positions"].get<std::vector<int64_t>>());
        EXPECT_TRUE(golden::near(t.cos, golden::tensor(c["cos"]), 1e-6f));
        EXPECT_TRUE(golden::near(t.sin, golden::tensor(c["sin"]), 1e-6f));
        EXPECT_TRUE(golden::near(rope_forward(x, t), golden::tensor(c["output"])));
        EXPECT_TRUE(golden::near(rope_backward(upstream, t), golden::tensor(c["grad_input"])));
    }
}

// The property RoPE is chosen for: a query at m and a key at n score as if the key were unrotated and the query
// turned by m − n, so moving both by the same amount leaves every score as it was.
TEST(Rope, AScoreDependsOnlyOnTheDistance) {
    const Tensor x = golden::tensor(layers("rope")["input"]);  // (1, 2, 5, 16): head 0 as queries, head 1 as keys
    const Rope rope{16, 10000.0};
    const auto scores = [&](int64_t shift) {
        const Tensor r = rope_forward(x, rope_tables(rope, {shift, shift + 1, shift + 2, shift + 3, shift + 4}));
        std::vector<float> s;
        for (int64_t i = 0; i < 5; ++i)
            for (int64_t j = 0; j < 5; ++j) {
                float dot = 0;
                for (int64_t d = 0; d < 16; ++d) dot += r.data[static_cast<size_t>(i * 16 + d)] * r.data[static_cast<size_t>(80 + j * 16 + d)];
                s.push_back(dot);
            }
        return s;
    };
    const std::vector<float> at0 = scores(0), at1000 = scores(1000);
    for (size_t k = 0; k < at0.size(); ++k) EXPECT_NEAR(at0[k], at1000[k], 2e-3f) << "score " << k;
    EXPECT_GT(std::fabs(at0[1] - at0[5]), 1e-2f);  // and the scores do depend on the distance
}

TEST(Rope, BadSettingsAreNamedErrors) {
    EXPECT_EQ(error_of([] { rope_inverse_frequencies(Rope{7, 10000.0}); }),
              "rope: expected an even head_dim > 0 (dimensions turn in pairs), got 7");
    EXPECT_EQ(error_of([] { rope_inverse_frequencies(Rope{8, 1.0}); }), "rope: expected rope_theta > 1, got 1.000000");
    Rope bad{8, 10000.0, true};
    bad.llama3.high_freq_factor = 0.5;
    EXPECT_EQ(error_of([&] { rope_inverse_frequencies(bad); }),
              "rope: expected 0 < rope_scaling.low_freq_factor < high_freq_factor, got 1.000000 and 0.500000");
    EXPECT_EQ(error_of([] { rope_tables(Rope{8, 10000.0}, {0, -1}); }), "rope: expected positions >= 0, got -1");
    const RopeTables t = rope_tables(Rope{8, 10000.0}, {0, 1});
    EXPECT_EQ(error_of([&] { rope_forward(Tensor({2, 3, 8}), t); }),
              "rope_forward: expected x of shape (..., 2, 8) for tables of 2 positions, got [2, 3, 8]");
}

TEST(RMSNorm, LlamasAndGemmasFormsAndTheirGradientsArePyTorchs) {
    const nlohmann::json& g = layers("rms_norm");
    const Tensor x = golden::tensor(g["input"]), w = golden::tensor(g["weight"]), dy = golden::tensor(g["upstream"]);
    const int64_t N = x.shape[0], C = x.shape[1];
    for (const auto& [name, offset] : {std::pair<const char*, float>{"llama", 0.0f}, {"gemma", 1.0f}}) {
        SCOPED_TRACE(name);
        Tensor y(x.shape), rstd({N}), dx(x.shape), dw(w.shape);
        rms_norm_forward(y.data.data(), x.data.data(), w.data.data(), N, C, g["eps"].get<float>(), offset, rstd.data.data());
        EXPECT_TRUE(golden::near(y, golden::tensor(g[name]["output"])));
        rms_norm_backward(dx.data.data(), dw.data.data(), dy.data.data(), x.data.data(), w.data.data(), rstd.data.data(), N, C, offset);
        EXPECT_TRUE(golden::near(dx, golden::tensor(g[name]["grad_input"])));
        EXPECT_TRUE(golden::near(dw, golden::tensor(g[name]["grad_weight"])));
    }
}

TEST(GatedActivations, SwiGLUAndGeGLUAndTheirGradientsArePyTorchs) {
    const nlohmann::json& g = layers("gated");
    const Tensor gate = golden::tensor(g["gate"]), up = golden::tensor(g["up"]), dy = golden::tensor(g["upstream"]);
    for (const auto& [name, act] : {std::pair<const char*, Gate>{"silu", Gate::SiLU}, {"gelu_pytorch_tanh", Gate::GELUTanh}}) {
        SCOPED_TRACE(name);
        Tensor y(gate.shape), dgate(gate.shape), dup(gate.shape);
        gated_forward(y.data.data(), gate.data.data(), up.data.data(), gate.numel(), act);
        EXPECT_TRUE(golden::near(y, golden::tensor(g[name]["output"])));
        gated_backward(dgate.data.data(), dup.data.data(), gate.data.data(), up.data.data(), dy.data.data(), gate.numel(), act);
        EXPECT_TRUE(golden::near(dgate, golden::tensor(g[name]["grad_gate"])));
        EXPECT_TRUE(golden::near(dup, golden::tensor(g[name]["grad_up"])));
    }
}

namespace {
// (B, H, T, d) as the kernels' rows: (B·T, H·d), head h the column block [h·d, (h+1)·d).
Matrix rows_of(const Tensor& x) {
    const int64_t B = x.shape[0], H = x.shape[1], T = x.shape[2], d = x.shape[3];
    Matrix m(B * T, H * d);
    for (int64_t b = 0; b < B; ++b)
        for (int64_t h = 0; h < H; ++h) m.block(b * T, h * d, T, d) = matrix_slice(x, b * H + h);
    return m;
}
Tensor heads_of(const Matrix& m, int64_t B, int64_t H) { return split_heads(m, B, H); }
}  // namespace

// Grouped-query attention (4 query heads, 2 key/value heads) with a sliding window of 3: the weights, output and
// every gradient of PyTorch's repeat_kv and masked softmax, traced and streamed.
TEST(GroupedAttention, QueryHeadsShareKeyValueHeadsInsideASlidingWindow) {
    const nlohmann::json& g = layers("grouped_window");
    const Tensor q = golden::tensor(g["query"]), k = golden::tensor(g["key"]), v = golden::tensor(g["value"]);
    const Matrix Q = rows_of(q), K = rows_of(k), V = rows_of(v), dY = rows_of(golden::tensor(g["upstream"]));
    AttentionOptions o;
    o.causal = true;
    o.window = g["window"].get<int64_t>();
    Matrix Y(7, 32), streamed(7, 32);
    Tensor weights({1, 4, 7, 7});
    multi_head_attention_forward(Q, K, V, 1, 4, o, Y, nullptr, weights.data.data());
    multi_head_attention_forward(Q, K, V, 1, 4, o, streamed);
    EXPECT_TRUE(golden::near(weights, golden::tensor(g["weights"])));
    EXPECT_TRUE(golden::near(heads_of(Y, 1, 4), golden::tensor(g["output"])));
    EXPECT_TRUE(golden::near(heads_of(streamed, 1, 4), golden::tensor(g["output"])));
    Matrix dQ = Matrix::Zero(7, 32), dK = Matrix::Zero(7, 16), dV = Matrix::Zero(7, 16);
    multi_head_attention_backward(dQ, dK, dV, dY, Q, K, V, weights.data.data(), nullptr, 1, 4);
    EXPECT_TRUE(golden::near(heads_of(dQ, 1, 4), golden::tensor(g["grad_query"])));
    EXPECT_TRUE(golden::near(heads_of(dK, 1, 2), golden::tensor(g["grad_key"])));
    EXPECT_TRUE(golden::near(heads_of(dV, 1, 2), golden::tensor(g["grad_value"])));
    // The teaching path draws the same band in its mask.
    const AttentionTrace t = scaled_dot_product_attention(Tensor({7, 8}), Tensor({7, 8}), Tensor({7, 8}), o);
    for (int64_t i = 0; i < 7; ++i)
        for (int64_t j = 0; j < 7; ++j) EXPECT_EQ(t.mask[i * 7 + j], j <= i && i - j < 3 ? 1.0f : 0.0f) << i << ", " << j;
}

TEST(GroupedAttention, HeadsThatDoNotGroupAndWindowsWithoutCausalAreNamedErrors) {
    const Matrix Q = Matrix::Zero(4, 12), K = Matrix::Zero(4, 8), V = Matrix::Zero(4, 8);
    Matrix Y(4, 12);
    EXPECT_EQ(error_of([&] { multi_head_attention_forward(Q, K, V, 1, 3, AttentionOptions{}, Y); }),
              "multiHeadAttention: expected keys of a number of heads of 4 columns that divides the 3 query heads, and values of "
              "as many heads, got keys of 8 columns and values of 8");
    AttentionOptions windowed;
    windowed.window = 2;
    EXPECT_EQ(error_of([&] { attention(Tensor({4, 4}), Tensor({4, 4}), Tensor({4, 4}), windowed); }),
              "attention: expected window 0 (none) or > 0 with causal attention, got 2 without causal");
    EXPECT_EQ(error_of([&] { scaled_dot_product_attention(Tensor({4, 4}), Tensor({4, 4}), Tensor({4, 4}), windowed); }),
              "scaledDotProductAttention: expected window 0 (none) or > 0 with causal attention, got 2 without causal");
}

// A window over a long sequence: the streamed kernel skips whole blocks of keys before a query block's window,
// and still equals the traced result (which masks them).
TEST(GroupedAttention, AWindowOverBlocksEqualsTheTracedResult) {
    Generator gen(5);
    const Tensor q = randn({1, 2, 700, 16}, gen), k = randn({1, 1, 700, 16}, gen), v = randn({1, 1, 700, 16}, gen);
    AttentionOptions o;
    o.causal = true;
    o.window = 300;
    Matrix traced(700, 32), streamed(700, 32);
    Tensor weights({1, 2, 700, 700});
    multi_head_attention_forward(rows_of(q), rows_of(k), rows_of(v), 1, 2, o, traced, nullptr, weights.data.data());
    multi_head_attention_forward(rows_of(q), rows_of(k), rows_of(v), 1, 2, o, streamed);
    EXPECT_LT((traced - streamed).cwiseAbs().maxCoeff(), 1e-5f);
    EXPECT_EQ(weights[699 * 700 + 399], 0.0f);  // 300 back from the last query: outside
    EXPECT_GT(weights[699 * 700 + 400], 0.0f);  // 299 back: inside
}
