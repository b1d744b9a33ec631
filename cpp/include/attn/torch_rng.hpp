// PyTorch-compatible random numbers: the same seed and the same sequence of
// calls give the numbers PyTorch's default CPU generator gives, so that
// `torch.manual_seed(123); torch.rand(3, 2)` in a notebook and
// `attn::manual_seed(123); attn::rand({3, 2})` here print the same tensor.
//
// Facts followed (PyTorch's aten/src/ATen/core/MT19937RNGEngine.h,
// CPUGeneratorImpl.cpp, core/DistributionsHelper.h, core/TransformationHelper.h,
// native/cpu/DistributionTemplates.h): an mt19937 engine seeded with the low 32
// bits of the seed; float uniforms from 24 random bits, double uniforms from 53;
// normals by Box-Muller, vectorised in blocks of 16 for float tensors of >= 16
// elements and one at a time (with a cached second sample) otherwise.
#pragma once

#include "attn/tensor.hpp"

#include <cstdint>
#include <optional>
#include <random>

namespace attn {

class Generator {
public:
    // PyTorch's default seed (c10::detail::default_rng_seed_val).
    static constexpr uint64_t kDefaultSeed = 67280421310721ULL;

    explicit Generator(uint64_t seed = kDefaultSeed) { manual_seed(seed); }

    // torch.manual_seed: re-seeds the engine and forgets the cached normal.
    void manual_seed(uint64_t seed);

    uint32_t random();    // next 32-bit output of mt19937
    uint64_t random64();  // (first << 32) | second

    // One float in [from, to): 24 random bits, arithmetic in float.
    float uniform_float(float from, float to);
    // One double in [0, 1): 53 random bits.
    double uniform_double();
    // One standard normal sample through PyTorch's scalar path (Path B in
    // docs/torch-rng.md): Box-Muller on two doubles, the sine half cached
    // for the next call.
    double normal_double();

private:
    std::mt19937 engine_;
    std::optional<double> next_double_normal_;
};

// The process-wide generator behind torch.manual_seed / torch.rand.
Generator& default_generator();
void manual_seed(uint64_t seed);

// In-place fills, element by element in row-major order, like Tensor.uniform_
// and Tensor.normal_ on a contiguous float32 CPU tensor.
void uniform_(Tensor& t, double from, double to, Generator& gen = default_generator());
void normal_(Tensor& t, double mean, double std, Generator& gen = default_generator());

// Tensor.exponential_(lambd) on PyTorch's default CPU path: per element a
// 53-bit double u, value = -log1p(-u) / lambd. (Builds with Intel MKL's VSL
// path, roughly PyTorch 2.0-2.6, drew these differently.)
void exponential_(Tensor& t, double lambd = 1.0, Generator& gen = default_generator());

// torch.rand(*shape): uniform in [0, 1).
Tensor rand(const Shape& shape, Generator& gen = default_generator());
// torch.randn(*shape): standard normal.
Tensor randn(const Shape& shape, Generator& gen = default_generator());
// torch.randint(low, high, shape): `random() % (high - low) + low`, no
// rejection sampling (hence PyTorch's small modulo bias, reproduced on purpose).
std::vector<int64_t> randint(int64_t low, int64_t high, const Shape& shape,
                             Generator& gen = default_generator());

}  // namespace attn
