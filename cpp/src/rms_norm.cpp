#include "attn/rms_norm.hpp"

#include "thread_pool.hpp"

#include <cmath>

namespace attn {

void rms_norm_forward(float* out, const float* inp, const float* weight, int64_t N, int64_t C, float eps, float offset,
                      float* rstd_out) {
    parallel_for(N, [&](int64_t r) {
        const float* x = inp + r * C;
        float* y = out + r * C;
        float mean_square = 0;
        for (int64_t j = 0; j < C; ++j) mean_square += x[j] * x[j];
        mean_square /= static_cast<float>(C);
        const float rstd = 1.0f / std::sqrt(mean_square + eps);
        for (int64_t j = 0; j < C; ++j) y[j] = (offset + weight[j]) * (x[j] * rstd);
        if (rstd_out) rstd_out[r] = rstd;
    }, grain_for_work(4.0 * static_cast<double>(C)));
}

void rms_norm_backward(float* dinp, float* dweight, const float* dout, const float* inp, const float* weight, const float* rstd,
                       int64_t N, int64_t C, float offset) {
    // With n = x · rstd and g = dy ⊙ (offset + w): dx = rstd · (g − n · mean(g ⊙ n)).
    parallel_for(N, [&](int64_t r) {
        const float* dy = dout + r * C;
        const float* x = inp + r * C;
        float* dx = dinp + r * C;
        float dot = 0;
        for (int64_t j = 0; j < C; ++j) dot += dy[j] * (offset + weight[j]) * x[j] * rstd[r];
        dot /= static_cast<float>(C);
        for (int64_t j = 0; j < C; ++j) {
            const float n = x[j] * rstd[r];
            dx[j] += rstd[r] * (dy[j] * (offset + weight[j]) - n * dot);
        }
    }, grain_for_work(8.0 * static_cast<double>(C)));
    // dw is a sum over rows: split by columns, each summed over the rows in order (the same on any thread count).
    parallel_chunks(C, grain_for_work(3.0 * static_cast<double>(N)), [&](int64_t j0, int64_t j1) {
        for (int64_t r = 0; r < N; ++r) {
            for (int64_t j = j0; j < j1; ++j) dweight[j] += dout[r * C + j] * inp[r * C + j] * rstd[r];
        }
    });
}

}  // namespace attn
