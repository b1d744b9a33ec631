#include "attn/scaled_dot_product_attention.hpp"

#include "attention_kernel.hpp"
#include "gemm.hpp"
#include "attn/mask.hpp"
#include "attn/softmax.hpp"

#include <cmath>
#include <string>

namespace attn {

namespace {
constexpr const char* kFn = "scaledDotProductAttention";

void check_args(const Tensor& q, const Tensor& k, const Tensor& v, const AttentionOptions& o, const char* fn) {
    if (q.dim() < 2) throw_shape(fn, "query", "[..., T_q, d_k]", q.shape);
    const Shape lead(q.shape.begin(), q.shape.end() - 2);
    auto lead_str = [&](const std::string& tail) {
        std::string s = shape_str(lead);
        s.pop_back();
        return s + (lead.empty() ? "" : ", ") + tail + "]";
    };
    if (q.size(-2) == 0 || q.size(-1) == 0) throw_shape(fn, "query", "[..., T_q, d_k] with T_q, d_k > 0", q.shape);
    if (k.dim() != q.dim() || !std::equal(lead.begin(), lead.end(), k.shape.begin()) ||
        k.size(-1) != q.size(-1) || k.size(-2) == 0) {
        throw_shape(fn, "key", lead_str("T_k, " + std::to_string(q.size(-1))), k.shape);
    }
    if (v.dim() != q.dim() || !std::equal(lead.begin(), lead.end(), v.shape.begin()) ||
        v.size(-2) != k.size(-2) || v.size(-1) == 0) {
        throw_shape(fn, "value", lead_str(std::to_string(k.size(-2)) + ", d_v"), v.shape);
    }
    check_finite(q, fn, "query");
    check_finite(k, fn, "key");
    check_finite(v, fn, "value");
    if (std::isnan(o.fill_value) || o.fill_value == std::numeric_limits<float>::infinity()) {
        throw Error(std::string(fn) + ": expected fill_value finite or -Infinity, got " +
                    format_number(o.fill_value));
    }
    check_window(o, fn);
    if (o.scale && !std::isfinite(*o.scale)) {
        throw Error(std::string(fn) + ": expected a finite scale, got " + format_number(*o.scale));
    }
    if (!o.key_lengths.empty()) {
        const int64_t rows = q.dim() == 2 ? 1 : q.shape[0];
        if (static_cast<int64_t>(o.key_lengths.size()) != rows) {
            throw Error(std::string(fn) + ": expected " + std::to_string(rows) +
                        " key lengths (one per batch row), got " +
                        std::to_string(o.key_lengths.size()));
        }
    }
}

// (..., T_q, T_k): the shape of every score-sized intermediate.
Shape score_shape_of(const Tensor& q, const Tensor& k) {
    Shape shape(q.shape.begin(), q.shape.end() - 1);
    shape.push_back(k.size(-2));
    return shape;
}
}  // namespace

AttentionTrace scaled_dot_product_attention(const Tensor& q, const Tensor& k, const Tensor& v,
                                            const AttentionOptions& o) {
    check_args(q, k, v, o, kFn);
    const int64_t T_q = q.size(-2), T_k = k.size(-2), d_v = v.size(-1);
    const int64_t batches = batch_count(q);
    const Shape score_shape = score_shape_of(q, k);
    const double trace_bytes = 5.0 * static_cast<double>(batches) * static_cast<double>(T_q) * static_cast<double>(T_k) * 4;
    if (trace_bytes > static_cast<double>(kMaxTraceBytes)) {
        throw Error(std::string(kFn) + ": its five " + shape_str(score_shape) + " intermediates would need " +
                    format_bytes(trace_bytes) + ", more than the " + format_bytes(kMaxTraceBytes) +
                    " a trace may take; attention() computes the output alone in little memory");
    }
    Shape out_shape = score_shape;
    out_shape.back() = d_v;

    AttentionTrace t;
    t.scores = Tensor(score_shape);
    const int64_t d_k = q.size(-1);
    for (int64_t b = 0; b < batches; ++b) {
        gemm(T_q, T_k, d_k, {q.data.data() + b * T_q * d_k, d_k}, {k.data.data() + b * T_k * d_k, d_k, true},
             t.scores.data.data() + b * T_q * T_k, T_k, false);
    }

    t.scaled_scores = t.scores;
    if (o.scale) {
        for (auto& x : t.scaled_scores.data) x *= *o.scale;
    } else {
        // Divide (not multiply by the reciprocal) as the notebooks write it.
        const float root = std::sqrt(static_cast<float>(q.size(-1)));
        for (auto& x : t.scaled_scores.data) x /= root;
    }

    t.mask = o.mask.dim() == 0 ? Tensor(score_shape, std::vector<float>(t.scores.data.size(), 1.0f))
                               : (check_finite(o.mask, kFn, "mask"), broadcast_mask(o.mask, score_shape, kFn));
    if (o.causal) {
        for (int64_t b = 0; b < batches; ++b) {
            auto m = matrix_slice(t.mask, b);
            for (int64_t i = 0; i < T_q; ++i) {
                for (int64_t j = i + (T_k - T_q) + 1; j < T_k; ++j)
                    if (j >= 0) m(i, j) = 0.0f;
                // A sliding window: only the `window` newest keys up to the query's own.
                if (o.window > 0)
                    for (int64_t j = 0; j < std::min(T_k, i + (T_k - T_q) - o.window + 1); ++j) m(i, j) = 0.0f;
            }
        }
    }
    if (!o.key_lengths.empty()) {
        // Every slice of batch row r (all heads) shares r's length.
        const int64_t per_row = q.dim() == 2 ? 1 : batches / q.shape[0];
        for (int64_t b = 0; b < batches; ++b) {
            const int64_t len = o.key_lengths[static_cast<size_t>(b / per_row)];
            if (len < 0 || len > T_k) {
                throw Error(std::string(kFn) + ": expected key lengths in [0, " + std::to_string(T_k) +
                            "], got " + std::to_string(len));
            }
            matrix_slice(t.mask, b).rightCols(T_k - len).setZero();
        }
    }

    t.masked_scores = t.scaled_scores;
    for (int64_t i = 0; i < t.mask.numel(); ++i)
        if (t.mask[i] == 0.0f) t.masked_scores[i] = o.fill_value;

    t.weights = softmax(t.masked_scores);
    t.output = Tensor(out_shape);
    for (int64_t b = 0; b < batches; ++b) {
        gemm(T_q, d_v, T_k, {t.weights.data.data() + b * T_q * T_k, T_k}, {v.data.data() + b * T_k * d_v, d_v},
             t.output.data.data() + b * T_q * d_v, d_v, false);
    }
    return t;
}

Tensor attention(const Tensor& q, const Tensor& k, const Tensor& v, const AttentionOptions& o) {
    constexpr const char* fn = "attention";
    check_args(q, k, v, o, fn);
    if (o.mask.dim() != 0) check_finite(o.mask, fn, "mask");
    const int64_t batches = batch_count(q);
    // Key lengths are per batch row (dimension 0); the kernel wants one per slice.
    std::vector<int64_t> slice_key_lengths;
    if (!o.key_lengths.empty()) {
        const int64_t per_row = q.dim() == 2 ? 1 : batches / q.shape[0];
        for (int64_t b = 0; b < batches; ++b) slice_key_lengths.push_back(o.key_lengths[static_cast<size_t>(b / per_row)]);
    }
    Shape out_shape(q.shape.begin(), q.shape.end() - 1);
    out_shape.push_back(v.size(-1));
    Tensor out(out_shape);
    attention_forward(q.data.data(), k.data.data(), v.data.data(), out.data.data(), batches, q.size(-2), k.size(-2),
                      q.size(-1), v.size(-1), o, slice_key_lengths, score_shape_of(q, k), fn);
    return out;
}

}  // namespace attn
