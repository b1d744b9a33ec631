#include "attn/layer_norm.hpp"

#include "thread_pool.hpp"

#include <cmath>
#include <string>

namespace attn {

LayerNorm::LayerNorm(int64_t c, float e) : eps(e) {
    if (c <= 0) throw Error("LayerNorm: expected normalized_shape > 0, got " + std::to_string(c));
    if (!(e > 0) || !std::isfinite(e)) throw Error("LayerNorm: expected eps > 0, got " + std::to_string(e));
    weight = Tensor({c}, std::vector<float>(static_cast<size_t>(c), 1.0f));
    bias = Tensor({c});
}

void layer_norm_forward(float* out, const float* inp, const float* weight, const float* bias, int64_t N,
                        int64_t C, float eps, float* mean_out, float* rstd_out) {
    // Rows are independent: spread over the library's threads.
    parallel_for(N, [&](int64_t r) {
        const float* in = inp + r * C;
        float* o = out + r * C;
        float mean = 0, var = 0;
        for (int64_t j = 0; j < C; ++j) mean += in[j];
        mean /= static_cast<float>(C);
        for (int64_t j = 0; j < C; ++j) var += (in[j] - mean) * (in[j] - mean);
        const float inv_std = 1.0f / std::sqrt(var / static_cast<float>(C) + eps);
        for (int64_t j = 0; j < C; ++j) o[j] = (in[j] - mean) * inv_std * weight[j] + (bias ? bias[j] : 0.0f);
        if (mean_out) mean_out[r] = mean;
        if (rstd_out) rstd_out[r] = inv_std;
    }, grain_for_work(5.0 * static_cast<double>(C)));
}

void layer_norm_backward(float* dinp, float* dweight, float* dbias, const float* dout, const float* inp,
                         const float* weight, const float* mean, const float* rstd, int64_t N, int64_t C) {
    // dx row by row, the rows spread over the threads.
    parallel_for(N, [&](int64_t r) {
        const float* dy = dout + r * C;
        const float* x = inp + r * C;
        float* dx = dinp + r * C;
        // dnorm = dy ⊙ γ; dx = rstd (dnorm - mean(dnorm) - norm · mean(dnorm ⊙ norm))
        float dnorm_mean = 0, dnorm_norm_mean = 0;
        for (int64_t j = 0; j < C; ++j) {
            const float norm = (x[j] - mean[r]) * rstd[r];
            const float dnorm = weight[j] * dy[j];
            dnorm_mean += dnorm;
            dnorm_norm_mean += dnorm * norm;
        }
        dnorm_mean /= static_cast<float>(C);
        dnorm_norm_mean /= static_cast<float>(C);
        for (int64_t j = 0; j < C; ++j) {
            const float norm = (x[j] - mean[r]) * rstd[r];
            const float dnorm = weight[j] * dy[j];
            dx[j] += (dnorm - dnorm_mean - norm * dnorm_norm_mean) * rstd[r];
        }
    }, grain_for_work(8.0 * static_cast<double>(C)));
    // dγ and dβ are sums over rows: split by columns, each summed over the rows in order by one thread.
    // (Each column's sum is the same whatever the chunks, so their width follows the work.)
    parallel_chunks(C, grain_for_work(4.0 * static_cast<double>(N)), [&](int64_t j0, int64_t j1) {
        for (int64_t r = 0; r < N; ++r) {
            const float* dy = dout + r * C;
            const float* x = inp + r * C;
            for (int64_t j = j0; j < j1; ++j) {
                const float norm = (x[j] - mean[r]) * rstd[r];
                if (dbias) dbias[j] += dy[j];
                dweight[j] += norm * dy[j];
            }
        }
    });
}

Tensor LayerNorm::forward(const Tensor& x) const {
    const int64_t c = features();
    if (x.dim() < 1 || x.size(-1) != c) {
        throw_shape("LayerNorm.forward", "x", "[..., " + std::to_string(c) + "]", x.shape);
    }
    check_finite(x, "LayerNorm.forward", "x");
    Tensor y(x.shape);
    layer_norm_forward(y.data.data(), x.data.data(), weight.data.data(), bias.data.data(), x.numel() / c, c, eps);
    return y;
}

}  // namespace attn
