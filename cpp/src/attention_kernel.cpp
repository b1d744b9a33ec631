#include "attn/attention_kernel.hpp"

#include "attn/mask.hpp"

#include <cmath>
#include <limits>
#include <string>

namespace attn {

void multi_head_attention_forward(ConstMatrixRef q, ConstMatrixRef k, ConstMatrixRef v, int64_t B,
                                  int64_t H, const AttentionOptions& o, MatrixRef y, float* scores,
                                  float* weights, const char* fn, const float* keep) {
    const int64_t T_q = q.rows() / B, T_k = k.rows() / B;
    const int64_t d_k = q.cols() / H, d_v = v.cols() / H;
    if (!o.key_lengths.empty() && static_cast<int64_t>(o.key_lengths.size()) != B) {
        throw Error(std::string(fn) + ": expected " + std::to_string(B) + " key lengths (one per batch row), got " +
                    std::to_string(o.key_lengths.size()));
    }
    for (int64_t len : o.key_lengths) {
        if (len < 0 || len > T_k) {
            throw Error(std::string(fn) + ": expected key lengths in [0, " + std::to_string(T_k) + "], got " +
                        std::to_string(len));
        }
    }
    if (std::isnan(o.fill_value) || o.fill_value == std::numeric_limits<float>::infinity()) {
        throw Error(std::string(fn) + ": expected fillValue finite or -Infinity, got " + format_number(o.fill_value));
    }
    const Tensor attend_mask = o.mask.dim() == 0 ? Tensor() : broadcast_mask(o.mask, {B, H, T_q, T_k}, fn);
    const float root = std::sqrt(static_cast<float>(d_k));
    const float neg_inf = -std::numeric_limits<float>::infinity();

    Matrix s(T_q, T_k);
    for (int64_t b = 0; b < B; ++b) {
        const int64_t len = o.key_lengths.empty() ? T_k : o.key_lengths[static_cast<size_t>(b)];
        for (int64_t h = 0; h < H; ++h) {
            s.noalias() = q.block(b * T_q, h * d_k, T_q, d_k) * k.block(b * T_k, h * d_k, T_k, d_k).transpose();
            if (o.scale) {
                s *= *o.scale;
            } else {
                s /= root;
            }
            const float* m = attend_mask.dim() == 0 ? nullptr : attend_mask.data.data() + (b * H + h) * T_q * T_k;
            for (int64_t i = 0; i < T_q; ++i) {
                // Causal: query i is token i + (T_k - T_q) of the key sequence.
                const int64_t last = o.causal ? i + (T_k - T_q) : T_k - 1;
                float max = neg_inf;
                for (int64_t j = 0; j < T_k; ++j) {
                    if (j > last || j >= len || (m && m[i * T_k + j] == 0.0f)) s(i, j) = o.fill_value;
                    max = std::max(max, s(i, j));
                }
                if (scores) std::copy_n(&s(i, 0), T_k, scores + ((b * H + h) * T_q + i) * T_k);
                if (max == neg_inf) {  // every key masked: zeros, as softmax() documents
                    s.row(i).setZero();
                    continue;
                }
                float sum = 0;
                for (int64_t j = 0; j < T_k; ++j) sum += s(i, j) = std::exp(s(i, j) - max);
                s.row(i) /= sum;
            }
            if (weights) std::copy_n(s.data(), T_q * T_k, weights + (b * H + h) * T_q * T_k);
            if (keep) s = s.cwiseProduct(ConstMatrixMap(keep + (b * H + h) * T_q * T_k, T_q, T_k));
            y.block(b * T_q, h * d_v, T_q, d_v).noalias() = s * v.block(b * T_k, h * d_v, T_k, d_v);
        }
    }
}

void multi_head_attention_backward(MatrixRef dq, MatrixRef dk, MatrixRef dv, ConstMatrixRef dy, ConstMatrixRef q,
                                   ConstMatrixRef k, ConstMatrixRef v, const float* weights, const float* keep,
                                   int64_t B, int64_t H) {
    const int64_t T_q = q.rows() / B, T_k = k.rows() / B;
    const int64_t d_k = q.cols() / H, d_v = v.cols() / H;
    const float scale = 1.0f / std::sqrt(static_cast<float>(d_k));
    Matrix dp(T_q, T_k), pd(T_q, T_k);
    for (int64_t b = 0; b < B; ++b) {
        for (int64_t h = 0; h < H; ++h) {
            const ConstMatrixMap p(weights + (b * H + h) * T_q * T_k, T_q, T_k);
            const auto dY = dy.block(b * T_q, h * d_v, T_q, d_v);
            const auto V = v.block(b * T_k, h * d_v, T_k, d_v);
            dp.noalias() = dY * V.transpose();
            if (keep) {
                const ConstMatrixMap m(keep + (b * H + h) * T_q * T_k, T_q, T_k);
                pd = p.cwiseProduct(m);
                dv.block(b * T_k, h * d_v, T_k, d_v).noalias() += pd.transpose() * dY;
                dp = dp.cwiseProduct(m);
            } else {
                dv.block(b * T_k, h * d_v, T_k, d_v).noalias() += p.transpose() * dY;
            }
            // softmax backward, row by row: dS = P ⊙ (dP - Σ_j dP_j P_j)
            const Eigen::VectorXf row_dot = dp.cwiseProduct(p).rowwise().sum();
            dp = p.cwiseProduct(dp.colwise() - row_dot) * scale;
            dq.block(b * T_q, h * d_k, T_q, d_k).noalias() += dp * k.block(b * T_k, h * d_k, T_k, d_k);
            dk.block(b * T_k, h * d_k, T_k, d_k).noalias() += dp.transpose() * q.block(b * T_q, h * d_k, T_q, d_k);
        }
    }
}

Tensor split_heads(ConstMatrixRef x, int64_t B, int64_t H) {
    const int64_t T = x.rows() / B, d = x.cols() / H;
    Tensor out({B, H, T, d});
    for (int64_t b = 0; b < B; ++b)
        for (int64_t h = 0; h < H; ++h)
            MatrixMap(out.data.data() + (b * H + h) * T * d, T, d) = x.block(b * T, h * d, T, d);
    return out;
}

}  // namespace attn
