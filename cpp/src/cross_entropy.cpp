#include "attn/cross_entropy.hpp"

#include "thread_pool.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

namespace attn {

float cross_entropy_forward_backward(const float* logits, const int64_t* targets, int64_t N, int64_t V,
                                     float* dlogits) {
    const float inv_n = 1.0f / static_cast<float>(N);
    // Rows on the library's threads; their losses summed afterwards, in order.
    std::vector<double> losses(static_cast<size_t>(N));
    parallel_for(N, [&](int64_t r) {
        const float* row = logits + r * V;
        const float max = *std::max_element(row, row + V);
        double sum = 0;
        for (int64_t j = 0; j < V; ++j) sum += std::exp(static_cast<double>(row[j] - max));
        const double log_sum = std::log(sum) + max;
        losses[static_cast<size_t>(r)] = log_sum - row[targets[r]];
        if (dlogits) {
            float* d = dlogits + r * V;
            for (int64_t j = 0; j < V; ++j) d[j] = static_cast<float>(std::exp(row[j] - log_sum)) * inv_n;
            d[targets[r]] -= inv_n;
        }
    }, grain_for_work(20.0 * static_cast<double>(V)));  // an exp is ~20 operations
    double total = 0;
    for (double loss : losses) total += loss;
    return static_cast<float>(total / static_cast<double>(N));
}

}  // namespace attn
