#include "attn/score_explanation.hpp"

#include <cmath>
#include <string>
#include <utility>

namespace attn {

ScoreExplanation explain_score(const Tensor& queries, const Tensor& keys, const Tensor& values, const Tensor& weights,
                               int64_t i, int64_t j, const char* fn, std::optional<float> divisor) {
    const auto need_2d = [&](const Tensor& t, const char* name, const std::string& expected) {
        if (t.dim() != 2) throw_shape(fn, name, expected, t.shape);
    };
    need_2d(queries, "queries", "(T_q, d_k)");
    need_2d(keys, "keys", "(T_k, d_k)");
    need_2d(values, "values", "(T_k, d_v)");
    need_2d(weights, "weights", "(T_q, T_k)");
    const int64_t T_q = queries.shape[0], d_k = queries.shape[1], T_k = keys.shape[0], d_v = values.shape[1];
    if (keys.shape[1] != d_k) throw_shape(fn, "keys", "(T_k, " + std::to_string(d_k) + ") like the queries", keys.shape);
    if (values.shape[0] != T_k) throw_shape(fn, "values", "(" + std::to_string(T_k) + ", d_v), a row per key", values.shape);
    if (weights.shape != Shape{T_q, T_k}) throw_shape(fn, "weights", shape_str({T_q, T_k}) + " (T_q, T_k)", weights.shape);
    for (const auto& [t, name] : {std::pair{&queries, "queries"}, {&keys, "keys"}, {&values, "values"}, {&weights, "weights"}})
        check_finite(*t, fn, name);
    if (divisor && !(std::isfinite(*divisor) && *divisor > 0)) {
        throw Error(std::string(fn) + ": expected a divisor that is a positive number, got " + format_number(*divisor));
    }
    if (i < 0 || i >= T_q || j < 0 || j >= T_k) {
        throw Error(std::string(fn) + ": expected a query in [0, " + std::to_string(T_q) + ") and a key in [0, " +
                    std::to_string(T_k) + "), got (" + std::to_string(i) + ", " + std::to_string(j) + ")");
    }
    ScoreExplanation e;
    e.query = Tensor({d_k}, std::vector<float>(queries.data.begin() + i * d_k, queries.data.begin() + (i + 1) * d_k));
    e.key = Tensor({d_k}, std::vector<float>(keys.data.begin() + j * d_k, keys.data.begin() + (j + 1) * d_k));
    e.products = Tensor({d_k});
    for (int64_t d = 0; d < d_k; ++d) {
        e.products[d] = e.query[d] * e.key[d];
        e.score += e.products[d];
    }
    // Divided, not multiplied by the reciprocal, as the notebooks and the kernels do it (Gemma's model multiplies
    // by the float nearest 1/√query_pre_attn_scalar: the two may differ in the last bit).
    e.divisor = divisor ? *divisor : std::sqrt(static_cast<float>(d_k));
    e.scaled_score = e.score / e.divisor;
    e.weights = Tensor({T_k}, std::vector<float>(weights.data.begin() + i * T_k, weights.data.begin() + (i + 1) * T_k));
    e.mixed = Tensor({T_k, d_v});
    e.output = Tensor({d_v});
    for (int64_t k = 0; k < T_k; ++k)
        for (int64_t c = 0; c < d_v; ++c) {
            e.mixed[k * d_v + c] = e.weights[k] * values[k * d_v + c];
            e.output[c] += e.mixed[k * d_v + c];
        }
    return e;
}

}  // namespace attn
