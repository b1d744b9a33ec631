// The library's own SIMD kernels against their references, in both builds:
// natively (ctest runs this program) and as WebAssembly in Node
// (tests/js/kernels.test.js), where the kernels compile to SIMD128 and are the
// ones the package runs. No test framework, so that one source serves both.
// Prints one line per check and exits 1 if any fails.
#include "attn/tensor.hpp"
#include "attn/torch_rng.hpp"

// The library's internals these checks test (not installed headers).
#include "../../cpp/src/gemm.hpp"
#include "../../cpp/src/simd.hpp"

#include <cmath>
#include <cstdio>
#include <limits>
#include <string>
#include <vector>

using namespace attn;

namespace {
int failures = 0;

void check(bool ok, const std::string& what) {
    std::printf("%s %s\n", ok ? "ok  " : "FAIL", what.c_str());
    if (!ok) ++failures;
}

std::vector<float> randoms(int64_t n, Generator& gen) {
    Tensor t({n});
    normal_(t, 0.0, 1.0, gen);
    return t.data;
}

// gemm_simd against gemm_eigen for one shape and layout: every element within
// 1e-5 of Σ_k |a_ik||b_kj| (the size of the rounding errors a float product can make).
void check_gemm(int64_t M, int64_t N, int64_t K, bool ta, bool tb, bool accumulate, int64_t pad, Generator& gen) {
    const int64_t lda = (ta ? M : K) + pad, ldb = (tb ? K : N) + pad, ldc = N + pad;
    const auto a = randoms((ta ? K : M) * lda, gen), b = randoms((tb ? N : K) * ldb, gen);
    const auto c0 = randoms(M * ldc, gen);
    std::vector<float> a_abs(a.size()), b_abs(b.size());
    for (size_t i = 0; i < a.size(); ++i) a_abs[i] = std::fabs(a[i]);
    for (size_t i = 0; i < b.size(); ++i) b_abs[i] = std::fabs(b[i]);
    auto expected = c0, actual = c0;
    std::vector<float> bound(static_cast<size_t>(M * ldc), 0.0f);
    gemm_eigen(M, N, K, {a.data(), lda, ta}, {b.data(), ldb, tb}, expected.data(), ldc, accumulate);
    gemm_eigen(M, N, K, {a_abs.data(), lda, ta}, {b_abs.data(), ldb, tb}, bound.data(), ldc, false);
    gemm_simd(M, N, K, {a.data(), lda, ta}, {b.data(), ldb, tb}, actual.data(), ldc, accumulate);
    double worst = 0;
    bool ok = true;
    for (int64_t i = 0; i < M; ++i) {
        for (int64_t j = 0; j < ldc; ++j) {
            const size_t e = static_cast<size_t>(i * ldc + j);
            if (j >= N) {
                ok = ok && actual[e] == c0[e];  // padding between rows untouched
                continue;
            }
            const double err = std::fabs(actual[e] - expected[e]) / (1e-30 + bound[e] + (accumulate ? std::fabs(c0[e]) : 0));
            worst = std::max(worst, err);
        }
    }
    char what[160];
    std::snprintf(what, sizeof what, "gemm M=%lld N=%lld K=%lld A%s B%s%s%s: worst relative error %.2g",
                  static_cast<long long>(M), static_cast<long long>(N), static_cast<long long>(K), ta ? "ᵀ" : "",
                  tb ? "ᵀ" : "", accumulate ? " accumulate" : "", pad ? " strided" : "", worst);
    check(ok && worst <= 1e-5, what);
}

void check_gemms() {
    Generator gen(7);
    const int64_t sizes[] = {1, 3, 4, 5, 8, 9, 17, 64, 65, 130};
    for (int64_t M : sizes)
        for (int64_t N : sizes)
            for (int64_t K : {1, 7, 64, 65})
                check_gemm(M, N, K, (M + K) % 2 == 1, (N + K) % 3 == 0, (M * N) % 2 == 0, M % 3 == 0 ? 3 : 0, gen);
    // Blocks: K beyond one KC block (256), N beyond one NC block (1024), M beyond one MC block (64).
    for (bool ta : {false, true})
        for (bool tb : {false, true}) check_gemm(70, 1030, 300, ta, tb, false, 0, gen);
    check_gemm(257, 33, 513, false, true, true, 1, gen);
    check_gemm(1, 1, 0, false, false, false, 0, gen);
}

// gemm_packed on a block of a pre-packed op(B) against gemm_eigen on the same block.
void check_gemm_packed(int64_t M, int64_t K, int64_t N, bool ta, bool tb, int64_t j0, int64_t n, int64_t k0, int64_t kc,
                       Generator& gen) {
    const auto a = randoms(M * kc, gen), b = randoms(K * N, gen);
    PackedB packed;
    packed.pack(K, N, {b.data(), tb ? K : N, tb});
    std::vector<float> expected(static_cast<size_t>(M * n)), actual = randoms(M * n, gen);
    // op(B)[k0 :, j0 :] as an operand of its own.
    const GemmOperand block = tb ? GemmOperand{b.data() + j0 * K + k0, K, true} : GemmOperand{b.data() + k0 * N + j0, N, false};
    const GemmOperand lhs{a.data(), ta ? M : kc, ta};
    gemm_eigen(M, n, kc, lhs, block, expected.data(), n, false);
    gemm_packed(M, n, kc, lhs, packed, j0, k0, actual.data(), n, false);
    double worst = 0;
    for (size_t e = 0; e < expected.size(); ++e) worst = std::max(worst, std::fabs(actual[e] - expected[e]) / (1.0 + std::fabs(expected[e])));
    char what[160];
    std::snprintf(what, sizeof what, "gemm_packed M=%lld of B (%lld, %lld)%s, columns %lld+%lld, rows %lld+%lld%s: worst error %.2g",
                  static_cast<long long>(M), static_cast<long long>(K), static_cast<long long>(N), tb ? "ᵀ" : "",
                  static_cast<long long>(j0), static_cast<long long>(n), static_cast<long long>(k0),
                  static_cast<long long>(kc), ta ? ", A transposed" : "", worst);
    check(worst <= 1e-5, what);
}

void check_gemm_packeds() {
    Generator gen(11);
    check_gemm_packed(64, 64, 300, false, true, 256, 44, 0, 64, gen);     // a block of queries times Kᵀ
    check_gemm_packed(37, 300, 64, false, false, 0, 64, 256, 44, gen);    // weights times a block of V rows
    check_gemm_packed(5, 9, 13, true, false, 8, 5, 1, 7, gen);
    check_gemm_packed(1, 1, 1, false, true, 0, 1, 0, 1, gen);
}

void check_exp() {
    // Every 1/64 from -100 to 0, and the special values.
    double worst = 0;
    bool edges = true;
    for (int i = -6400; i <= 0; i += 4) {
        const float x[4] = {i / 64.0f, (i - 1) / 64.0f, (i - 2) / 64.0f, (i - 3) / 64.0f};
        float y[4];
        simd::store(y, simd::exp_nonpositive(simd::load(x)));
        for (int l = 0; l < 4; ++l) {
            if (x[l] < -87.3366f) {
                edges = edges && y[l] == 0.0f;
            } else {
                const double e = std::exp(static_cast<double>(x[l]));
                worst = std::max(worst, std::fabs(y[l] - e) / e);
            }
        }
    }
    const float inf = std::numeric_limits<float>::infinity();
    const float special[4] = {-inf, 0.0f, -0.0f, -1.0f};
    float y[4];
    simd::store(y, simd::exp_nonpositive(simd::load(special)));
    edges = edges && y[0] == 0.0f && y[1] == 1.0f && y[2] == 1.0f && std::fabs(y[3] - 0.36787944f) < 1e-7f;
    char what[120];
    std::snprintf(what, sizeof what, "simd::exp_nonpositive on [-87.3, 0]: worst relative error %.2g; 0 below, e^-inf = 0",
                  worst);
    check(edges && worst <= 3e-7, what);
}

// first_non_finite against std::isfinite value by value: a NaN, +Infinity or -Infinity at every position of
// lengths around its vector width and its blocks of 1,024 (in the vector part, in a tail, on a block's edge),
// and finite extremes (the largest float, subnormals, -0) that must not count.
void check_first_non_finite() {
    const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
    const float finite[] = {std::numeric_limits<float>::max(), -std::numeric_limits<float>::max(),
                            std::numeric_limits<float>::denorm_min(), -0.0f, 1.0f};
    bool ok = true;
    int cases = 0;
    for (int64_t n : {0, 1, 3, 4, 5, 7, 8, 1023, 1024, 1025, 2051}) {
        std::vector<float> x(static_cast<size_t>(n));
        for (int64_t i = 0; i < n; ++i) x[static_cast<size_t>(i)] = finite[i % 5];
        ok = ok && first_non_finite(x.data(), n) == -1;
        for (int64_t at = 0; at < n; at += (n > 64 ? 61 : 1)) {
            for (float bad : {nan, inf, -inf}) {
                x[static_cast<size_t>(at)] = bad;
                if (at + 2 < n) x[static_cast<size_t>(n - 1)] = nan;  // a later bad value must not be the one named
                ok = ok && first_non_finite(x.data(), n) == at;
                x[static_cast<size_t>(at)] = finite[at % 5];
                x[static_cast<size_t>(n - 1)] = finite[(n - 1) % 5];
                ++cases;
            }
        }
        if (n > 0) {
            x[static_cast<size_t>(n - 1)] = inf;  // the last value: a tail, or a vector's last lane
            ok = ok && first_non_finite(x.data(), n) == n - 1;
            ++cases;
        }
    }
    check(ok, "first_non_finite names the first NaN or ±Infinity in " + std::to_string(cases) +
                  " placements, and none among finite extremes");
}
}  // namespace

int main() {
    check_gemms();
    check_gemm_packeds();
    check_exp();
    check_first_non_finite();
    std::printf("%s: %d failed\n", failures ? "FAILED" : "passed", failures);
    return failures ? 1 : 0;
}
