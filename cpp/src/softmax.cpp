#include "attn/softmax.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace attn {

namespace {
// Calls f(row pointer, row length) for every last-dimension row of t.
template <typename F>
Tensor map_rows(const Tensor& scores, const char* fn, F f) {
    if (scores.dim() < 1 || scores.size(-1) == 0) throw_shape(fn, "scores", "[..., T] with T > 0", scores.shape);
    Tensor out = scores;
    const int64_t n = scores.size(-1);
    for (int64_t r = 0; r < out.numel() / n; ++r) f(out.data.data() + r * n, n);
    return out;
}
}  // namespace

Tensor normalize_sum(const Tensor& scores) {
    return map_rows(scores, "normalizeSum", [](float* row, int64_t n) {
        float sum = 0;
        for (int64_t j = 0; j < n; ++j) sum += row[j];
        for (int64_t j = 0; j < n; ++j) row[j] /= sum;
    });
}

Tensor softmax_naive(const Tensor& scores) {
    return map_rows(scores, "softmaxNaive", [](float* row, int64_t n) {
        float sum = 0;
        for (int64_t j = 0; j < n; ++j) sum += row[j] = std::exp(row[j]);
        for (int64_t j = 0; j < n; ++j) row[j] /= sum;
    });
}

Tensor softmax(const Tensor& scores) {
    return map_rows(scores, "softmax", [](float* row, int64_t n) {
        const float max = *std::max_element(row, row + n);
        if (max == -std::numeric_limits<float>::infinity()) {
            std::fill(row, row + n, 0.0f);  // every key masked: documented zeros
            return;
        }
        float sum = 0;
        for (int64_t j = 0; j < n; ++j) sum += row[j] = std::exp(row[j] - max);
        for (int64_t j = 0; j < n; ++j) row[j] /= sum;
    });
}

}  // namespace attn
