// 128-bit float vectors for the library's own kernels (gemm.cpp, exp in
// softmax), written with the vector extensions GCC and Clang share. The same
// source compiles to SSE natively and to WASM SIMD128 in the WebAssembly build
// (-msimd128), so the kernels are tested natively and run in the browser.
#pragma once

#include <cstdint>
#include <cstring>

namespace attn::simd {

typedef float f32x4 __attribute__((vector_size(16)));
typedef int32_t i32x4 __attribute__((vector_size(16)));

inline f32x4 load(const float* p) {
    f32x4 v;
    std::memcpy(&v, p, sizeof v);  // unaligned: compiles to one vector load
    return v;
}

inline void store(float* p, f32x4 v) { std::memcpy(p, &v, sizeof v); }

inline f32x4 splat(float x) { return f32x4{x, x, x, x}; }

// max(a, b) as one instruction. (WASM's f32x4.max propagates NaN and orders
// ±0, which V8 emits as ~8 x86 instructions; the "pseudo" pmax is maxps. Our
// inputs hold no NaN.)
inline f32x4 max(f32x4 a, f32x4 b) {
#if defined(__wasm_simd128__)
    return __builtin_wasm_pmax_f32x4(a, b);
#else
    return a > b ? a : b;
#endif
}

inline i32x4 as_int(f32x4 v) {
    i32x4 i;
    std::memcpy(&i, &v, sizeof i);
    return i;
}

inline f32x4 as_float(i32x4 i) {
    f32x4 v;
    std::memcpy(&v, &i, sizeof v);
    return v;
}

inline float horizontal_max(f32x4 v) {
    const float m01 = v[0] > v[1] ? v[0] : v[1], m23 = v[2] > v[3] ? v[2] : v[3];
    return m01 > m23 ? m01 : m23;
}

inline float horizontal_sum(f32x4 v) { return (v[0] + v[2]) + (v[1] + v[3]); }

// e^x per lane for x ≤ 0, as Cephes' expf: x = n ln 2 + r with |r| ≤ ln 2 / 2,
// e^r from a degree-6 polynomial, 2^n built in the exponent bits. Relative
// error below 2e-7 down to -87.33 (e^-87.33 is the smallest normal float);
// below that the result is 0, so e^-inf = 0 as a masked score needs. Softmax
// is its only caller and only takes e^(x - max) ≤ 1, so there is no overflow
// to handle (the naive softmax keeps std::exp, whose overflow at 88.72 is the
// lesson it teaches).
//
// Every step is one vector instruction in WASM as well as natively: n is
// rounded by adding 1.5·2²³ (its integer then sits in the low mantissa bits),
// not by float-to-int conversions, which V8 emits as long sequences.
inline f32x4 exp_nonpositive(f32x4 x) {
    const f32x4 lo = splat(-87.3365447505531f);
    const i32x4 underflow = x < lo;
    x = max(x, lo);
    const f32x4 magic = splat(12582912.0f);  // 1.5 · 2^23
    const f32x4 t = x * splat(1.44269504088896341f) + magic;
    const f32x4 n = t - magic;                // round(x / ln 2), exactly
    const i32x4 n_int = as_int(t) - as_int(magic);
    // r = x - n ln 2, with ln 2 split in two so the subtraction stays exact.
    const f32x4 r = x - n * splat(0.693359375f) + n * splat(2.12194440e-4f);
    f32x4 y = splat(1.9875691500e-4f);
    y = y * r + splat(1.3981999507e-3f);
    y = y * r + splat(8.3334519073e-3f);
    y = y * r + splat(4.1665795894e-2f);
    y = y * r + splat(1.6666665459e-1f);
    y = y * r + splat(5.0000001201e-1f);
    y = y * r * r + r + splat(1.0f);
    y *= as_float((n_int + 127) << 23);  // × 2^n
    return as_float(as_int(y) & ~underflow);  // lanes below the range become 0
}

}  // namespace attn::simd
