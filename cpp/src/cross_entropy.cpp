#include "attn/cross_entropy.hpp"

#include <algorithm>
#include <cmath>

namespace attn {

float cross_entropy_forward_backward(const float* logits, const int64_t* targets, int64_t N, int64_t V,
                                     float* dlogits) {
    double total = 0;
    const float inv_n = 1.0f / static_cast<float>(N);
    for (int64_t r = 0; r < N; ++r) {
        const float* row = logits + r * V;
        const float max = *std::max_element(row, row + V);
        double sum = 0;
        for (int64_t j = 0; j < V; ++j) sum += std::exp(static_cast<double>(row[j] - max));
        const double log_sum = std::log(sum) + max;
        total += log_sum - row[targets[r]];
        if (dlogits) {
            float* d = dlogits + r * V;
            for (int64_t j = 0; j < V; ++j) d[j] = static_cast<float>(std::exp(row[j] - log_sum)) * inv_n;
            d[targets[r]] -= inv_n;
        }
    }
    return static_cast<float>(total / static_cast<double>(N));
}

}  // namespace attn
