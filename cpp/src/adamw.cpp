#include "attn/adamw.hpp"

#include "thread_pool.hpp"

#include <atomic>
#include <cmath>

namespace attn {

// A tensor's update runs in chunks of this many elements on the library's threads
// (a smaller tensor is one chunk: not worth waking a second core).
constexpr int64_t kChunkElements = 1 << 15;

AdamW::AdamW(const GPT& model, const AdamWOptions& o) : options(o) {
    for (const auto& [name, t] : model.named_parameters()) {
        exp_avg.emplace_back(t->shape);
        exp_avg_sq.emplace_back(t->shape);
    }
}

void AdamW::step(GPT& model, const GPT& grads, float lr) {
    const int64_t t = steps + 1;
    const double bias_correction1 = 1.0 - std::pow(static_cast<double>(options.beta1), static_cast<double>(t));
    const double bias_correction2 = 1.0 - std::pow(static_cast<double>(options.beta2), static_cast<double>(t));
    const auto step_size = static_cast<float>(lr / bias_correction1);
    const auto bc2_sqrt = static_cast<float>(std::sqrt(bias_correction2));
    const float b1 = options.beta1, b2 = options.beta2, eps = options.eps;
    auto params = model.named_parameters();
    const auto gs = grads.named_parameters();
    // The update of element j, written through the pointers it is given.
    const auto update = [&](float decay, float& p, float g, float& m, float& v) {
        p *= decay;
        m += (g - m) * (1.0f - b1);  // exp_avg.lerp_(grad, 1 - beta1)
        v = v * b2 + (1.0f - b2) * g * g;
        p -= step_size * m / (std::sqrt(v) / bc2_sqrt + eps);
    };
    // Two passes: the first computes every new value and checks it, so that a
    // non-finite one is refused before anything changes; the second writes.
    // Both are branch-free loops the compiler vectorises, and large tensors
    // are split between the library's threads in fixed chunks (thread_pool.hpp).
    for (size_t i = 0; i < params.size(); ++i) {
        const float* p = params[i].second->data.data();
        const float* g = gs[i].second->data.data();
        const float* m = exp_avg[i].data.data();
        const float* v = exp_avg_sq[i].data.data();
        const float decay = params[i].second->dim() >= 2 ? 1.0f - lr * options.weight_decay : 1.0f;
        const int64_t n = params[i].second->numel();
        std::atomic<bool> bad{false};
        parallel_chunks(n, kChunkElements, [&](int64_t j0, int64_t j1) {
            int chunk_bad = 0;
            for (int64_t j = j0; j < j1; ++j) {
                float pj = p[j], mj = m[j], vj = v[j];
                update(decay, pj, g[j], mj, vj);
                chunk_bad |= (pj * 0.0f + mj * 0.0f + vj * 0.0f) != 0.0f;  // x * 0 is NaN exactly when x is not finite
            }
            if (chunk_bad) bad = true;
        });
        if (bad) {
            throw Error("AdamW: the update of " + params[i].first + " at step " + std::to_string(t) +
                        " gives non-finite values; nothing was changed");
        }
    }
    for (size_t i = 0; i < params.size(); ++i) {
        float* p = params[i].second->data.data();
        const float* g = gs[i].second->data.data();
        float* m = exp_avg[i].data.data();
        float* v = exp_avg_sq[i].data.data();
        const float decay = params[i].second->dim() >= 2 ? 1.0f - lr * options.weight_decay : 1.0f;
        const int64_t n = params[i].second->numel();
        parallel_chunks(n, kChunkElements, [&](int64_t j0, int64_t j1) {
            for (int64_t j = j0; j < j1; ++j) update(decay, p[j], g[j], m[j], v[j]);
        });
    }
    steps = t;
}

float clip_grad_norm(GPT& grads, float max_norm) {
    double sum = 0;
    for (const auto& [name, t] : grads.named_parameters())
        for (float g : t->data) sum += static_cast<double>(g) * g;
    const auto norm = static_cast<float>(std::sqrt(sum));
    const float coef = max_norm / (norm + 1e-6f);
    if (coef < 1.0f) {
        for (auto& [name, t] : grads.named_parameters())
            for (float& g : t->data) g *= coef;
    }
    return norm;
}

}  // namespace attn
