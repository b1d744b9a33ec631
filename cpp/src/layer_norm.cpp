#include "attn/layer_norm.hpp"

#include <cmath>
#include <string>

namespace attn {

LayerNorm::LayerNorm(int64_t c, float e) : eps(e) {
    if (c <= 0) throw Error("LayerNorm: expected normalized_shape > 0, got " + std::to_string(c));
    if (!(e > 0) || !std::isfinite(e)) throw Error("LayerNorm: expected eps > 0, got " + std::to_string(e));
    weight = Tensor({c}, std::vector<float>(static_cast<size_t>(c), 1.0f));
    bias = Tensor({c});
}

Tensor LayerNorm::forward(const Tensor& x) const {
    const int64_t c = features();
    if (x.dim() < 1 || x.size(-1) != c) {
        throw_shape("LayerNorm.forward", "x", "[..., " + std::to_string(c) + "]", x.shape);
    }
    check_finite(x, "LayerNorm.forward", "x");
    Tensor y(x.shape);
    for (int64_t r = 0; r < x.numel() / c; ++r) {
        const float* in = x.data.data() + r * c;
        float* out = y.data.data() + r * c;
        float mean = 0, var = 0;
        for (int64_t j = 0; j < c; ++j) mean += in[j];
        mean /= static_cast<float>(c);
        for (int64_t j = 0; j < c; ++j) var += (in[j] - mean) * (in[j] - mean);
        const float inv_std = 1.0f / std::sqrt(var / static_cast<float>(c) + eps);
        for (int64_t j = 0; j < c; ++j) out[j] = (in[j] - mean) * inv_std * weight[j] + bias[j];
    }
    return y;
}

}  // namespace attn
