// GPT::backward: the forward pass of gpt.cpp in reverse, block by block, each
// step the *_backward of the kernel its forward used (llm.c's structure).
#include "attn/activations.hpp"
#include "attn/attention_kernel.hpp"
#include "attn/dropout.hpp"
#include "attn/gpt.hpp"
#include "attn/layer_norm.hpp"
#include "attn/linear.hpp"

namespace attn {

namespace {
float* ptr(Tensor& t) { return t.data.empty() ? nullptr : t.data.data(); }
const float* ptr(const Tensor& t) { return t.data.empty() ? nullptr : t.data.data(); }
}  // namespace

void GPT::backward(const GPTActivations& acts, const float* dlogits, GPT& g) const {
    const GPTConfig& c = config_;
    const int64_t B = acts.B, T = acts.T, N = B * T, C = c.n_embd, H = c.n_head, F = c.n_inner, V = c.vocab_size;
    const bool pre = c.norm == NormPlacement::Pre;

    // ---- vocabulary projection (and the final LayerNorm of pre-norm models)
    Matrix dhead_in(N, C);
    Tensor& dhead = c.tie_embeddings ? g.wte : g.lm_head_weight;
    linear_backward(dhead_in.data(), dhead.data.data(), ptr(g.lm_head_bias), dlogits,
                    (pre ? acts.ln_f : acts.x_final).data(), ptr(head_weight()), N, C, V);
    Matrix dx = Matrix::Zero(N, C);
    if (pre) {
        layer_norm_backward(dx.data(), ptr(g.ln_f_weight), ptr(g.ln_f_bias), dhead_in.data(), acts.x_final.data(),
                            ptr(ln_f_weight), acts.ln_f_mean.data(), acts.ln_f_rstd.data(), N, C);
    } else {
        dx = dhead_in;
    }

    Matrix dx_1(N, C), dm(N, C), dact(N, F), dfc(N, F), din(N, C), da(N, C), dy(N, C), dqkv(N, 3 * C);
    for (int64_t l = c.n_layer - 1; l >= 0; --l) {
        const GPTBlock& blk = h[static_cast<size_t>(l)];
        GPTBlock& gb = g.h[static_cast<size_t>(l)];
        const GPTLayerActivations& L = acts.layers[static_cast<size_t>(l)];

        // ---- feed-forward sublayer. pre: x = x₁ + m. post: x = LN₂(x₁ + m).
        if (pre) {
            dx_1 = dx;
        } else {
            dx_1.setZero();
            layer_norm_backward(dx_1.data(), ptr(gb.ln_2_weight), ptr(gb.ln_2_bias), dx.data(), L.ln_2.data(),
                                ptr(blk.ln_2_weight), L.ln_2_mean.data(), L.ln_2_rstd.data(), N, C);
        }
        dm = dx_1;
        if (!L.resid_2_keep.empty()) apply_mask(dm.data(), L.resid_2_keep);
        linear_backward(dact.data(), ptr(gb.mlp_c_proj_weight), ptr(gb.mlp_c_proj_bias), dm.data(), L.act.data(),
                        ptr(blk.mlp_c_proj_weight), N, F, C);
        if (c.activation == Activation::GELU) {
            gelu_backward(dfc.data(), L.fc.data(), dact.data(), N * F);
        } else {
            relu_backward(dfc.data(), L.fc.data(), dact.data(), N * F);
        }
        linear_backward(din.data(), ptr(gb.mlp_c_fc_weight), ptr(gb.mlp_c_fc_bias), dfc.data(),
                        (pre ? L.ln_2 : L.x_1).data(), ptr(blk.mlp_c_fc_weight), N, C, F);
        if (pre) {
            layer_norm_backward(dx_1.data(), ptr(gb.ln_2_weight), ptr(gb.ln_2_bias), din.data(), L.x_1.data(),
                                ptr(blk.ln_2_weight), L.ln_2_mean.data(), L.ln_2_rstd.data(), N, C);
        } else {
            dx_1 += din;
        }

        // ---- attention sublayer. pre: x₁ = x + a. post: x₁ = LN₁(x + a).
        if (pre) {
            dx = dx_1;
        } else {
            dx.setZero();
            layer_norm_backward(dx.data(), ptr(gb.ln_1_weight), ptr(gb.ln_1_bias), dx_1.data(), L.ln_1.data(),
                                ptr(blk.ln_1_weight), L.ln_1_mean.data(), L.ln_1_rstd.data(), N, C);
        }
        da = dx;
        if (!L.resid_1_keep.empty()) apply_mask(da.data(), L.resid_1_keep);
        linear_backward(dy.data(), ptr(gb.attn_c_proj_weight), ptr(gb.attn_c_proj_bias), da.data(), L.y.data(),
                        ptr(blk.attn_c_proj_weight), N, C, C);
        dqkv.setZero();
        multi_head_attention_backward(dqkv.leftCols(C), dqkv.middleCols(C, C), dqkv.rightCols(C), dy,
                                      L.qkv.leftCols(C), L.qkv.middleCols(C, C), L.qkv.rightCols(C), L.att.data(),
                                      L.att_keep.empty() ? nullptr : L.att_keep.data(), B, H);
        linear_backward(din.data(), ptr(gb.attn_c_attn_weight), ptr(gb.attn_c_attn_bias), dqkv.data(),
                        (pre ? L.ln_1 : L.input).data(), ptr(blk.attn_c_attn_weight), N, C, 3 * C);
        if (pre) {
            layer_norm_backward(dx.data(), ptr(gb.ln_1_weight), ptr(gb.ln_1_bias), din.data(), L.input.data(),
                                ptr(blk.ln_1_weight), L.ln_1_mean.data(), L.ln_1_rstd.data(), N, C);
        } else {
            dx += din;
        }
    }

    // ---- embeddings: x₀ = dropout(wte[id] + wpe[t])
    if (!acts.emb_keep.empty()) apply_mask(dx.data(), acts.emb_keep);
    MatrixMap dwte = matrix(g.wte), dwpe = matrix(g.wpe);
    for (int64_t r = 0; r < N; ++r) {
        dwte.row(acts.ids[static_cast<size_t>(r)]) += dx.row(r);
        dwpe.row(r % T) += dx.row(r);
    }
}

}  // namespace attn
