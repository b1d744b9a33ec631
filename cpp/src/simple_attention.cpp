#include "attn/simple_attention.hpp"

#include "attn/softmax.hpp"

#include <string>

namespace attn {

namespace {
void check_inputs(const Tensor& inputs, const char* fn) {
    if (inputs.dim() != 2 || inputs.shape[0] == 0 || inputs.shape[1] == 0) {
        throw_shape(fn, "inputs", "[T, d] with T, d > 0", inputs.shape);
    }
    check_finite(inputs, fn, "inputs");
}

float dot(const Tensor& x, int64_t i, int64_t j) {
    float s = 0;
    for (int64_t c = 0; c < x.shape[1]; ++c) s += x.at(i, c) * x.at(j, c);
    return s;
}
}  // namespace

Tensor attention_scores_for_query(const Tensor& inputs, int64_t q) {
    check_inputs(inputs, "attentionScoresForQuery");
    const int64_t T = inputs.shape[0];
    if (q < 0 || q >= T) {
        throw Error("attentionScoresForQuery: expected a query index in [0, " + std::to_string(T) +
                    "), got " + std::to_string(q));
    }
    Tensor scores({T});
    for (int64_t j = 0; j < T; ++j) scores[j] = dot(inputs, q, j);
    return scores;
}

Tensor attention_scores_loop(const Tensor& inputs) {
    check_inputs(inputs, "attentionScoresLoop");
    const int64_t T = inputs.shape[0];
    Tensor scores({T, T});
    for (int64_t i = 0; i < T; ++i)
        for (int64_t j = 0; j < T; ++j) scores.at(i, j) = dot(inputs, i, j);
    return scores;
}

Tensor attention_scores(const Tensor& inputs) {
    check_inputs(inputs, "attentionScores");
    const auto X = matrix(inputs);
    return from_matrix(X * X.transpose());
}

Tensor context_vector(const Tensor& weights, const Tensor& inputs) {
    check_inputs(inputs, "contextVector");
    const int64_t T = inputs.shape[0], d = inputs.shape[1];
    if (weights.shape != Shape{T}) {
        throw_shape("contextVector", "weights", "[" + std::to_string(T) + "]", weights.shape);
    }
    check_finite(weights, "contextVector", "weights");
    Tensor z({d});
    for (int64_t j = 0; j < T; ++j)
        for (int64_t c = 0; c < d; ++c) z[c] += weights[j] * inputs.at(j, c);
    return z;
}

Tensor context_vectors(const Tensor& weights, const Tensor& inputs) {
    check_inputs(inputs, "contextVectors");
    const int64_t T = inputs.shape[0];
    if (weights.dim() != 2 || weights.shape[1] != T) {
        throw_shape("contextVectors", "weights", "[T_q, " + std::to_string(T) + "]", weights.shape);
    }
    check_finite(weights, "contextVectors", "weights");
    return from_matrix(matrix(weights) * matrix(inputs));
}

SimpleAttentionTrace simple_self_attention(const Tensor& inputs) {
    SimpleAttentionTrace t;
    t.scores = attention_scores(inputs);
    t.weights = softmax(t.scores);
    t.context = context_vectors(t.weights, inputs);
    return t;
}

}  // namespace attn
