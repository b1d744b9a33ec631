#include "gpt_blocks.hpp"

#include "attn/activations.hpp"
#include "attention_kernel.hpp"
#include "attn/dropout.hpp"
#include "attn/layer_norm.hpp"
#include "attn/linear.hpp"

namespace attn::blocks {

namespace {
float* ptr(Tensor& t) { return t.data.empty() ? nullptr : t.data.data(); }
const float* ptr(const Tensor& t) { return t.data.empty() ? nullptr : t.data.data(); }
// A LayerNorm of the model, with its config's ε (nn.LayerNorm's default 1e-5; GPT-2's config.json may say another).
void layer_norm(float eps, const Tensor& w, const Tensor& b, const Matrix& in, Matrix& out, std::vector<float>& mean,
                std::vector<float>& rstd) {
    const int64_t N = in.rows(), C = in.cols();
    out.resize(N, C);
    mean.resize(static_cast<size_t>(N));
    rstd.resize(static_cast<size_t>(N));
    layer_norm_forward(out.data(), in.data(), ptr(w), ptr(b), N, C, eps, mean.data(), rstd.data());
}

// Adds to din the gradient through a LayerNorm given dout; gw, gb collect its weights' gradients.
void layer_norm_back(Tensor& gw, Tensor& gb, const Tensor& w, const Matrix& in, const std::vector<float>& mean,
                     const std::vector<float>& rstd, const Matrix& dout, Matrix& din) {
    layer_norm_backward(din.data(), ptr(gw), ptr(gb), dout.data(), in.data(), ptr(w), mean.data(), rstd.data(),
                        in.rows(), in.cols());
}

void dropout(const Pass& p, Matrix& m, std::vector<float>& keep) {
    keep.clear();
    if (p.dropout <= 0) return;
    dropout_mask(keep, m.size(), p.dropout, *p.gen);
    apply_mask(m.data(), keep);
}
}  // namespace

// ---- embedding ---------------------------------------------------------------------

void embedding_forward(const GPT& m, const std::vector<int64_t>& ids, const Pass& p, Matrix& x, std::vector<float>& keep) {
    const auto wte = matrix(m.wte);
    const auto wpe = matrix(m.wpe);
    x.resize(p.B * p.T, m.config().n_embd);
    for (int64_t r = 0; r < x.rows(); ++r) x.row(r) = wte.row(ids[static_cast<size_t>(r)]) + wpe.row(p.pos0 + r % p.T);
    dropout(p, x, keep);
}

void embedding_backward(GPT& g, const std::vector<int64_t>& ids, int64_t T, const std::vector<float>& keep, Matrix& dx) {
    if (!keep.empty()) apply_mask(dx.data(), keep);
    MatrixMap dwte = matrix(g.wte), dwpe = matrix(g.wpe);
    for (int64_t r = 0; r < dx.rows(); ++r) {
        dwte.row(ids[static_cast<size_t>(r)]) += dx.row(r);
        dwpe.row(r % T) += dx.row(r);
    }
}

// ---- attention ---------------------------------------------------------------------

void attention_forward(const GPT& m, int64_t l, const Pass& p, const Matrix& x, GPTLayerActivations& L, float* scores) {
    const GPTConfig& c = m.config();
    const GPTBlock& blk = m.h[static_cast<size_t>(l)];
    const int64_t B = p.B, T = p.T, N = B * T, C = c.n_embd, H = c.n_head, T_k = p.pos0 + T;
    const bool pre = c.norm == NormPlacement::Pre;
    if (p.training) L.input = x;
    if (pre) layer_norm(c.layer_norm_epsilon, blk.ln_1_weight, blk.ln_1_bias, x, L.ln_1, L.ln_1_mean, L.ln_1_rstd);
    L.qkv.resize(N, 3 * C);
    linear_forward(L.qkv.data(), (pre ? L.ln_1 : x).data(), ptr(blk.attn_c_attn_weight), ptr(blk.attn_c_attn_bias), N, C, 3 * C);
    L.att.resize(static_cast<size_t>(B * H * T * T_k));
    L.y.resize(N, C);
    AttentionOptions causal;
    causal.causal = true;
    if (p.cache) {
        // The new keys and values join the cache; each row attends to all of its own.
        const int64_t stride = c.block_size;
        Matrix& kc = p.cache->k[static_cast<size_t>(l)];
        Matrix& vc = p.cache->v[static_cast<size_t>(l)];
        for (int64_t b = 0; b < B; ++b) {
            kc.block(b * stride + p.pos0, 0, T, C) = L.qkv.block(b * T, C, T, C);
            vc.block(b * stride + p.pos0, 0, T, C) = L.qkv.block(b * T, 2 * C, T, C);
            const int64_t off = b * H * T * T_k;
            multi_head_attention_forward(L.qkv.block(b * T, 0, T, C), kc.block(b * stride, 0, T_k, C),
                                         vc.block(b * stride, 0, T_k, C), 1, H, causal, L.y.block(b * T, 0, T, C),
                                         scores ? scores + off : nullptr, L.att.data() + off, p.fn);
        }
    } else {
        // Attention dropout acts on the weights between softmax and V; its mask
        // is drawn before the kernel runs (the kernel draws nothing).
        L.att_keep.clear();
        if (p.dropout > 0) dropout_mask(L.att_keep, B * H * T * T, p.dropout, *p.gen);
        multi_head_attention_forward(L.qkv.leftCols(C), L.qkv.middleCols(C, C), L.qkv.rightCols(C), B, H, causal, L.y,
                                     scores, L.att.data(), p.fn, L.att_keep.empty() ? nullptr : L.att_keep.data());
    }
    if (p.head_mask) {
        // A head's output is its weights times V: scaling the weights scales its columns of y.
        const int64_t d = C / H;
        for (int64_t h = 0; h < H; ++h) {
            const float keep = p.head_mask[l * H + h];
            if (keep == 1.0f) continue;
            L.y.middleCols(h * d, d) *= keep;
            for (int64_t b = 0; b < B; ++b) {
                float* w = L.att.data() + (b * H + h) * T * T_k;
                for (int64_t i = 0; i < T * T_k; ++i) w[i] *= keep;
            }
        }
    }
    Matrix a(N, C);
    linear_forward(a.data(), L.y.data(), ptr(blk.attn_c_proj_weight), ptr(blk.attn_c_proj_bias), N, C, C);
    dropout(p, a, L.resid_1_keep);
    if (pre) {
        L.x_1 = x + a;
    } else {
        L.ln_1 = x + a;  // post-norm: LN₁'s input
        layer_norm(c.layer_norm_epsilon, blk.ln_1_weight, blk.ln_1_bias, L.ln_1, L.x_1, L.ln_1_mean, L.ln_1_rstd);
    }
}

void attention_backward(const GPT& m, int64_t l, const GPTLayerActivations& L, int64_t B, const Matrix& dx_1,
                        GPT& g, Matrix& dx) {
    const GPTConfig& c = m.config();
    const GPTBlock& blk = m.h[static_cast<size_t>(l)];
    GPTBlock& gb = g.h[static_cast<size_t>(l)];
    const int64_t N = dx_1.rows(), C = c.n_embd;
    const bool pre = c.norm == NormPlacement::Pre;
    // pre: x₁ = x + a, so dx = dx₁ (plus the path through a). post: x₁ = LN₁(x + a).
    dx.setZero(N, C);
    if (pre) {
        dx = dx_1;
    } else {
        layer_norm_back(gb.ln_1_weight, gb.ln_1_bias, blk.ln_1_weight, L.ln_1, L.ln_1_mean, L.ln_1_rstd, dx_1, dx);
    }
    Matrix da = dx, dy(N, C), din(N, C), dqkv = Matrix::Zero(N, 3 * C);
    if (!L.resid_1_keep.empty()) apply_mask(da.data(), L.resid_1_keep);
    linear_backward(dy.data(), ptr(gb.attn_c_proj_weight), ptr(gb.attn_c_proj_bias), da.data(), L.y.data(),
                    ptr(blk.attn_c_proj_weight), N, C, C);
    multi_head_attention_backward(dqkv.leftCols(C), dqkv.middleCols(C, C), dqkv.rightCols(C), dy, L.qkv.leftCols(C),
                                  L.qkv.middleCols(C, C), L.qkv.rightCols(C), L.att.data(),
                                  L.att_keep.empty() ? nullptr : L.att_keep.data(), B, c.n_head);
    linear_backward(din.data(), ptr(gb.attn_c_attn_weight), ptr(gb.attn_c_attn_bias), dqkv.data(),
                    (pre ? L.ln_1 : L.input).data(), ptr(blk.attn_c_attn_weight), N, C, 3 * C);
    if (pre) {
        layer_norm_back(gb.ln_1_weight, gb.ln_1_bias, blk.ln_1_weight, L.input, L.ln_1_mean, L.ln_1_rstd, din, dx);
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
    if (pre) layer_norm(c.layer_norm_epsilon, blk.ln_2_weight, blk.ln_2_bias, L.x_1, L.ln_2, L.ln_2_mean, L.ln_2_rstd);
    L.fc.resize(N, F);
    linear_forward(L.fc.data(), (pre ? L.ln_2 : L.x_1).data(), ptr(blk.mlp_c_fc_weight), ptr(blk.mlp_c_fc_bias), N, C, F);
    L.act = L.fc;
    if (c.activation == Activation::GELU) {
        gelu_forward(L.act.data(), N * F);
    } else if (c.activation == Activation::GELUTanh) {
        gelu_tanh_forward(L.act.data(), N * F);
    } else {
        relu_forward(L.act.data(), N * F);
    }
    Matrix mlp(N, C);
    linear_forward(mlp.data(), L.act.data(), ptr(blk.mlp_c_proj_weight), ptr(blk.mlp_c_proj_bias), N, F, C);
    dropout(p, mlp, L.resid_2_keep);
    if (pre) {
        x = L.x_1 + mlp;
    } else {
        L.ln_2 = L.x_1 + mlp;  // post-norm: LN₂'s input
        layer_norm(c.layer_norm_epsilon, blk.ln_2_weight, blk.ln_2_bias, L.ln_2, x, L.ln_2_mean, L.ln_2_rstd);
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
        layer_norm_back(gb.ln_2_weight, gb.ln_2_bias, blk.ln_2_weight, L.ln_2, L.ln_2_mean, L.ln_2_rstd, dx, dx_1);
    }
    Matrix dm = dx_1, dact(N, F), dfc(N, F), din(N, C);
    if (!L.resid_2_keep.empty()) apply_mask(dm.data(), L.resid_2_keep);
    linear_backward(dact.data(), ptr(gb.mlp_c_proj_weight), ptr(gb.mlp_c_proj_bias), dm.data(), L.act.data(),
                    ptr(blk.mlp_c_proj_weight), N, F, C);
    if (c.activation == Activation::GELU) {
        gelu_backward(dfc.data(), L.fc.data(), dact.data(), N * F);
    } else if (c.activation == Activation::GELUTanh) {
        gelu_tanh_backward(dfc.data(), L.fc.data(), dact.data(), N * F);
    } else {
        relu_backward(dfc.data(), L.fc.data(), dact.data(), N * F);
    }
    linear_backward(din.data(), ptr(gb.mlp_c_fc_weight), ptr(gb.mlp_c_fc_bias), dfc.data(), (pre ? L.ln_2 : L.x_1).data(),
                    ptr(blk.mlp_c_fc_weight), N, C, F);
    if (pre) {
        layer_norm_back(gb.ln_2_weight, gb.ln_2_bias, blk.ln_2_weight, L.x_1, L.ln_2_mean, L.ln_2_rstd, din, dx_1);
    } else {
        dx_1 += din;
    }
}

// ---- head ---------------------------------------------------------------------------------

void head_forward(const GPT& m, const Matrix& x, GPTActivations& acts, float* logits) {
    const GPTConfig& c = m.config();
    const bool pre = c.norm == NormPlacement::Pre;
    if (pre) layer_norm(c.layer_norm_epsilon, m.ln_f_weight, m.ln_f_bias, x, acts.ln_f, acts.ln_f_mean, acts.ln_f_rstd);
    linear_forward(logits, (pre ? acts.ln_f : x).data(), ptr(m.head_weight()), ptr(m.lm_head_bias), x.rows(), c.n_embd,
                   c.vocab_size);
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
        layer_norm_back(g.ln_f_weight, g.ln_f_bias, m.ln_f_weight, acts.x_final, acts.ln_f_mean, acts.ln_f_rstd, dhead_in, dx);
    } else {
        dx = dhead_in;
    }
}

}  // namespace attn::blocks
