#include "attn/torch_rng.hpp"

#include <cmath>
#include <string>

namespace attn {

namespace {
constexpr double kPi = 3.14159265358979323846;

// normal_fill_16 (native/cpu/DistributionTemplates.h): the first 8 uniforms
// give radii, the next 8 angles; each pair yields a cosine and a sine sample.
// Arithmetic is in float, as PyTorch does for float tensors.
void normal_fill_16(float* d, float mean, float std) {
    for (int j = 0; j < 8; ++j) {
        const float u1 = 1.0f - d[j];  // [0, 1) -> (0, 1] so log is finite
        const float u2 = d[j + 8];
        const float radius = std::sqrt(-2.0f * std::log(u1));
        const float theta = static_cast<float>(2.0 * kPi * u2);
        d[j] = radius * std::cos(theta) * std + mean;
        d[j + 8] = radius * std::sin(theta) * std + mean;
    }
}
}  // namespace

void Generator::manual_seed(uint64_t seed) {
    // std::mt19937's single-value seeding is mt19937's init_genrand, the same
    // one PyTorch's engine uses on the low 32 bits of the seed.
    engine_.seed(static_cast<uint32_t>(seed & 0xFFFFFFFFu));
    next_double_normal_.reset();
}

uint32_t Generator::random() { return static_cast<uint32_t>(engine_()); }

uint64_t Generator::random64() {
    const uint64_t hi = random();
    const uint64_t lo = random();
    return (hi << 32) | lo;
}

float Generator::uniform_float(float from, float to) {
    const float x = static_cast<float>(random() & 0xFFFFFFu) * (1.0f / 16777216.0f);
    return x * (to - from) + from;
}

double Generator::uniform_double() {
    constexpr uint64_t kMask = (uint64_t{1} << 53) - 1;
    return static_cast<double>(random64() & kMask) * (1.0 / 9007199254740992.0);
}

double Generator::normal_double() {
    if (next_double_normal_) {
        const double cached = *next_double_normal_;
        next_double_normal_.reset();
        return cached;
    }
    const double u1 = uniform_double();
    const double u2 = uniform_double();
    const double r = std::sqrt(-2.0 * std::log1p(-u2));
    const double theta = 2.0 * kPi * u1;
    next_double_normal_ = r * std::sin(theta);
    return r * std::cos(theta);
}

Generator& default_generator() {
    static Generator gen;
    return gen;
}

void manual_seed(uint64_t seed) { default_generator().manual_seed(seed); }

void uniform_(Tensor& t, double from, double to, Generator& gen) {
    if (!(from <= to) || !std::isfinite(from) || !std::isfinite(to)) {
        throw Error("uniform_: expected finite from <= to, got from=" + format_number(from) +
                    ", to=" + format_number(to));
    }
    const auto f = static_cast<float>(from), g = static_cast<float>(to);
    for (auto& x : t.data) x = gen.uniform_float(f, g);
}

void normal_(Tensor& t, double mean, double std, Generator& gen) {
    if (!(std >= 0) || !std::isfinite(mean) || !std::isfinite(std)) {
        throw Error("normal_: expected finite mean and std >= 0, got mean=" +
                    format_number(mean) + ", std=" + format_number(std));
    }
    const int64_t n = t.numel();
    if (n >= 16) {
        // Path A: all uniforms first, then Box-Muller in blocks of 16; a tail
        // that does not fill a block redraws the last 16 and transforms them.
        uniform_(t, 0.0, 1.0, gen);
        float* d = t.data.data();
        const auto m = static_cast<float>(mean), s = static_cast<float>(std);
        for (int64_t i = 0; i + 16 <= n; i += 16) normal_fill_16(d + i, m, s);
        if (n % 16 != 0) {
            float* tail = d + n - 16;
            for (int i = 0; i < 16; ++i) tail[i] = gen.uniform_float(0.0f, 1.0f);
            normal_fill_16(tail, m, s);
        }
    } else {
        // Path B: one double sample at a time, shared cache with other calls.
        for (auto& x : t.data) x = static_cast<float>(gen.normal_double() * std + mean);
    }
}

void exponential_(Tensor& t, double lambd, Generator& gen) {
    if (!(lambd > 0) || !std::isfinite(lambd)) {
        throw Error("exponential_: expected a finite lambd > 0, got " + format_number(lambd));
    }
    for (auto& x : t.data) x = static_cast<float>(-std::log1p(-gen.uniform_double()) / lambd);
}

Tensor rand(const Shape& shape, Generator& gen) {
    Tensor t(shape);
    uniform_(t, 0.0, 1.0, gen);
    return t;
}

Tensor randn(const Shape& shape, Generator& gen) {
    Tensor t(shape);
    normal_(t, 0.0, 1.0, gen);
    return t;
}

std::vector<int64_t> randint(int64_t low, int64_t high, const Shape& shape, Generator& gen) {
    if (high <= low) {
        throw Error("randint: expected low < high, got low=" + std::to_string(low) +
                    ", high=" + std::to_string(high));
    }
    const auto range = static_cast<uint64_t>(high - low);
    std::vector<int64_t> out(static_cast<size_t>(numel(shape, "randint")));
    for (auto& v : out) {
        const uint64_t r = range >= (uint64_t{1} << 32) ? gen.random64() : gen.random();
        v = static_cast<int64_t>(r % range) + low;
    }
    return out;
}

}  // namespace attn
