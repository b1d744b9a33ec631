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
// Calls f(line, n) for every line of t along `dim` (every row when dim is the
// last dimension, every column of a matrix when it is 0), in place. Lines along
// the last dimension are contiguous and handed over directly; others are
// gathered into a buffer and scattered back.
template <typename F>
Tensor map_lines(const Tensor& scores, int64_t dim, const char* fn, F f) {
    const int64_t D = scores.dim();
    if (D < 1) throw_shape(fn, "scores", "[..., T] with T > 0", scores.shape);
    if (dim < -D || dim >= D) {
        throw Error(std::string(fn) + ": expected dim in [" + std::to_string(-D) + ", " + std::to_string(D - 1) +
                    "] for a " + std::to_string(D) + "-D tensor, got " + std::to_string(dim));
    }
    if (dim < 0) dim += D;
    const int64_t n = scores.shape[dim];
    if (n == 0 && dim == D - 1) throw_shape(fn, "scores", "[..., T] with T > 0", scores.shape);
    if (scores.numel() == 0) {
        throw Error(std::string(fn) + ": expected scores with no dimension of size 0, got shape " + shape_str(scores.shape));
    }
    int64_t inner = 1;
    for (int64_t d = dim + 1; d < D; ++d) inner *= scores.shape[d];
    const int64_t outer = scores.numel() / (n * inner);

    Tensor out = scores;
    const int64_t grain = grain_for_work(20.0 * static_cast<double>(n));  // an exp is ~20 operations
    if (inner == 1) {
        parallel_for(outer, [&](int64_t r) { f(out.data.data() + r * n, n); }, grain);
        return out;
    }
    parallel_for(outer * inner, [&](int64_t index) {
        thread_local std::vector<float> line;
        line.resize(static_cast<size_t>(n));
        float* first = out.data.data() + (index / inner) * n * inner + index % inner;
        for (int64_t j = 0; j < n; ++j) line[j] = first[j * inner];
        f(line.data(), n);
        for (int64_t j = 0; j < n; ++j) first[j * inner] = line[j];
    }, grain);
    return out;
}
}  // namespace

Tensor normalize_sum(const Tensor& scores, int64_t dim) {
    return map_lines(scores, dim, "normalizeSum", [](float* row, int64_t n) {
        float sum = 0;
        for (int64_t j = 0; j < n; ++j) sum += row[j];
        for (int64_t j = 0; j < n; ++j) row[j] /= sum;
    });
}

Tensor softmax_naive(const Tensor& scores, int64_t dim) {
    return map_lines(scores, dim, "softmaxNaive", [](float* row, int64_t n) {
        float sum = 0;
        for (int64_t j = 0; j < n; ++j) sum += row[j] = std::exp(row[j]);
        for (int64_t j = 0; j < n; ++j) row[j] /= sum;
    });
}

void softmax_row(float* row, int64_t n) {
    const float neg_inf = -std::numeric_limits<float>::infinity();
    const int64_t whole = n - n % 4;
    simd::f32x4 vmax = simd::splat(neg_inf);
    for (int64_t j = 0; j < whole; j += 4) vmax = simd::max(vmax, simd::load(row + j));
    float max = simd::horizontal_max(vmax);
    for (int64_t j = whole; j < n; ++j) max = std::max(max, row[j]);
    if (max == neg_inf) {
        std::fill(row, row + n, 0.0f);  // every key masked: documented zeros
        return;
    }
    const simd::f32x4 vm = simd::splat(max);
    simd::f32x4 vsum{};
    for (int64_t j = 0; j < whole; j += 4) {
        const simd::f32x4 e = simd::exp_nonpositive(simd::load(row + j) - vm);
        simd::store(row + j, e);
        vsum += e;
    }
    if (whole < n) {  // the last 1-3 scores, padded with -inf (e^-inf = 0)
        float tail[4] = {neg_inf, neg_inf, neg_inf, neg_inf};
        std::copy(row + whole, row + n, tail);
        const simd::f32x4 e = simd::exp_nonpositive(simd::load(tail) - vm);
        simd::store(tail, e);
        std::copy(tail, tail + (n - whole), row + whole);
        vsum += e;
    }
    const simd::f32x4 sum = simd::splat(simd::horizontal_sum(vsum));
    for (int64_t j = 0; j < whole; j += 4) simd::store(row + j, simd::load(row + j) / sum);
    for (int64_t j = whole; j < n; ++j) row[j] /= sum[0];
}

Tensor softmax(const Tensor& scores, int64_t dim) {
    return map_lines(scores, dim, "softmax", softmax_row);
}

}  // namespace attn
