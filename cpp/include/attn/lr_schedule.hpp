// Learning-rate schedules: constant, or nanoGPT's get_lr, a linear warm-up to
// learning_rate followed by a cosine decay to min_lr at lr_decay_iters.
#pragma once

#include <cstdint>

namespace attn {

struct LRSchedule {
    float learning_rate = 1e-3f;
    bool decay_lr = true;         // false: constant learning_rate (nanoGPT's decay_lr)
    int64_t warmup_iters = 100;
    int64_t lr_decay_iters = 2000;
    float min_lr = 1e-4f;

    float at(int64_t iter) const;
};

}  // namespace attn
