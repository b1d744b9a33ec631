#include "attn/sinusoidal_positions.hpp"

#include <cmath>
#include <string>

namespace attn {

Tensor sinusoidal_positions(int64_t T, int64_t d) {
    if (T < 1 || d < 2 || d % 2 != 0 || T * d > (int64_t{1} << 24)) {
        throw Error("sinusoidal_positions: expected T >= 1 positions and an even d >= 2, at most 2^24 numbers in all; got T = " +
                    std::to_string(T) + ", d = " + std::to_string(d));
    }
    Tensor pe({T, d});
    // float32 throughout, as torch computes the tutorial's tensors: the rate, then the angle, then its sine.
    const float step = static_cast<float>(-std::log(10000.0) / static_cast<double>(d));
    for (int64_t i = 0; i < d / 2; ++i) {
        const float rate = std::exp(static_cast<float>(2 * i) * step);
        for (int64_t pos = 0; pos < T; ++pos) {
            const float angle = static_cast<float>(pos) * rate;
            pe.data[pos * d + 2 * i] = static_cast<float>(std::sin(static_cast<double>(angle)));
            pe.data[pos * d + 2 * i + 1] = static_cast<float>(std::cos(static_cast<double>(angle)));
        }
    }
    return pe;
}

}  // namespace attn
