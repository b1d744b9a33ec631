#include "attention_kernel.hpp"

#include "gemm.hpp"
#include "attn/mask.hpp"
#include "attn/softmax.hpp"

#include "simd.hpp"
#include "thread_pool.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

namespace attn {

namespace {
constexpr float kNegInf = -std::numeric_limits<float>::infinity();

// What every (b, h) slice of one call shares: shapes, scale, masks.
struct Problem {
    int64_t B, H, T_q, T_k, d_k, d_v;
    int64_t group;                            // query heads per key/value head (1 without grouping)
    const AttentionOptions& o;
    const std::vector<int64_t>& key_lengths;  // one per b, or empty
    float root;                               // √d_k: scores are divided by it unless options.scale is set
    MaskView mask;                            // options.mask read in place against (B, H, T_q, T_k)

    // Keys j < limit(b, i) pass the causal and key-length masks for query i.
    int64_t limit(int64_t b, int64_t i) const {
        int64_t end = key_lengths.empty() ? T_k : key_lengths[static_cast<size_t>(b)];
        // Causal: query i is token i + (T_k - T_q) of the key sequence.
        if (o.causal) end = std::min(end, i + (T_k - T_q) + 1);
        return std::max<int64_t>(end, 0);
    }
    // Keys j >= start(i) pass the sliding window for query i.
    int64_t start(int64_t i) const { return o.window > 0 ? std::max<int64_t>(i + (T_k - T_q) - o.window + 1, 0) : 0; }

    // Writes `fill` into row i of slice (b, h)'s scores (keys j0 … j0+n) where a mask says no.
    void mask_row(float* s, int64_t b, int64_t h, int64_t i, int64_t j0, int64_t n, float fill) const {
        const int64_t end = limit(b, i), begin = start(i);
        if (end - j0 < n) std::fill(s + std::max<int64_t>(end - j0, 0), s + n, fill);
        if (begin > j0) std::fill(s, s + std::min(begin - j0, n), fill);
        if (mask) {
            const float* m = mask.row(b * H + h, i) + j0 * mask.column_stride();
            for (int64_t j = 0; j < n; ++j)
                if (m[j * mask.column_stride()] == 0.0f) s[j] = fill;
        }
    }

    // Scales row i of slice (b, h)'s raw scores (keys j0 … j0+n) and writes the
    // fill value where a mask says no.
    void scale_and_mask(float* s, int64_t b, int64_t h, int64_t i, int64_t j0, int64_t n) const {
        const int64_t whole = n - n % 4;
        if (o.scale) {
            const simd::f32x4 f = simd::splat(*o.scale);
            for (int64_t j = 0; j < whole; j += 4) simd::store(s + j, simd::load(s + j) * f);
            for (int64_t j = whole; j < n; ++j) s[j] *= *o.scale;
        } else {
            // Divide (not multiply by the reciprocal), as the notebooks write it.
            const simd::f32x4 r = simd::splat(root);
            for (int64_t j = 0; j < whole; j += 4) simd::store(s + j, simd::load(s + j) / r);
            for (int64_t j = whole; j < n; ++j) s[j] /= root;
        }
        mask_row(s, b, h, i, j0, n, o.fill_value);
    }
};

// The kernels keep their scratch between calls, so that a forward pass does not
// allocate; one that a long sequence grew beyond 16 MiB is given back instead.
void release_if_large(std::vector<float>& buffer) {
    if (buffer.capacity() > (size_t{1} << 22)) std::vector<float>().swap(buffer);
}

// The largest of n floats. Two running maxima, so that each vector waits on the
// one two before it, not the one before (a maximum is exact in any order).
float row_max(const float* x, int64_t n) {
    const int64_t pairs = n - n % 8;
    simd::f32x4 even = simd::splat(kNegInf), odd = even;
    for (int64_t j = 0; j < pairs; j += 8) {
        even = simd::max(even, simd::load(x + j));
        odd = simd::max(odd, simd::load(x + j + 4));
    }
    float max = simd::horizontal_max(simd::max(even, odd));
    for (int64_t j = pairs; j < n; ++j) max = std::max(max, x[j]);
    return max;
}

// x ← e^(c·(x - max)) over n floats; returns their sum.
float exp_minus(float* x, int64_t n, float max, float c) {
    const int64_t whole = n - n % 4;
    const simd::f32x4 vmax = simd::splat(max), vc = simd::splat(c);
    simd::f32x4 vsum{};
    for (int64_t j = 0; j < whole; j += 4) {
        const simd::f32x4 e = simd::exp_nonpositive((simd::load(x + j) - vmax) * vc);
        simd::store(x + j, e);
        vsum += e;
    }
    float sum = simd::horizontal_sum(vsum);
    for (int64_t j = whole; j < n; ++j) sum += x[j] = std::exp((x[j] - max) * c);
    return sum;
}

}  // namespace

void check_window(const AttentionOptions& o, const char* fn) {
    if (o.window < 0 || (o.window > 0 && !o.causal)) {
        throw Error(std::string(fn) + ": expected window 0 (none) or > 0 with causal attention, got " + std::to_string(o.window) +
                    (o.causal ? "" : " without causal"));
    }
}

namespace {
// The key/value heads of q (rows, H·d_k), k (rows, KV·d_k), v (rows, KV·d_v): H for every head its own (MHA), fewer
// for grouped-query attention (GQA, Ainslie et al. 2023; MQA when 1), each read by H / KV consecutive query heads
// as Hugging Face's repeat_kv repeats them.
int64_t key_value_heads(ConstMatrixRef q, ConstMatrixRef k, ConstMatrixRef v, int64_t H, const char* fn) {
    const int64_t d_k = q.cols() / H;
    const int64_t KV = d_k > 0 && k.cols() % d_k == 0 ? k.cols() / d_k : 0;
    if (KV < 1 || H % KV != 0 || v.cols() % KV != 0) {
        throw Error(std::string(fn) + ": expected keys of a number of heads of " + std::to_string(d_k) + " columns that divides the " +
                    std::to_string(H) + " query heads, and values of as many heads, got keys of " + std::to_string(k.cols()) +
                    " columns and values of " + std::to_string(v.cols()));
    }
    return KV;
}

void check_options(const AttentionOptions& o, const std::vector<int64_t>& key_lengths, int64_t B, int64_t T_k,
                   const char* fn) {
    check_window(o, fn);
    if (!key_lengths.empty() && static_cast<int64_t>(key_lengths.size()) != B) {
        throw Error(std::string(fn) + ": expected " + std::to_string(B) + " key lengths (one per batch row), got " +
                    std::to_string(key_lengths.size()));
    }
    for (int64_t len : key_lengths) {
        if (len < 0 || len > T_k) {
            throw Error(std::string(fn) + ": expected key lengths in [0, " + std::to_string(T_k) + "], got " +
                        std::to_string(len));
        }
    }
    if (std::isnan(o.fill_value) || o.fill_value == std::numeric_limits<float>::infinity()) {
        throw Error(std::string(fn) + ": expected fill_value finite or -Infinity, got " + format_number(o.fill_value));
    }
}

// One slice with every intermediate kept: S = QKᵀ, scaled and masked (into
// `scores`), softmax (into `weights`), optional dropout, then y = P V.
void slice_with_weights(const Problem& p, int64_t b, int64_t h, const float* q, int64_t ldq, const float* k,
                        int64_t ldk, const float* v, int64_t ldv, float* y, int64_t ldy, float* scores,
                        float* weights, const float* keep, std::vector<float>& s) {
    const int64_t T_q = p.T_q, T_k = p.T_k;
    s.resize(static_cast<size_t>(T_q * T_k));
    gemm(T_q, T_k, p.d_k, {q, ldq}, {k, ldk, true}, s.data(), T_k, false);  // S = Q Kᵀ
    const int64_t slice = (b * p.H + h) * T_q * T_k;
    for (int64_t i = 0; i < T_q; ++i) {
        float* row = s.data() + i * T_k;
        p.scale_and_mask(row, b, h, i, 0, T_k);
        if (scores) std::copy_n(row, T_k, scores + slice + i * T_k);
        softmax_row(row, T_k);
    }
    if (weights) std::copy_n(s.data(), T_q * T_k, weights + slice);
    if (keep) {
        for (int64_t e = 0; e < T_q * T_k; ++e) s[static_cast<size_t>(e)] *= keep[slice + e];
    }
    gemm(T_q, p.d_v, T_k, {s.data(), T_k}, {v, ldv}, y, ldy, false);
}

// One slice without intermediates, FlashAttention's way (Dao et al. 2022,
// algorithm 1): keys in blocks of BK, a running maximum m and sum l per query,
// the output rescaled as the maximum grows. Memory is BQ × BK scores, whatever
// T is; with a fill of -Infinity, blocks that every query of a block masks
// are skipped. Same numbers as the slice above to rounding. Blocks of queries
// are independent (each its own m, l and output rows), so a slice that runs
// alone (one long sequence) spreads them over the threads.
void slice_streaming(const Problem& p, int64_t b, int64_t h, const float* q, int64_t ldq, const float* k,
                     int64_t ldk, const float* v, int64_t ldv, float* y, int64_t ldy) {
    constexpr int64_t BQ = 64, BK = 256;
    const int64_t d_v = p.d_v;
    thread_local PackedB kt, vp;
    // The calling thread's packings, by reference: kt and vp named inside the tasks below would be the
    // worker's own thread_locals (unpacked), not these.
    PackedB& keys = kt;
    PackedB& values = vp;
    const bool skip_masked = p.o.fill_value == kNegInf;
    // The scale is folded into the exponent, e^(c·(s - max s)), when it is
    // positive (it then keeps the maximum where it is): one pass over the
    // scores fewer. Masked scores get fill / c, which c brings back to fill.
    const float c = p.o.scale ? *p.o.scale : 1.0f / p.root;
    const bool folded = c > 0.0f && std::isfinite(c);
    const float raw_fill = folded && !skip_masked ? p.o.fill_value / c : p.o.fill_value;
    // Blocks of BQ queries, claimed in order. When they are spread over threads, the last 2·BQ to 3·BQ
    // queries go in blocks of BQ / 4, so that the thread claiming the last block ends soon after the others:
    // causal attention's last blocks are its costliest (they see the most keys). A row's arithmetic does not
    // depend on its block, so results stay the same on any thread count.
    const bool fine_tail = num_threads() > 1 && !in_parallel_region() && p.T_q > 3 * BQ;
    const int64_t whole = fine_tail ? (p.T_q - 2 * BQ) / BQ : (p.T_q + BQ - 1) / BQ, tail_start = whole * BQ;
    const int64_t blocks = whole + (fine_tail ? (p.T_q - tail_start + BQ / 4 - 1) / (BQ / 4) : 0);
    const double block_work = static_cast<double>(BQ) * p.T_k * (p.d_k + d_v);
    const int64_t grain = grain_for_work(block_work);
    // Kᵀ and V are read once per block of queries: packed once per slice for the SIMD kernel. When the blocks
    // are spread over the threads, the two are packed at once, which also wakes a worker for the blocks.
    parallel_for(2, [&](int64_t which) {
        if (which == 0) {
            keys.pack(p.d_k, p.T_k, {k, ldk, true});
        } else {
            values.pack(p.T_k, d_v, {v, ldv});
        }
    }, blocks > grain ? 1 : 2);
    parallel_for(blocks, [&](int64_t block) {
        thread_local std::vector<float> work;
        work.resize(static_cast<size_t>(BQ * BK + BQ * d_v + 2 * BQ));
        float* s = work.data();
        float* acc = s + BQ * BK;
        float* m = acc + BQ * d_v;
        float* l = m + BQ;
        const int64_t i0 = block < whole ? block * BQ : tail_start + (block - whole) * (BQ / 4);
        const int64_t bq = std::min(block < whole ? BQ : BQ / 4, p.T_q - i0);
        std::fill_n(m, bq, kNegInf);
        std::fill_n(l, bq, 0.0f);
        // Keys beyond every query's limit in this block carry no weight, nor keys before the first query's window.
        const int64_t key_end = skip_masked ? p.limit(b, i0 + bq - 1) : p.T_k;
        const int64_t key_begin = skip_masked ? std::min(p.start(i0) / BK * BK, key_end) : 0;
        for (int64_t j0 = key_begin; j0 < key_end; j0 += BK) {
            const int64_t bk = std::min(BK, key_end - j0);
            gemm_packed(bq, bk, p.d_k, {q + i0 * ldq, ldq}, keys, j0, 0, s, bk, false);  // S = Q Kᵀ for the block
            for (int64_t r = 0; r < bq; ++r) {
                float* row = s + r * bk;
                if (folded) {
                    p.mask_row(row, b, h, i0 + r, j0, bk, raw_fill);
                } else {
                    p.scale_and_mask(row, b, h, i0 + r, j0, bk);
                }
                const float scale = folded ? c : 1.0f;
                const float new_max = std::max(m[r], row_max(row, bk));
                if (new_max == kNegInf) {  // every key so far masked: no weight yet
                    std::fill_n(row, bk, 0.0f);
                    continue;
                }
                const float rescale = m[r] == kNegInf ? 0.0f : std::exp((m[r] - new_max) * scale);
                l[r] = l[r] * rescale + exp_minus(row, bk, new_max, scale);
                m[r] = new_max;
                if (j0 > key_begin && rescale != 1.0f) {  // (the first block writes acc, below)
                    for (int64_t e = 0; e < d_v; ++e) acc[r * d_v + e] *= rescale;
                }
            }
            gemm_packed(bq, d_v, bk, {s, bk}, values, 0, j0, acc, d_v, j0 > key_begin);  // acc (+)= P V for the block
        }
        for (int64_t r = 0; r < bq; ++r) {
            float* out = y + (i0 + r) * ldy;
            // A query with every key masked (l = 0): zeros, as softmax() documents.
            for (int64_t e = 0; e < d_v; ++e) out[e] = l[r] == 0.0f ? 0.0f : acc[r * d_v + e] / l[r];
        }
    }, grain);
}

// Runs every (b, h) slice of a problem, the slices spread over the threads:
// with every intermediate kept when any is asked for, streaming otherwise.
// Slice (b, h) of X starts at X + b·T·ld + h·d (heads are column blocks,
// batches row blocks), so slices write disjoint parts of every output.
void run_slices(const Problem& p, const float* q, int64_t ldq, const float* k, int64_t ldk, const float* v, int64_t ldv,
                float* y, int64_t ldy, float* scores, float* weights, const float* keep) {
    const bool streaming = !scores && !weights && !keep;
    parallel_for(p.B * p.H, [&](int64_t slice) {
        const int64_t b = slice / p.H, h = slice % p.H;
        const float* qs = q + b * p.T_q * ldq + h * p.d_k;
        const float* ks = k + b * p.T_k * ldk + h / p.group * p.d_k;  // the key/value head query head h reads
        const float* vs = v + b * p.T_k * ldv + h / p.group * p.d_v;
        float* ys = y + b * p.T_q * ldy + h * p.d_v;
        if (streaming) {
            slice_streaming(p, b, h, qs, ldq, ks, ldk, vs, ldv, ys, ldy);
        } else {
            thread_local std::vector<float> work;  // reused across calls: no allocation per forward
            slice_with_weights(p, b, h, qs, ldq, ks, ldk, vs, ldv, ys, ldy, scores, weights, keep, work);
            release_if_large(work);
        }
    }, grain_for_work(static_cast<double>(p.T_q) * p.T_k * (p.d_k + p.d_v)));
}
}  // namespace

void multi_head_attention_forward(ConstMatrixRef q, ConstMatrixRef k, ConstMatrixRef v, int64_t B,
                                  int64_t H, const AttentionOptions& o, MatrixRef y, float* scores,
                                  float* weights, const char* fn, const float* keep) {
    const int64_t T_q = q.rows() / B, T_k = k.rows() / B;
    check_options(o, o.key_lengths, B, T_k, fn);
    const int64_t KV = key_value_heads(q, k, v, H, fn);
    const Problem p{B, H, T_q, T_k, q.cols() / H, v.cols() / KV, H / KV, o, o.key_lengths,
                    std::sqrt(static_cast<float>(q.cols() / H)),
                    o.mask.dim() == 0 ? MaskView() : MaskView(o.mask, {B, H, T_q, T_k}, fn)};
    run_slices(p, q.data(), q.outerStride(), k.data(), k.outerStride(), v.data(), v.outerStride(), y.data(),
               y.outerStride(), scores, weights, keep);
}

void attention_forward(const float* q, const float* k, const float* v, float* y, int64_t slices, int64_t T_q,
                       int64_t T_k, int64_t d_k, int64_t d_v, const AttentionOptions& o,
                       const std::vector<int64_t>& slice_key_lengths, const Shape& score_shape, const char* fn) {
    check_options(o, slice_key_lengths, slices, T_k, fn);
    const Problem p{slices, 1, T_q, T_k, d_k, d_v, 1, o, slice_key_lengths, std::sqrt(static_cast<float>(d_k)),
                    o.mask.dim() == 0 ? MaskView() : MaskView(o.mask, score_shape, fn)};
    run_slices(p, q, d_k, k, d_k, v, d_v, y, d_v, nullptr, nullptr, nullptr);
}

void multi_head_attention_backward(MatrixRef dq, MatrixRef dk, MatrixRef dv, ConstMatrixRef dy, ConstMatrixRef q,
                                   ConstMatrixRef k, ConstMatrixRef v, const float* weights, const float* keep,
                                   int64_t B, int64_t H, std::optional<float> score_scale) {
    const int64_t T_q = q.rows() / B, T_k = k.rows() / B;
    const int64_t KV = key_value_heads(q, k, v, H, "multi_head_attention_backward"), group = H / KV;
    const int64_t d_k = q.cols() / H, d_v = v.cols() / KV;
    const float scale = score_scale ? *score_scale : 1.0f / std::sqrt(static_cast<float>(d_k));
    // A task per (batch row, key/value head): it writes that head's blocks of dk and dv alone, summing over the
    // query heads that read it in order (the same sum on any thread count), and their blocks of dq.
    parallel_for(B * KV, [&](int64_t task) {
        const int64_t b = task / KV, kv = task % KV;
        thread_local std::vector<float> dp_buffer, pd_buffer;
        dp_buffer.resize(static_cast<size_t>(T_q * T_k));
        float* dp = dp_buffer.data();
        const float* V = v.data() + b * T_k * v.outerStride() + kv * d_v;
        const float* K = k.data() + b * T_k * k.outerStride() + kv * d_k;
        float* dV = dv.data() + b * T_k * dv.outerStride() + kv * d_v;
        float* dK = dk.data() + b * T_k * dk.outerStride() + kv * d_k;
        for (int64_t h = kv * group; h < (kv + 1) * group; ++h) {
            const int64_t slice = (b * H + h) * T_q * T_k;
            const float* p = weights + slice;
            const float* dY = dy.data() + b * T_q * dy.outerStride() + h * d_v;
            gemm(T_q, T_k, d_v, {dY, dy.outerStride()}, {V, v.outerStride(), true}, dp, T_k, false);  // dP = dY Vᵀ
            if (keep) {
                pd_buffer.resize(static_cast<size_t>(T_q * T_k));
                for (int64_t e = 0; e < T_q * T_k; ++e) {
                    pd_buffer[static_cast<size_t>(e)] = p[e] * keep[slice + e];
                    dp[e] *= keep[slice + e];
                }
                gemm(T_k, d_v, T_q, {pd_buffer.data(), T_k, true}, {dY, dy.outerStride()}, dV, dv.outerStride(), true);
            } else {
                gemm(T_k, d_v, T_q, {p, T_k, true}, {dY, dy.outerStride()}, dV, dv.outerStride(), true);  // dV += Pᵀ dY
            }
            // softmax backward, row by row: dS = P ⊙ (dP - Σ_j dP_j P_j), times the scale
            for (int64_t i = 0; i < T_q; ++i) {
                const float* pi = p + i * T_k;
                float* di = dp + i * T_k;
                float dot = 0;
                for (int64_t j = 0; j < T_k; ++j) dot += di[j] * pi[j];
                for (int64_t j = 0; j < T_k; ++j) di[j] = pi[j] * (di[j] - dot) * scale;
            }
            const float* Q = q.data() + b * T_q * q.outerStride() + h * d_k;
            gemm(T_q, d_k, T_k, {dp, T_k}, {K, k.outerStride()},  // dQ += dS K
                 dq.data() + b * T_q * dq.outerStride() + h * d_k, dq.outerStride(), true);
            gemm(T_k, d_k, T_q, {dp, T_k, true}, {Q, q.outerStride()}, dK, dk.outerStride(), true);  // dK += dSᵀ Q
        }
        release_if_large(dp_buffer);
        release_if_large(pd_buffer);
    }, grain_for_work(2.0 * group * T_q * T_k * (d_k + d_v)));
}

Tensor split_heads(ConstMatrixRef x, int64_t B, int64_t H) {
    const int64_t T = x.rows() / B, d = x.cols() / H;
    Tensor out({B, H, T, d});
    for (int64_t b = 0; b < B; ++b)
        for (int64_t h = 0; h < H; ++h)
            MatrixMap(out.data.data() + (b * H + h) * T * d, T, d) = x.block(b * T, h * d, T, d);
    return out;
}

}  // namespace attn
