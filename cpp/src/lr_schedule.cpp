#include "attn/lr_schedule.hpp"

#include <cmath>

namespace attn {

float LRSchedule::at(int64_t it) const {
    if (!decay_lr) return learning_rate;
    if (it < warmup_iters) {
        return static_cast<float>(learning_rate * static_cast<double>(it + 1) / static_cast<double>(warmup_iters + 1));
    }
    if (it > lr_decay_iters) return min_lr;
    const double ratio = static_cast<double>(it - warmup_iters) / static_cast<double>(lr_decay_iters - warmup_iters);
    const double coeff = 0.5 * (1.0 + std::cos(3.14159265358979323846 * ratio));
    return static_cast<float>(min_lr + coeff * (learning_rate - min_lr));
}

}  // namespace attn
