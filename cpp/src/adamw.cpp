#include "attn/adamw.hpp"

#include "parameter_chunks.hpp"
#include "thread_pool.hpp"

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>
#include <vector>

namespace attn {

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
    // Both are branch-free loops the compiler vectorises, over chunks of every
    // tensor spread between the library's threads (each element's arithmetic is
    // the same on any).
    const std::vector<ParameterChunk> chunks = parameter_chunks(params);
    // What the update of a chunk's elements reads and writes.
    struct Chunk {
        float *p, *m, *v;
        const float* g;
        float decay;
    };
    const auto chunk_at = [&](int64_t c) {
        const ParameterChunk& k = chunks[static_cast<size_t>(c)];
        Tensor& p = *params[k.tensor].second;
        return Chunk{p.data.data(), exp_avg[k.tensor].data.data(), exp_avg_sq[k.tensor].data.data(),
                     gs[k.tensor].second->data.data(), p.dim() >= 2 ? 1.0f - lr * options.weight_decay : 1.0f};
    };
    // An element costs ~5 ns per pass on one WebAssembly thread (a square root and a division among ten
    // operations): some 50 of the multiply-adds grain_for_work counts.
    const double chunk_work = 50.0 * static_cast<double>(kParameterChunk);
    std::vector<char> bad(chunks.size(), 0);  // one flag per chunk, written by its task alone
    parallel_for(static_cast<int64_t>(chunks.size()), [&](int64_t c) {
        const ParameterChunk& k = chunks[static_cast<size_t>(c)];
        const Chunk x = chunk_at(c);
        int chunk_bad = 0;
        for (int64_t j = k.begin; j < k.end; ++j) {
            float pj = x.p[j], mj = x.m[j], vj = x.v[j];
            update(x.decay, pj, x.g[j], mj, vj);
            chunk_bad |= (pj * 0.0f + mj * 0.0f + vj * 0.0f) != 0.0f;  // x * 0 is NaN exactly when x is not finite
        }
        bad[static_cast<size_t>(c)] = static_cast<char>(chunk_bad);
    }, grain_for_work(chunk_work));
    for (size_t c = 0; c < chunks.size(); ++c) {
        if (bad[c]) {
            throw Error("AdamW: the update of " + params[chunks[c].tensor].first + " at step " + std::to_string(t) +
                        " gives non-finite values; nothing was changed");
        }
    }
    parallel_for(static_cast<int64_t>(chunks.size()), [&](int64_t c) {
        const ParameterChunk& k = chunks[static_cast<size_t>(c)];
        const Chunk x = chunk_at(c);
        for (int64_t j = k.begin; j < k.end; ++j) update(x.decay, x.p[j], x.g[j], x.m[j], x.v[j]);
    }, grain_for_work(chunk_work));
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
