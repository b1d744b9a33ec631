#include "attn/scaled_dot_product_attention.hpp"

#include "attn/mask.hpp"
#include "attn/softmax.hpp"

#include <cmath>
#include <string>

namespace attn {

namespace {
constexpr const char* kFn = "scaledDotProductAttention";

void check_args(const Tensor& q, const Tensor& k, const Tensor& v, const AttentionOptions& o) {
    if (q.dim() < 2) throw_shape(kFn, "query", "[..., T_q, d_k]", q.shape);
    const Shape lead(q.shape.begin(), q.shape.end() - 2);
    auto lead_str = [&](const std::string& tail) {
        std::string s = shape_str(lead);
        s.pop_back();
        return s + (lead.empty() ? "" : ", ") + tail + "]";
    };
    if (q.size(-2) == 0 || q.size(-1) == 0) throw_shape(kFn, "query", "[..., T_q, d_k] with T_q, d_k > 0", q.shape);
    if (k.dim() != q.dim() || !std::equal(lead.begin(), lead.end(), k.shape.begin()) ||
        k.size(-1) != q.size(-1) || k.size(-2) == 0) {
        throw_shape(kFn, "key", lead_str("T_k, " + std::to_string(q.size(-1))), k.shape);
    }
    if (v.dim() != q.dim() || !std::equal(lead.begin(), lead.end(), v.shape.begin()) ||
        v.size(-2) != k.size(-2) || v.size(-1) == 0) {
        throw_shape(kFn, "value", lead_str(std::to_string(k.size(-2)) + ", d_v"), v.shape);
    }
    check_finite(q, kFn, "query");
    check_finite(k, kFn, "key");
    check_finite(v, kFn, "value");
    if (std::isnan(o.fill_value) || o.fill_value == std::numeric_limits<float>::infinity()) {
        throw Error(std::string(kFn) + ": expected fillValue finite or -Infinity, got " +
                    format_number(o.fill_value));
    }
    if (o.scale && !std::isfinite(*o.scale)) {
        throw Error(std::string(kFn) + ": expected a finite scale, got " + format_number(*o.scale));
    }
    if (!o.key_lengths.empty()) {
        const int64_t rows = q.dim() == 2 ? 1 : q.shape[0];
        if (static_cast<int64_t>(o.key_lengths.size()) != rows) {
            throw Error(std::string(kFn) + ": expected " + std::to_string(rows) +
                        " key lengths (one per batch row), got " +
                        std::to_string(o.key_lengths.size()));
        }
    }
}
}  // namespace

AttentionTrace scaled_dot_product_attention(const Tensor& q, const Tensor& k, const Tensor& v,
                                            const AttentionOptions& o) {
    check_args(q, k, v, o);
    const int64_t T_q = q.size(-2), T_k = k.size(-2), d_v = v.size(-1);
    const int64_t batches = batch_count(q);
    Shape score_shape(q.shape.begin(), q.shape.end() - 1);
    score_shape.push_back(T_k);
    Shape out_shape = score_shape;
    out_shape.back() = d_v;

    AttentionTrace t;
    t.scores = Tensor(score_shape);
    for (int64_t b = 0; b < batches; ++b) {
        matrix_slice(t.scores, b).noalias() = matrix_slice(q, b) * matrix_slice(k, b).transpose();
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
            for (int64_t i = 0; i < T_q; ++i)
                for (int64_t j = i + (T_k - T_q) + 1; j < T_k; ++j)
                    if (j >= 0) m(i, j) = 0.0f;
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
        matrix_slice(t.output, b).noalias() = matrix_slice(t.weights, b) * matrix_slice(v, b);
    }
    return t;
}

}  // namespace attn
