#include "attn/online_softmax.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

namespace attn {

OnlineSoftmaxTrace online_softmax(const Tensor& scores, int64_t block) {
    if (scores.dim() != 1 || scores.numel() < 1) {
        throw Error("online_softmax: expected one row of scores (n) with n >= 1, got " + shape_str(scores.shape));
    }
    if (block < 1) throw Error("online_softmax: expected a block of at least 1 key, got " + std::to_string(block));
    for (float s : scores.data) {
        if (std::isnan(s) || s == std::numeric_limits<float>::infinity()) {
            throw Error("online_softmax: expected finite scores or -inf (a masked key), got " + std::to_string(s));
        }
    }
    const int64_t n = scores.numel(), steps = (n + block - 1) / block;
    OnlineSoftmaxTrace t{Tensor({steps}), Tensor({steps}), Tensor({n})};
    float m = -std::numeric_limits<float>::infinity(), l = 0.0f;
    for (int64_t s = 0; s < steps; ++s) {
        const int64_t begin = s * block, end = std::min(n, begin + block);
        float m_new = m;
        for (int64_t j = begin; j < end; ++j) m_new = std::max(m_new, scores.data[j]);
        // The sum so far was of e^(ω − m): moved to the new maximum by one factor (0 while nothing finite was seen).
        if (m_new != -std::numeric_limits<float>::infinity()) {
            l *= (m == -std::numeric_limits<float>::infinity()) ? 0.0f : std::exp(m - m_new);
            for (int64_t j = begin; j < end; ++j) l += std::exp(scores.data[j] - m_new);
        }
        m = m_new;
        t.maxima.data[s] = m;
        t.sums.data[s] = l;
    }
    for (int64_t j = 0; j < n; ++j) t.weights.data[j] = l > 0 ? std::exp(scores.data[j] - m) / l : 0.0f;
    return t;
}

}  // namespace attn
