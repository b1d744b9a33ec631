#include "gemm.hpp"

#include "simd.hpp"
#include "thread_pool.hpp"

#include <Eigen/Core>

#include <algorithm>
#include <cstring>
#include <memory>
#include <vector>

namespace attn {

namespace {
using Matrix = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using Stride = Eigen::OuterStride<>;
using ConstStridedMap = Eigen::Map<const Matrix, 0, Stride>;
using StridedMap = Eigen::Map<Matrix, 0, Stride>;

// ---- gemm_simd: the GotoBLAS structure with a 4 × 8 register tile ----------
//
// op(B) is packed into panels of NR = 8 columns (k-major: 8 floats per k), so
// the micro-kernel reads it with unit stride whatever B's layout. op(A) is read
// in place when it is stored row-major (four row pointers; a broadcast load per
// element), and packed into panels of MR = 4 rows (4 floats per k) when it is
// transposed. Per k the kernel loads two vectors of B, broadcasts four scalars
// of A and updates eight accumulators: 8 multiplies and 8 adds (WASM SIMD has
// no fused multiply-add). Blocks of KC rows of B keep a panel in cache.
constexpr int64_t MR = 4, NR = 8;
constexpr int64_t KC = 256, MC = 64, NC = 1024;

// How the micro-kernel reads A: rows in place (a + r·lda + k) or a packed
// panel (a + k·MR + r).
struct ARows {
    const float* row[MR];
    float at(int64_t r, int64_t k) const { return row[r][k]; }
};
struct APanel {
    const float* a;
    float at(int64_t r, int64_t k) const { return a[k * MR + r]; }
};

// C[0:mr, 0:nr] (+)= A (mr × kc) · Bp (kc × NR, packed). Rows of A beyond mr
// must be readable (callers point them at row 0); their results are dropped.
template <typename A>
void micro_kernel(int64_t kc, A a, const float* Bp, float* C, int64_t ldc, int64_t mr, int64_t nr, bool accumulate) {
    simd::f32x4 c00{}, c01{}, c10{}, c11{}, c20{}, c21{}, c30{}, c31{};
    for (int64_t k = 0; k < kc; ++k, Bp += NR) {
        const simd::f32x4 b0 = simd::load(Bp), b1 = simd::load(Bp + 4);
        simd::f32x4 x = simd::splat(a.at(0, k));
        c00 += x * b0;
        c01 += x * b1;
        x = simd::splat(a.at(1, k));
        c10 += x * b0;
        c11 += x * b1;
        x = simd::splat(a.at(2, k));
        c20 += x * b0;
        c21 += x * b1;
        x = simd::splat(a.at(3, k));
        c30 += x * b0;
        c31 += x * b1;
    }
    const simd::f32x4 tile[MR][2] = {{c00, c01}, {c10, c11}, {c20, c21}, {c30, c31}};
    if (nr == NR) {
        for (int64_t r = 0; r < mr; ++r) {
            float* row = C + r * ldc;
            if (accumulate) {
                simd::store(row, simd::load(row) + tile[r][0]);
                simd::store(row + 4, simd::load(row + 4) + tile[r][1]);
            } else {
                simd::store(row, tile[r][0]);
                simd::store(row + 4, tile[r][1]);
            }
        }
        return;
    }
    float part[MR][NR];
    for (int64_t r = 0; r < MR; ++r) {
        simd::store(part[r], tile[r][0]);
        simd::store(part[r] + 4, tile[r][1]);
    }
    for (int64_t r = 0; r < mr; ++r)
        for (int64_t j = 0; j < nr; ++j) C[r * ldc + j] = accumulate ? C[r * ldc + j] + part[r][j] : part[r][j];
}

// Stored element i of a 16-bit operand as a float: bfloat16 is a float's upper half, float16 a table entry.
inline float widened(const GemmOperand& B, int64_t i) {
    const uint16_t h = B.half[i];
    if (B.half_table) return B.half_table[h];
    const uint32_t bits = static_cast<uint32_t>(h) << 16;
    float f;
    std::memcpy(&f, &bits, 4);
    return f;
}

// op(B)[k0 : k0+kc, j0 : j0+nc] into panels of NR columns (panel p at
// out + p·kc·NR), zero-padded. Each case reads its source along rows.
void pack_b(const GemmOperand& B, int64_t k0, int64_t kc, int64_t j0, int64_t nc, float* out) {
    for (int64_t jp = 0; jp < nc; jp += NR, out += kc * NR) {
        const int64_t cols = std::min(NR, nc - jp);
        if (cols < NR) std::fill_n(out, kc * NR, 0.0f);
        if (B.half) {  // 16-bit weights, widened here, the one place a product reads them
            for (int64_t j = 0; j < cols; ++j) {
                for (int64_t k = 0; k < kc; ++k) {
                    const int64_t at = B.transposed ? (j0 + jp + j) * B.ld + k0 + k : (k0 + k) * B.ld + j0 + jp + j;
                    out[k * NR + j] = widened(B, at);
                }
            }
        } else if (B.transposed) {  // column j of op(B) is row j of the stored matrix
            for (int64_t j = 0; j < cols; ++j) {
                const float* src = B.data + (j0 + jp + j) * B.ld + k0;
                for (int64_t k = 0; k < kc; ++k) out[k * NR + j] = src[k];
            }
        } else if (cols == NR) {  // two vector copies per k (a memcpy call would cost more than the copy)
            for (int64_t k = 0; k < kc; ++k) {
                const float* src = B.data + (k0 + k) * B.ld + j0 + jp;
                simd::store(out + k * NR, simd::load(src));
                simd::store(out + k * NR + 4, simd::load(src + 4));
            }
        } else {
            for (int64_t k = 0; k < kc; ++k)
                for (int64_t j = 0; j < cols; ++j) out[k * NR + j] = B.data[(k0 + k) * B.ld + j0 + jp + j];
        }
    }
}

// op(A)[i0 : i0+mc, k0 : k0+kc] for A transposed, into panels of MR rows, zero-padded.
void pack_a_transposed(const GemmOperand& A, int64_t i0, int64_t mc, int64_t k0, int64_t kc, float* out) {
    for (int64_t ip = 0; ip < mc; ip += MR, out += kc * MR) {
        const int64_t rows = std::min(MR, mc - ip);
        if (rows < MR) std::fill_n(out, kc * MR, 0.0f);
        for (int64_t k = 0; k < kc; ++k)
            for (int64_t r = 0; r < rows; ++r) out[k * MR + r] = A.data[(k0 + k) * A.ld + i0 + ip + r];
    }
}

// C[0:mc, 0:nc] (+)= op(A)[i0 : i0+mc, k0 : k0+kc] · (packed panels of B,
// panel stride `panel`, starting at its k row b_k0).
void macro_kernel(const GemmOperand& A, int64_t i0, int64_t mc, int64_t k0, int64_t kc, const float* Bp,
                  int64_t panel, int64_t nc, float* C, int64_t ldc, bool accumulate, std::vector<float>& Ap) {
    if (A.transposed) {
        Ap.resize(static_cast<size_t>(kc * ((mc + MR - 1) / MR) * MR));
        pack_a_transposed(A, i0, mc, k0, kc, Ap.data());
    }
    for (int64_t jr = 0; jr < nc; jr += NR) {
        const float* b = Bp + (jr / NR) * panel;
        for (int64_t ir = 0; ir < mc; ir += MR) {
            const int64_t mr = std::min(MR, mc - ir), nr = std::min(NR, nc - jr);
            float* c = C + ir * ldc + jr;
            if (A.transposed) {
                micro_kernel(kc, APanel{Ap.data() + ir * kc}, b, c, ldc, mr, nr, accumulate);
            } else {
                // Rows past the end of A read its first row again; their results are dropped.
                const float* a = A.data + (i0 + ir) * A.ld + k0;
                const ARows rows{{a, mr > 1 ? a + A.ld : a, mr > 2 ? a + 2 * A.ld : a, mr > 3 ? a + 3 * A.ld : a}};
                micro_kernel(kc, rows, b, c, ldc, mr, nr, accumulate);
            }
        }
    }
}

// A product with one to three rows of A (decoding one token at a time): packing
// B would copy as many floats as the product reads once, so it is read in place.
void few_rows(int64_t M, int64_t N, int64_t K, const GemmOperand& A, const GemmOperand& B, float* C, int64_t ldc,
              bool accumulate) {
    const auto a = [&](int64_t i, int64_t k) { return A.transposed ? A.data[k * A.ld + i] : A.data[i * A.ld + k]; };
    // A 16-bit B's row is widened into this buffer before it is read (one stored row at a time).
    thread_local std::vector<float> wide;
    const auto row_of = [&](int64_t r, int64_t n) -> const float* {
        if (!B.half) return B.data + r * B.ld;
        wide.resize(static_cast<size_t>(n));
        for (int64_t x = 0; x < n; ++x) wide[static_cast<size_t>(x)] = widened(B, r * B.ld + x);
        return wide.data();
    };
    for (int64_t i = 0; i < M; ++i) {
        float* c = C + i * ldc;
        if (!accumulate) std::fill_n(c, N, 0.0f);
        if (B.transposed) {  // c[j] += Σ_k a[k] B[j][k]: dot products along B's rows
            const int64_t whole = K - K % 4;
            for (int64_t j = 0; j < N; ++j) {
                const float* b = row_of(j, K);
                simd::f32x4 sum{};
                int64_t k = 0;
                if (!A.transposed) {
                    const float* x = A.data + i * A.ld;
                    for (; k < whole; k += 4) sum += simd::load(x + k) * simd::load(b + k);
                }
                float total = simd::horizontal_sum(sum);
                for (; k < K; ++k) total += a(i, k) * b[k];
                c[j] += total;
            }
        } else {  // c += Σ_k a[k] B[k][:]: scaled rows of B
            const int64_t whole = N - N % 4;
            for (int64_t k = 0; k < K; ++k) {
                const float* b = row_of(k, N);
                const simd::f32x4 x = simd::splat(a(i, k));
                for (int64_t j = 0; j < whole; j += 4) simd::store(c + j, simd::load(c + j) + x * simd::load(b + j));
                for (int64_t j = whole; j < N; ++j) c[j] += a(i, k) * b[j];
            }
        }
    }
}

void zero_or_keep(int64_t M, int64_t N, float* C, int64_t ldc, bool accumulate) {
    if (accumulate) return;
    for (int64_t i = 0; i < M; ++i) std::fill_n(C + i * ldc, N, 0.0f);
}

// The blocked product for M >= MR rows overall (a block of fewer rows, the
// last of a split, goes through the same micro-kernel as a full one).
void blocked(int64_t M, int64_t N, int64_t K, const GemmOperand& A, const GemmOperand& B, float* C, int64_t ldc,
             bool accumulate) {
    // Packing buffers, one set per thread, kept between calls: a forward pass makes hundreds of products.
    thread_local std::vector<float> Bp, Ap;
    Bp.resize(static_cast<size_t>(KC * ((NC + NR - 1) / NR) * NR));
    for (int64_t jc = 0; jc < N; jc += NC) {
        const int64_t nc = std::min(NC, N - jc);
        for (int64_t pc = 0; pc < K; pc += KC) {
            const int64_t kc = std::min(KC, K - pc);
            pack_b(B, pc, kc, jc, nc, Bp.data());
            for (int64_t ic = 0; ic < M; ic += MC) {
                macro_kernel(A, ic, std::min(MC, M - ic), pc, kc, Bp.data(), kc * NR, nc, C + ic * ldc + jc, ldc,
                             accumulate || pc > 0, Ap);
            }
        }
    }
}

// Runs product(rows, cols, A's part, B's part, C's part) on strips of C, `step`
// rows (by_rows) or columns each, one task per strip: the K loop is never split.
template <typename Product>
void over_strips(bool by_rows, int64_t step, int64_t M, int64_t N, const GemmOperand& A, const GemmOperand& B,
                 float* C, int64_t ldc, Product product) {
    const int64_t length = by_rows ? M : N;
    parallel_for((length + step - 1) / step, [&](int64_t strip) {
        const int64_t at = strip * step, n = std::min(step, length - at);
        if (by_rows) {
            product(n, N, A.from(A.transposed ? at : at * A.ld), B, C + at * ldc);
        } else {
            product(M, n, A, B.from(B.transposed ? at * B.ld : at), C + at);
        }
    });
}

// Rows of C in a claim when threads share a packed op(B): some four blocks of rows per thread, so that a product
// of few columns still makes claims enough to share out; at least 32 and up to 128, because the threads read all
// of packed op(B) again for each block of rows, from beyond L2 when it is large, and the first micro-kernel on a
// panel waits for the panel to arrive. (Linear 1024 × 1024 on 2 threads, when a claim was a whole block of rows:
// blocks of 128 rows were 3-7 % faster than blocks of 32; with claims of 256 columns, blocks of up to 256 rows
// measured the same as 128.) A claim does not change a sum: every element of C adds the same products in the
// same order whichever claim it falls in.
int64_t shared_rows(int64_t M) {
    const int64_t rows = M / (4 * num_threads());
    return std::clamp<int64_t>(rows - rows % MR, 32, 128);
}

// Columns of C in a claim. The claim computes them for every block of KC in turn, so its part of C (128 × 256
// floats at most) stays in L2 from one block to the next instead of going out to L3 and back for each; and
// claims this small (1/32 of Linear 1024 × 1024) let a thread that runs slower (a shared machine's cores change
// speed from one call to the next) end no more than ~1/32 of the work after the other. Claims of whole blocks
// of rows, 1/8 of that product each, left the faster thread waiting: 3-10 % more time on 2 threads.
constexpr int64_t kSharedCols = 256;

// The threads first pack op(B)'s block of NC columns together, all K rows
// (PackedB's layout), then claim parts of C, shared_rows(M) rows by
// kSharedCols columns, from one counter: the column parts of a block of rows
// one after another, so that threads working at once read the same rows of A.
// A static half each would both pack all of B and wait for the slower thread.
void shared_b(int64_t M, int64_t N, int64_t K, const GemmOperand& A, const GemmOperand& B, float* C, int64_t ldc,
              bool accumulate) {
    const int64_t panel = K * NR, rows = shared_rows(M);
    // Allocated per call, not kept: a block of GPT-2's products packs ~9 MB, and pack_b writes every float.
    const std::unique_ptr<float[]> Bp(new float[static_cast<size_t>((std::min(NC, N) + NR - 1) / NR * panel)]);
    for (int64_t jc = 0; jc < N; jc += NC) {
        const int64_t nc = std::min(NC, N - jc), panels = (nc + NR - 1) / NR;
        parallel_for(
            panels, [&](int64_t p) { pack_b(B, 0, K, jc + p * NR, std::min(NR, nc - p * NR), Bp.get() + p * panel); },
            grain_for_work(kMovedFloatWork * static_cast<double>(panel)));
        const float* packed = Bp.get();
        const int64_t col_blocks = (nc + kSharedCols - 1) / kSharedCols;
        parallel_for((M + rows - 1) / rows * col_blocks, [&](int64_t claim) {
            thread_local std::vector<float> Ap;
            const int64_t i0 = claim / col_blocks * rows, mc = std::min(rows, M - i0);
            const int64_t js = claim % col_blocks * kSharedCols;
            for (int64_t pc = 0; pc < K; pc += KC) {
                macro_kernel(A, i0, mc, pc, std::min(KC, K - pc), packed + (js / NR) * panel + pc * NR, panel,
                             std::min(kSharedCols, nc - js), C + i0 * ldc + jc + js, ldc, accumulate || pc > 0, Ap);
            }
        });
    }
}

// Parts of op(A)'s rows or op(B)'s columns, whichever is longer (the rows of
// attention's and the columns of a vocabulary head's products), in whole
// register tiles. Rows share one packing of B (shared_b); columns need none,
// each part packing only its own. Every element of C is the same sum in the
// same order whichever thread computes it, so the split cannot change a bit.
void split(int64_t M, int64_t N, int64_t K, const GemmOperand& A, const GemmOperand& B, float* C, int64_t ldc,
           bool accumulate) {
    const bool by_rows = M >= N;
    const int64_t unit = by_rows ? MR : NR, length = by_rows ? M : N;
    const int64_t parts = parts_for_work(static_cast<double>(M) * N * K, (length + unit - 1) / unit);
    if (parts == 1) return blocked(M, N, K, A, B, C, ldc, accumulate);
    if (by_rows) return shared_b(M, N, K, A, B, C, ldc, accumulate);
    const int64_t step = ((length + parts - 1) / parts + unit - 1) / unit * unit;
    over_strips(by_rows, step, M, N, A, B, C, ldc, [&](int64_t m, int64_t n, const GemmOperand& a, const GemmOperand& b, float* c) {
        blocked(m, n, K, a, b, c, ldc, accumulate);
    });
}

// few_rows on strips of C's columns, one per thread when the product is worth it: a token being decoded
// multiplies one row by every weight matrix, and the threads each read their part of the matrix. Strips are
// whole register tiles of NR = 8 columns (so multiples of few_rows' 4-wide vectors): each column falls on the
// same vector or scalar step as unsplit.
void few_rows_split(int64_t M, int64_t N, int64_t K, const GemmOperand& A, const GemmOperand& B, float* C,
                    int64_t ldc, bool accumulate) {
    const int64_t parts = parts_for_work(static_cast<double>(M) * N * K, (N + NR - 1) / NR);
    if (parts == 1) return few_rows(M, N, K, A, B, C, ldc, accumulate);
    const int64_t step = ((N + parts - 1) / parts + NR - 1) / NR * NR;
    over_strips(false, step, M, N, A, B, C, ldc, [&](int64_t m, int64_t n, const GemmOperand& a, const GemmOperand& b, float* c) {
        few_rows(m, n, K, a, b, c, ldc, accumulate);
    });
}

}  // namespace

void gemm_simd(int64_t M, int64_t N, int64_t K, GemmOperand A, GemmOperand B, float* C, int64_t ldc,
               bool accumulate) {
    if (M <= 0 || N <= 0) return;
    if (K <= 0) return zero_or_keep(M, N, C, ldc, accumulate);
    if (M < MR) return few_rows_split(M, N, K, A, B, C, ldc, accumulate);
    split(M, N, K, A, B, C, ldc, accumulate);
}

void PackedB::pack(int64_t K_, int64_t N_, GemmOperand B) {
    K = K_;
    N = N_;
    data.resize(static_cast<size_t>(K * ((N + NR - 1) / NR) * NR));
    pack_b(B, 0, K, 0, N, data.data());
}

void gemm_packed(int64_t M, int64_t n, int64_t kc, GemmOperand A, const PackedB& B, int64_t j0, int64_t k0, float* C,
                 int64_t ldc, bool accumulate) {
    if (M <= 0 || n <= 0) return;
    if (kc <= 0) return zero_or_keep(M, n, C, ldc, accumulate);
    thread_local std::vector<float> Ap;
    // Panel p of B holds columns [8p, 8p + 8) for all K rows; start at row k0 of panel j0 / 8.
    const float* first = B.data.data() + (j0 / NR) * B.K * NR + k0 * NR;
    for (int64_t ic = 0; ic < M; ic += MC) {
        const GemmOperand a = A.from(A.transposed ? ic : ic * A.ld);
        macro_kernel(a, 0, std::min(MC, M - ic), 0, kc, first, B.K * NR, n, C + ic * ldc, ldc, accumulate, Ap);
    }
}

namespace {
void eigen_product(int64_t M, int64_t N, int64_t K, const GemmOperand& A, const GemmOperand& B, float* C,
                   int64_t ldc, bool accumulate) {
    StridedMap c(C, M, N, Stride(ldc));
    const ConstStridedMap a(A.data, A.transposed ? K : M, A.transposed ? M : K, Stride(A.ld));
    const ConstStridedMap b(B.data, B.transposed ? N : K, B.transposed ? K : N, Stride(B.ld));
    // Four spellings of one product, so that Eigen sees each transposition
    // at compile time and never copies an operand.
    const auto product = [&](const auto& x, const auto& y) {
        if (accumulate) {
            c.noalias() += x * y;
        } else {
            c.noalias() = x * y;
        }
    };
    if (A.transposed && B.transposed) {
        product(a.transpose(), b.transpose());
    } else if (A.transposed) {
        product(a.transpose(), b);
    } else if (B.transposed) {
        product(a, b.transpose());
    } else {
        product(a, b);
    }
}

// Eigen's product picks its blocking, and for small products a different
// summation, from the shape it is given; so the tiles a product is split into
// are a function of its shape alone (rows of 128, else columns of 256), never
// of the thread count, and each is computed whole by one thread.
constexpr int64_t kEigenTileRows = 128, kEigenTileCols = 256;
constexpr double kEigenTiledWork = 1 << 20;
}  // namespace

void gemm_eigen(int64_t M, int64_t N, int64_t K, GemmOperand A, GemmOperand B, float* C, int64_t ldc,
                bool accumulate) {
    if (B.half) return gemm_simd(M, N, K, A, B, C, ldc, accumulate);  // Eigen reads floats only
    if (M <= 0 || N <= 0) return;
    if (K <= 0) return zero_or_keep(M, N, C, ldc, accumulate);
    const double work = static_cast<double>(M) * N * K;
    const bool by_rows = M >= 2 * kEigenTileRows, by_cols = !by_rows && N >= 2 * kEigenTileCols;
    if (work < kEigenTiledWork || (!by_rows && !by_cols)) return eigen_product(M, N, K, A, B, C, ldc, accumulate);
    over_strips(by_rows, by_rows ? kEigenTileRows : kEigenTileCols, M, N, A, B, C, ldc,
                [&](int64_t m, int64_t n, const GemmOperand& a, const GemmOperand& b, float* c) {
                    eigen_product(m, n, K, a, b, c, ldc, accumulate);
                });
}

void gemm(int64_t M, int64_t N, int64_t K, GemmOperand A, GemmOperand B, float* C, int64_t ldc, bool accumulate) {
#if defined(__wasm_simd128__)
    gemm_simd(M, N, K, A, B, C, ldc, accumulate);
#else
    gemm_eigen(M, N, K, A, B, C, ldc, accumulate);
#endif
}

}  // namespace attn
