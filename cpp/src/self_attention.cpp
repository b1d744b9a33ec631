#include "attn/self_attention.hpp"

#include "attn/scaled_dot_product_attention.hpp"

#include <string>

namespace attn {

namespace {
void check_sizes(const char* fn, int64_t d_in, int64_t d_out) {
    if (d_in <= 0 || d_out <= 0) {
        throw Error(std::string(fn) + ": expected d_in > 0 and d_out > 0, got " +
                    std::to_string(d_in) + " and " + std::to_string(d_out));
    }
}

void check_x(const char* fn, const Tensor& x, int64_t d_in) {
    if (x.dim() < 2 || x.size(-1) != d_in || x.size(-2) == 0) {
        throw_shape(fn, "x", "[..., T, " + std::to_string(d_in) + "] with T > 0", x.shape);
    }
    check_finite(x, fn, "x");
}

Tensor transposed(const Tensor& m) { return from_matrix(matrix(m).transpose()); }

// The shared second half: scores, scaling, softmax, context.
SelfAttentionTrace attend(Tensor q, Tensor k, Tensor v) {
    AttentionTrace a = scaled_dot_product_attention(q, k, v);
    return {std::move(q),           std::move(k),         std::move(v),       std::move(a.scores),
            std::move(a.scaled_scores), std::move(a.weights), std::move(a.output)};
}
}  // namespace

SelfAttentionV1::SelfAttentionV1(int64_t d_in, int64_t d_out, Generator& gen) {
    check_sizes("SelfAttentionV1", d_in, d_out);
    W_query = rand({d_in, d_out}, gen);
    W_key = rand({d_in, d_out}, gen);
    W_value = rand({d_in, d_out}, gen);
}

SelfAttentionTrace SelfAttentionV1::forward(const Tensor& x) const {
    check_x("SelfAttentionV1.forward", x, W_query.shape[0]);
    return attend(matmul(x, W_query), matmul(x, W_key), matmul(x, W_value));
}

void SelfAttentionV1::load_state_dict(const StateDict& state, bool strict) {
    attn::load_state_dict("SelfAttentionV1.loadStateDict", {{"W_query", &W_query}, {"W_key", &W_key}, {"W_value", &W_value}},
                          state, strict);
}

SelfAttentionV2::SelfAttentionV2(int64_t d_in, int64_t d_out, bool qkv_bias, Generator& gen)
    : W_query((check_sizes("SelfAttentionV2", d_in, d_out), d_in), d_out, qkv_bias, gen),
      W_key(d_in, d_out, qkv_bias, gen),
      W_value(d_in, d_out, qkv_bias, gen) {}

SelfAttentionTrace SelfAttentionV2::forward(const Tensor& x) const {
    check_x("SelfAttentionV2.forward", x, W_query.in_features());
    return attend(W_query.forward(x), W_key.forward(x), W_value.forward(x));
}

SelfAttentionU::SelfAttentionU(int64_t d, Generator& gen) {
    check_sizes("SelfAttentionU", d, d);
    U_query = rand({d, d}, gen);
    U_key = rand({d, d}, gen);
    U_value = rand({d, d}, gen);
}

SelfAttentionTrace SelfAttentionU::forward(const Tensor& x) const {
    check_x("SelfAttentionU.forward", x, U_query.shape[0]);
    // U.matmul(X.T).T == X @ U.T (notebook 003 §2)
    return attend(matmul(x, transposed(U_query)), matmul(x, transposed(U_key)),
                  matmul(x, transposed(U_value)));
}

}  // namespace attn
