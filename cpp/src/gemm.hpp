// The matrix product every layer is made of: C = op(A) · op(B), row-major, in
// float. Linear layers, the attention scores Q Kᵀ and the mixing P V all go
// through gemm().
//
// Two implementations compute it. gemm_eigen is Eigen's product: the
// reference, and the native build's choice (Eigen vectorises for the building
// machine's SSE/AVX/AVX-512). gemm_simd is this library's own kernel, written
// with 128-bit vectors (GCC/Clang vector extensions), which compile to WASM
// SIMD128 in the WebAssembly build, where Eigen 3.4 has no vector back end and
// falls back to scalar code (docs/toolchain.md). gemm() picks gemm_simd in the
// WebAssembly build and gemm_eigen natively; tests hold the two equal in both.
//
// Both split a large product over the library's threads (thread_pool.hpp) by
// rows or columns of C, never along K: every element is one thread's sum, so
// the result does not depend on the thread count.
#pragma once

#include <cstdint>
#include <vector>

namespace attn {

// One operand: row-major `data` whose rows are `ld` floats apart. When
// `transposed`, the operand is the transpose of what is stored, e.g. Kᵀ for
// K stored (T_k, d): then data holds (cols, rows). A B operand may instead be 16-bit values (`half`, data null):
// a loaded model's weights kept as their file holds them, widened to float32 as they are packed (exactly, so the
// product is the float32 weights' product as gemm_simd computes it).
struct GemmOperand {
    const float* data;
    int64_t ld;
    bool transposed = false;
    const uint16_t* half = nullptr;
    const float* half_table = nullptr;  // float16: every half's value (tensor.hpp's half_table); bfloat16: null

    // The operand from its `offset`-th stored element on.
    GemmOperand from(int64_t offset) const {
        return {data ? data + offset : nullptr, ld, transposed, half ? half + offset : nullptr, half_table};
    }
};

// C (M, N) = op(A) (M, K) · op(B) (K, N); C's rows are ldc floats apart (a 16-bit op(B) always goes through
// gemm_simd). With
// `accumulate`, the product is added to C; otherwise C is overwritten (and
// need not be initialised). K = 0 gives zeros (or leaves C, accumulating).
void gemm(int64_t M, int64_t N, int64_t K, GemmOperand A, GemmOperand B, float* C, int64_t ldc, bool accumulate);

// op(B) packed once for many products that share it, in the layout gemm_simd's
// kernel reads: panels of 8 columns, each K rows of 8 floats. Attention packs
// each head's Kᵀ and V once and multiplies every block of queries by them.
struct PackedB {
    std::vector<float> data;
    int64_t K = 0, N = 0;
    // Packs op(B), (K, N).
    void pack(int64_t K, int64_t N, GemmOperand B);
};

// C (M, n) (+)= op(A) (M, kc) · op(B)[k0 : k0+kc, j0 : j0+n], B packed; j0 a
// multiple of 8. The SIMD kernel in both builds.
void gemm_packed(int64_t M, int64_t n, int64_t kc, GemmOperand A, const PackedB& B, int64_t j0, int64_t k0, float* C,
                 int64_t ldc, bool accumulate);

// The two implementations behind gemm(), for tests and benchmarks.
void gemm_eigen(int64_t M, int64_t N, int64_t K, GemmOperand A, GemmOperand B, float* C, int64_t ldc,
                bool accumulate);
void gemm_simd(int64_t M, int64_t N, int64_t K, GemmOperand A, GemmOperand B, float* C, int64_t ldc,
               bool accumulate);

}  // namespace attn
