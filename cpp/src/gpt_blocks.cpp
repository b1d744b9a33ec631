#include "gpt_blocks.hpp"

#include "attn/activations.hpp"
#include "attention_kernel.hpp"
#include "gemm.hpp"
#include "attn/dropout.hpp"
#include "attn/layer_norm.hpp"
#include "attn/linear.hpp"
#include "attn/rms_norm.hpp"
#include "attn/rope.hpp"

#include <cmath>

namespace attn::blocks {

namespace {
float* ptr(Tensor& t) { return t.data.empty() ? nullptr : t.data.data(); }
const float* ptr(const Tensor& t) { return t.data.empty() ? nullptr : t.data.data(); }

// out (N, OC) = in (N, C) Wᵀ + b with W (OC, C) in float32, or kept in 16 bits as a loaded model's weights are
// (the product widens them as it packs them: gemm.hpp).
void linear(float* out, const float* in, const Tensor& w, const Tensor& b, int64_t N, int64_t C, int64_t OC) {
    if (!w.is_half()) return linear_forward(out, in, ptr(w), ptr(b), N, C, OC);
    gemm(N, OC, C, {in, C}, GemmOperand{nullptr, C, /*transposed=*/true, w.half.data(), half_table(w.half_kind)}, out, OC, false);
    if (!b.data.empty()) MatrixMap(out, N, OC).rowwise() += Eigen::Map<const Eigen::RowVectorXf>(b.data.data(), OC);
}

// Gemma's RMSNorm multiplies by 1 + weight; Llama's by the weight.
float rms_offset(const GPTConfig& c) { return c.norm_type == NormType::GemmaRMSNorm ? 1.0f : 0.0f; }

// A norm of the model (its norm_type), with its config's ε (nn.LayerNorm's default 1e-5; a config.json may say
// another). `mean` is LayerNorm's alone.
void norm(const GPTConfig& c, const Tensor& w, const Tensor& b, const Matrix& in, Matrix& out, std::vector<float>& mean,
          std::vector<float>& rstd) {
    const int64_t N = in.rows(), C = in.cols();
    out.resize(N, C);
    rstd.resize(static_cast<size_t>(N));
    if (c.norm_type == NormType::LayerNorm) {
        mean.resize(static_cast<size_t>(N));
        layer_norm_forward(out.data(), in.data(), ptr(w), ptr(b), N, C, c.layer_norm_epsilon, mean.data(), rstd.data());
    } else {
        rms_norm_forward(out.data(), in.data(), ptr(w), N, C, c.layer_norm_epsilon, rms_offset(c), rstd.data());
    }
}

// Adds to din the gradient through a norm given dout; gw, gb collect its weights' gradients.
void norm_back(const GPTConfig& c, Tensor& gw, Tensor& gb, const Tensor& w, const Matrix& in, const std::vector<float>& mean,
               const std::vector<float>& rstd, const Matrix& dout, Matrix& din) {
    if (c.norm_type == NormType::LayerNorm) {
        layer_norm_backward(din.data(), ptr(gw), ptr(gb), dout.data(), in.data(), ptr(w), mean.data(), rstd.data(), in.rows(),
                            in.cols());
    } else {
        rms_norm_backward(din.data(), ptr(gw), dout.data(), in.data(), ptr(w), rstd.data(), in.rows(), in.cols(), rms_offset(c));
    }
}

// A sublayer's output through Gemma's norm on it (sandwich_norm), or as it is: out (N, C).
void output_norm(const GPTConfig& c, const Tensor& w, const Matrix& in, Matrix& out, std::vector<float>& rstd) {
    if (!c.sandwich_norm) {
        out = in;
        return;
    }
    std::vector<float> unused_mean;
    norm(c, w, Tensor(), in, out, unused_mean, rstd);
}
// Its backward: d, the gradient of its output (N, C), becomes its input's.
void output_norm_back(const GPTConfig& c, Tensor& gw, const Tensor& w, const Matrix& in, const std::vector<float>& rstd, Matrix& d) {
    if (!c.sandwich_norm) return;
    Matrix din = Matrix::Zero(d.rows(), d.cols());
    Tensor no_bias;
    norm_back(c, gw, no_bias, w, in, {}, rstd, d, din);
    d = std::move(din);
}

void dropout(const Pass& p, Matrix& m, std::vector<float>& keep) {
    keep.clear();
    if (p.dropout <= 0) return;
    dropout_mask(keep, m.size(), p.dropout, *p.gen);
    apply_mask(m.data(), keep);
}

// The scores' multiplier: 1/√query_pre_attn_scalar (Gemma), else the kernel's 1/√D.
std::optional<float> score_scale(const GPTConfig& c) {
    if (c.query_pre_attn_scalar <= 0) return std::nullopt;
    return static_cast<float>(std::pow(static_cast<double>(c.query_pre_attn_scalar), -0.5));  // Python's q ** -0.5, as a float
}

// Layer l's RoPE tables: a sliding layer's own base when the config gives one (Gemma 3), else the global ones.
std::pair<const float*, const float*> rope_rows(const GPTConfig& c, const GPTActivations& acts, int64_t l) {
    if (c.sliding(l) && c.rope_local_theta > 0) return {acts.rope_local_cos.data(), acts.rope_local_sin.data()};
    return {acts.rope_cos.data(), acts.rope_sin.data()};
}

// Turns the queries (H heads) and keys (KV heads) of each row of qkv (N, Q) by its position's angles; sign −1
// turns gradients back.
void rotate_queries_and_keys(const GPTConfig& c, const GPTActivations& acts, int64_t l, int64_t T, Matrix& qkv, float sign) {
    const int64_t D = c.head_size(), H = c.n_head, KV = c.kv_heads();
    const auto [cos, sin] = rope_rows(c, acts, l);
    for (int64_t r = 0; r < qkv.rows(); ++r) {
        const int64_t t = r % T;
        float* row = qkv.row(r).data();
        rope_rotate(row, H, D, cos + t * D, sin + t * D, sign);
        rope_rotate(row + H * D, KV, D, cos + t * D, sin + t * D, sign);
    }
}
}  // namespace

// ---- positions -----------------------------------------------------------------------

void rope_tables_forward(const GPT& m, const Pass& p, GPTActivations& acts) {
    const GPTConfig& c = m.config();
    if (c.positions != Positions::Rope) return;
    Rope rope = rope_of(c);
    std::vector<int64_t> positions(static_cast<size_t>(p.T));
    for (int64_t t = 0; t < p.T; ++t) positions[static_cast<size_t>(t)] = p.pos0 + t;
    RopeTables global = rope_tables(rope, positions);
    acts.rope_cos = std::move(global.cos.data);
    acts.rope_sin = std::move(global.sin.data);
    if (c.rope_local_theta > 0) {
        rope.theta = c.rope_local_theta;
        rope.scaled = false;  // Gemma 3 scales its global layers' RoPE only
        RopeTables local = rope_tables(rope, positions);
        acts.rope_local_cos = std::move(local.cos.data);
        acts.rope_local_sin = std::move(local.sin.data);
    }
}

// ---- embedding ---------------------------------------------------------------------

void embedding_forward(const GPT& m, const std::vector<int64_t>& ids, const Pass& p, Matrix& x, std::vector<float>& keep) {
    const GPTConfig& c = m.config();
    x.resize(p.B * p.T, c.n_embd);
    if (m.wte.is_half()) {
        for (int64_t r = 0; r < x.rows(); ++r) {
            const uint16_t* row = m.wte.half.data() + ids[static_cast<size_t>(r)] * c.n_embd;
            for (int64_t k = 0; k < c.n_embd; ++k) x(r, k) = widen(row[k], m.wte.half_kind);
        }
    } else {
        const auto wte = matrix(m.wte);
        for (int64_t r = 0; r < x.rows(); ++r) x.row(r) = wte.row(ids[static_cast<size_t>(r)]);
    }
    // Gemma multiplies by √C as a float32 (Gemma3TextScaledWordEmbedding's embed_scale buffer).
    if (c.scale_embeddings) x *= static_cast<float>(std::sqrt(static_cast<double>(c.n_embd)));
    if (c.positions == Positions::Learned) {
        const auto wpe = matrix(m.wpe);
        for (int64_t r = 0; r < x.rows(); ++r) x.row(r) += wpe.row(p.pos0 + r % p.T);
    }
    dropout(p, x, keep);
}

void embedding_backward(const GPT& m, GPT& g, const std::vector<int64_t>& ids, int64_t T, const std::vector<float>& keep,
                        Matrix& dx) {
    const GPTConfig& c = m.config();
    if (!keep.empty()) apply_mask(dx.data(), keep);
    MatrixMap dwte = matrix(g.wte);
    const float scale = c.scale_embeddings ? static_cast<float>(std::sqrt(static_cast<double>(c.n_embd))) : 1.0f;
    for (int64_t r = 0; r < dx.rows(); ++r) dwte.row(ids[static_cast<size_t>(r)]) += scale * dx.row(r);
    if (c.positions != Positions::Learned) return;
    MatrixMap dwpe = matrix(g.wpe);
    for (int64_t r = 0; r < dx.rows(); ++r) dwpe.row(r % T) += dx.row(r);
}

// ---- attention ---------------------------------------------------------------------

void attention_forward(const GPT& m, int64_t l, const Pass& p, const Matrix& x, GPTLayerActivations& L, float* scores) {
    const GPTConfig& c = m.config();
    const GPTBlock& blk = m.h[static_cast<size_t>(l)];
    const int64_t B = p.B, T = p.T, N = B * T, C = c.n_embd, H = c.n_head, T_k = p.pos0 + T;
    const int64_t D = c.head_size(), HD = c.q_width(), KD = c.kv_width(), Q = HD + 2 * KD;
    const bool pre = c.norm == NormPlacement::Pre;
    if (p.training) L.input = x;
    if (pre) norm(c, blk.ln_1_weight, blk.ln_1_bias, x, L.ln_1, L.ln_1_mean, L.ln_1_rstd);
    L.qkv.resize(N, Q);
    linear(L.qkv.data(), (pre ? L.ln_1 : x).data(), blk.attn_c_attn_weight, blk.attn_c_attn_bias, N, C, Q);
    if (c.qk_norm) {
        // Each head's query and key normalised over its D dimensions (Qwen3Attention's q_norm, k_norm), before RoPE.
        L.qk_raw = L.qkv.leftCols(HD + KD);
        L.qk_rstd.resize(static_cast<size_t>(N * (H + c.kv_heads())));
        for (int64_t r = 0; r < N; ++r) {
            float* rstd = L.qk_rstd.data() + r * (H + c.kv_heads());
            rms_norm_forward(L.qkv.row(r).data(), L.qk_raw.row(r).data(), ptr(blk.attn_q_norm_weight), H, D, c.layer_norm_epsilon,
                             rms_offset(c), rstd);
            rms_norm_forward(L.qkv.row(r).data() + HD, L.qk_raw.row(r).data() + HD, ptr(blk.attn_k_norm_weight), c.kv_heads(), D,
                             c.layer_norm_epsilon, rms_offset(c), rstd + H);
        }
    }
    if (c.positions == Positions::Rope) rotate_queries_and_keys(c, *p.tables, l, T, L.qkv, 1.0f);
    L.att.resize(static_cast<size_t>(B * H * T * T_k));
    L.y.resize(N, HD);
    AttentionOptions options;
    options.causal = true;
    options.window = c.sliding(l) ? c.sliding_window : 0;
    options.scale = score_scale(c);
    if (p.cache) {
        // The new keys and values join the cache; each row attends to all of its own.
        const int64_t stride = p.cache->capacity();
        Matrix& kc = p.cache->k[static_cast<size_t>(l)];
        Matrix& vc = p.cache->v[static_cast<size_t>(l)];
        for (int64_t b = 0; b < B; ++b) {
            kc.block(b * stride + p.pos0, 0, T, KD) = L.qkv.block(b * T, HD, T, KD);
            vc.block(b * stride + p.pos0, 0, T, KD) = L.qkv.block(b * T, HD + KD, T, KD);
            const int64_t off = b * H * T * T_k;
            multi_head_attention_forward(L.qkv.block(b * T, 0, T, HD), kc.block(b * stride, 0, T_k, KD),
                                         vc.block(b * stride, 0, T_k, KD), 1, H, options, L.y.block(b * T, 0, T, HD),
                                         scores ? scores + off : nullptr, L.att.data() + off, p.fn);
        }
    } else {
        // Attention dropout acts on the weights between softmax and V; its mask
        // is drawn before the kernel runs (the kernel draws nothing).
        L.att_keep.clear();
        if (p.dropout > 0) dropout_mask(L.att_keep, B * H * T * T, p.dropout, *p.gen);
        multi_head_attention_forward(L.qkv.leftCols(HD), L.qkv.middleCols(HD, KD), L.qkv.rightCols(KD), B, H, options, L.y,
                                     scores, L.att.data(), p.fn, L.att_keep.empty() ? nullptr : L.att_keep.data());
    }
    if (p.head_mask) {
        // A head's output is its weights times V: scaling the weights scales its columns of y.
        for (int64_t h = 0; h < H; ++h) {
            const float keep = p.head_mask[l * H + h];
            if (keep == 1.0f) continue;
            L.y.middleCols(h * D, D) *= keep;
            for (int64_t b = 0; b < B; ++b) {
                float* w = L.att.data() + (b * H + h) * T * T_k;
                for (int64_t i = 0; i < T * T_k; ++i) w[i] *= keep;
            }
        }
    }
    L.attn_out.resize(N, C);
    linear(L.attn_out.data(), L.y.data(), blk.attn_c_proj_weight, blk.attn_c_proj_bias, N, HD, C);
    Matrix a;
    output_norm(c, blk.ln_post_attn_weight, L.attn_out, a, L.post_attn_rstd);
    dropout(p, a, L.resid_1_keep);
    if (pre) {
        L.x_1 = x + a;
    } else {
        L.ln_1 = x + a;  // post-norm: LN₁'s input
        norm(c, blk.ln_1_weight, blk.ln_1_bias, L.ln_1, L.x_1, L.ln_1_mean, L.ln_1_rstd);
    }
}

void attention_backward(const GPT& m, int64_t l, const GPTActivations& acts, const Matrix& dx_1, GPT& g, Matrix& dx) {
    const GPTConfig& c = m.config();
    const GPTBlock& blk = m.h[static_cast<size_t>(l)];
    GPTBlock& gb = g.h[static_cast<size_t>(l)];
    const GPTLayerActivations& L = acts.layers[static_cast<size_t>(l)];
    const int64_t N = dx_1.rows(), C = c.n_embd, H = c.n_head, KV = c.kv_heads(), D = c.head_size();
    const int64_t HD = c.q_width(), KD = c.kv_width(), Q = HD + 2 * KD;
    const bool pre = c.norm == NormPlacement::Pre;
    // pre: x₁ = x + a, so dx = dx₁ (plus the path through a). post: x₁ = LN₁(x + a).
    dx.setZero(N, C);
    if (pre) {
        dx = dx_1;
    } else {
        norm_back(c, gb.ln_1_weight, gb.ln_1_bias, blk.ln_1_weight, L.ln_1, L.ln_1_mean, L.ln_1_rstd, dx_1, dx);
    }
    Matrix da = dx, dy(N, HD), din(N, C), dqkv = Matrix::Zero(N, Q);
    if (!L.resid_1_keep.empty()) apply_mask(da.data(), L.resid_1_keep);
    output_norm_back(c, gb.ln_post_attn_weight, blk.ln_post_attn_weight, L.attn_out, L.post_attn_rstd, da);
    linear_backward(dy.data(), ptr(gb.attn_c_proj_weight), ptr(gb.attn_c_proj_bias), da.data(), L.y.data(),
                    ptr(blk.attn_c_proj_weight), N, HD, C);
    multi_head_attention_backward(dqkv.leftCols(HD), dqkv.middleCols(HD, KD), dqkv.rightCols(KD), dy, L.qkv.leftCols(HD),
                                  L.qkv.middleCols(HD, KD), L.qkv.rightCols(KD), L.att.data(),
                                  L.att_keep.empty() ? nullptr : L.att_keep.data(), acts.B, H, score_scale(c));
    if (c.positions == Positions::Rope) rotate_queries_and_keys(c, acts, l, acts.T, dqkv, -1.0f);
    if (c.qk_norm) {
        Matrix draw = Matrix::Zero(N, HD + KD);
        for (int64_t r = 0; r < N; ++r) {
            const float* rstd = L.qk_rstd.data() + r * (H + KV);
            rms_norm_backward(draw.row(r).data(), ptr(gb.attn_q_norm_weight), dqkv.row(r).data(), L.qk_raw.row(r).data(),
                              ptr(blk.attn_q_norm_weight), rstd, H, D, rms_offset(c));
            rms_norm_backward(draw.row(r).data() + HD, ptr(gb.attn_k_norm_weight), dqkv.row(r).data() + HD,
                              L.qk_raw.row(r).data() + HD, ptr(blk.attn_k_norm_weight), rstd + H, KV, D, rms_offset(c));
        }
        dqkv.leftCols(HD + KD) = draw;
    }
    linear_backward(din.data(), ptr(gb.attn_c_attn_weight), ptr(gb.attn_c_attn_bias), dqkv.data(),
                    (pre ? L.ln_1 : L.input).data(), ptr(blk.attn_c_attn_weight), N, C, Q);
    if (pre) {
        norm_back(c, gb.ln_1_weight, gb.ln_1_bias, blk.ln_1_weight, L.input, L.ln_1_mean, L.ln_1_rstd, din, dx);
    } else {
        dx += din;
    }
}

// ---- feed-forward ---------------------------------------------------------------------

void mlp_forward(const GPT& m, int64_t l, const Pass& p, GPTLayerActivations& L, Matrix& x) {
    const GPTConfig& c = m.config();
    const GPTBlock& blk = m.h[static_cast<size_t>(l)];
    const int64_t N = L.x_1.rows(), C = c.n_embd, F = c.n_inner;
    const bool pre = c.norm == NormPlacement::Pre;
    if (pre) norm(c, blk.ln_2_weight, blk.ln_2_bias, L.x_1, L.ln_2, L.ln_2_mean, L.ln_2_rstd);
    const Matrix& in = pre ? L.ln_2 : L.x_1;
    L.fc.resize(N, F);
    linear(L.fc.data(), in.data(), blk.mlp_c_fc_weight, blk.mlp_c_fc_bias, N, C, F);
    if (c.gated_mlp) {
        // LlamaMLP: down_proj(act_fn(gate_proj(x)) * up_proj(x)).
        L.gate.resize(N, F);
        linear(L.gate.data(), in.data(), blk.mlp_c_gate_weight, Tensor(), N, C, F);
        L.act.resize(N, F);
        gated_forward(L.act.data(), L.gate.data(), L.fc.data(), N * F, c.activation == Activation::SiLU ? Gate::SiLU : Gate::GELUTanh);
    } else {
        L.act = L.fc;
        if (c.activation == Activation::GELU) {
            gelu_forward(L.act.data(), N * F);
        } else if (c.activation == Activation::GELUTanh) {
            gelu_tanh_forward(L.act.data(), N * F);
        } else {
            relu_forward(L.act.data(), N * F);
        }
    }
    L.mlp_out.resize(N, C);
    linear(L.mlp_out.data(), L.act.data(), blk.mlp_c_proj_weight, blk.mlp_c_proj_bias, N, F, C);
    Matrix mlp;
    output_norm(c, blk.ln_post_mlp_weight, L.mlp_out, mlp, L.post_mlp_rstd);
    dropout(p, mlp, L.resid_2_keep);
    if (pre) {
        x = L.x_1 + mlp;
    } else {
        L.ln_2 = L.x_1 + mlp;  // post-norm: LN₂'s input
        norm(c, blk.ln_2_weight, blk.ln_2_bias, L.ln_2, x, L.ln_2_mean, L.ln_2_rstd);
    }
}

void mlp_backward(const GPT& m, int64_t l, const GPTLayerActivations& L, const Matrix& dx, GPT& g, Matrix& dx_1) {
    const GPTConfig& c = m.config();
    const GPTBlock& blk = m.h[static_cast<size_t>(l)];
    GPTBlock& gb = g.h[static_cast<size_t>(l)];
    const int64_t N = dx.rows(), C = c.n_embd, F = c.n_inner;
    const bool pre = c.norm == NormPlacement::Pre;
    // pre: x = x₁ + m, so dx₁ = dx (plus the path through m). post: x = LN₂(x₁ + m).
    dx_1.setZero(N, C);
    if (pre) {
        dx_1 = dx;
    } else {
        norm_back(c, gb.ln_2_weight, gb.ln_2_bias, blk.ln_2_weight, L.ln_2, L.ln_2_mean, L.ln_2_rstd, dx, dx_1);
    }
    Matrix dm = dx_1, dact(N, F), dfc(N, F), din(N, C);
    if (!L.resid_2_keep.empty()) apply_mask(dm.data(), L.resid_2_keep);
    output_norm_back(c, gb.ln_post_mlp_weight, blk.ln_post_mlp_weight, L.mlp_out, L.post_mlp_rstd, dm);
    linear_backward(dact.data(), ptr(gb.mlp_c_proj_weight), ptr(gb.mlp_c_proj_bias), dm.data(), L.act.data(),
                    ptr(blk.mlp_c_proj_weight), N, F, C);
    const Matrix& in = pre ? L.ln_2 : L.x_1;
    if (c.gated_mlp) {
        Matrix dgate(N, F), dgate_in(N, C);
        gated_backward(dgate.data(), dfc.data(), L.gate.data(), L.fc.data(), dact.data(), N * F,
                       c.activation == Activation::SiLU ? Gate::SiLU : Gate::GELUTanh);
        linear_backward(dgate_in.data(), ptr(gb.mlp_c_gate_weight), nullptr, dgate.data(), in.data(), ptr(blk.mlp_c_gate_weight), N, C, F);
        linear_backward(din.data(), ptr(gb.mlp_c_fc_weight), ptr(gb.mlp_c_fc_bias), dfc.data(), in.data(), ptr(blk.mlp_c_fc_weight), N, C, F);
        din += dgate_in;
    } else {
        if (c.activation == Activation::GELU) {
            gelu_backward(dfc.data(), L.fc.data(), dact.data(), N * F);
        } else if (c.activation == Activation::GELUTanh) {
            gelu_tanh_backward(dfc.data(), L.fc.data(), dact.data(), N * F);
        } else {
            relu_backward(dfc.data(), L.fc.data(), dact.data(), N * F);
        }
        linear_backward(din.data(), ptr(gb.mlp_c_fc_weight), ptr(gb.mlp_c_fc_bias), dfc.data(), in.data(), ptr(blk.mlp_c_fc_weight), N, C, F);
    }
    if (pre) {
        norm_back(c, gb.ln_2_weight, gb.ln_2_bias, blk.ln_2_weight, L.x_1, L.ln_2_mean, L.ln_2_rstd, din, dx_1);
    } else {
        dx_1 += din;
    }
}

// ---- head ---------------------------------------------------------------------------------

void head_forward(const GPT& m, const Matrix& x, GPTActivations& acts, float* logits) {
    const GPTConfig& c = m.config();
    const bool pre = c.norm == NormPlacement::Pre;
    if (pre) norm(c, m.ln_f_weight, m.ln_f_bias, x, acts.ln_f, acts.ln_f_mean, acts.ln_f_rstd);
    linear(logits, (pre ? acts.ln_f : x).data(), m.head_weight(), m.lm_head_bias, x.rows(), c.n_embd, c.vocab_size);
}

void head_backward(const GPT& m, const GPTActivations& acts, const float* dlogits, GPT& g, Matrix& dx) {
    const GPTConfig& c = m.config();
    const int64_t N = acts.x_final.rows(), C = c.n_embd;
    const bool pre = c.norm == NormPlacement::Pre;
    Matrix dhead_in(N, C);
    Tensor& dhead = c.tie_embeddings ? g.wte : g.lm_head_weight;
    linear_backward(dhead_in.data(), dhead.data.data(), ptr(g.lm_head_bias), dlogits,
                    (pre ? acts.ln_f : acts.x_final).data(), ptr(m.head_weight()), N, C, c.vocab_size);
    dx.setZero(N, C);
    if (pre) {
        norm_back(c, g.ln_f_weight, g.ln_f_bias, m.ln_f_weight, acts.x_final, acts.ln_f_mean, acts.ln_f_rstd, dhead_in, dx);
    } else {
        dx = dhead_in;
    }
}

}  // namespace attn::blocks
