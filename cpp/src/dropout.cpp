#include "attn/dropout.hpp"

namespace attn {

void dropout_mask(std::vector<float>& keep, int64_t n, float p, Generator& gen) {
    keep.resize(static_cast<size_t>(n));
    const double keep_prob = 1.0 - static_cast<double>(p);
    const float scale = static_cast<float>(1.0 / keep_prob);
    for (auto& k : keep) k = gen.uniform_double() < keep_prob ? scale : 0.0f;
}

void apply_mask(float* x, const std::vector<float>& keep) {
    for (size_t i = 0; i < keep.size(); ++i) x[i] *= keep[i];
}

}  // namespace attn
