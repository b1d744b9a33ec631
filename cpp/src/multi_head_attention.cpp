#include "attn/multi_head_attention.hpp"

#include "attention_kernel.hpp"

#include <cmath>
#include <string>

namespace attn {

void check_head_split(int64_t width, int64_t heads, const char* fn, const std::string& width_name,
                      const std::string& heads_name) {
    const std::string f(fn);
    if (width <= 0) throw Error(f + ": expected " + width_name + " > 0, got " + std::to_string(width));
    if (heads <= 0) throw Error(f + ": expected " + heads_name + " > 0, got " + std::to_string(heads));
    if (width % heads != 0) {
        throw Error(f + ": " + width_name + " must be divisible by " + heads_name + ", got " + width_name + "=" +
                    std::to_string(width) + " and " + heads_name + "=" + std::to_string(heads));
    }
}

namespace {
int64_t checked_heads(const char* fn, const char* width_name, int64_t width, int64_t heads) {
    check_head_split(width, heads, fn, width_name, "num_heads");
    return heads;
}

// (T, C) is accepted as one sequence; returns the (B, T, C) view's B and T.
std::pair<int64_t, int64_t> batch_and_length(const Tensor& x, int64_t C, const char* fn, const char* name) {
    if ((x.dim() != 2 && x.dim() != 3) || x.size(-1) != C || x.size(-2) == 0 || (x.dim() == 3 && x.shape[0] == 0)) {
        throw_shape(fn, name, "[B, T, " + std::to_string(C) + "] or [T, " + std::to_string(C) + "] with B, T > 0",
                    x.shape);
    }
    check_finite(x, fn, name);
    return {x.dim() == 3 ? x.shape[0] : 1, x.size(-2)};
}

// The part both modules share once Q, K, V are projected: heads, concat,
// output projection, and the trace, or only the output when !trace.
MultiHeadAttentionTrace attend(const Matrix& q, const Matrix& k, const Matrix& v, int64_t B, int64_t H,
                               const AttentionOptions& o, const Linear& out_proj, bool batched, bool trace,
                               const char* fn) {
    const int64_t T_q = q.rows() / B, T_k = k.rows() / B, C = q.cols();
    const Shape out_shape = batched ? Shape{B, T_q, C} : Shape{T_q, C};
    MultiHeadAttentionTrace t;
    Matrix concat(B * T_q, C);
    if (!trace) {
        multi_head_attention_forward(q, k, v, B, H, o, concat, nullptr, nullptr, fn);
        t.output = Tensor(out_shape);
        linear_forward(t.output.data.data(), concat.data(), out_proj.weight.data.data(),
                       out_proj.has_bias() ? out_proj.bias.data.data() : nullptr, B * T_q, C, C);
        return t;
    }
    const double bytes = (2.0 * H + 1) * static_cast<double>(B) * static_cast<double>(T_q) * static_cast<double>(T_k) * 4;
    if (bytes > static_cast<double>(kMaxTraceBytes)) {
        throw Error(std::string(fn) + ": its " + shape_str({B, H, T_q, T_k}) + " scores and weights would need " +
                    format_bytes(bytes) + ", more than the " + format_bytes(kMaxTraceBytes) +
                    " a trace may take; trace: false gives the output alone in little memory");
    }
    t.scores = Tensor({B, H, T_q, T_k});
    t.weights = Tensor({B, H, T_q, T_k});
    multi_head_attention_forward(q, k, v, B, H, o, concat, t.scores.data.data(), t.weights.data.data(), fn);
    t.queries = split_heads(q, B, H);
    t.keys = split_heads(k, B, H);
    t.values = split_heads(v, B, H);
    t.concat = Tensor(out_shape, std::vector<float>(concat.data(), concat.data() + concat.size()));
    t.output = Tensor(out_shape);
    linear_forward(t.output.data.data(), concat.data(), out_proj.weight.data.data(),
                   out_proj.has_bias() ? out_proj.bias.data.data() : nullptr, B * T_q, C, C);
    t.average_weights = Tensor({B, T_q, T_k});
    for (int64_t b = 0; b < B; ++b)
        for (int64_t h = 0; h < H; ++h)
            for (int64_t i = 0; i < T_q * T_k; ++i)
                t.average_weights[b * T_q * T_k + i] += t.weights[(b * H + h) * T_q * T_k + i] / static_cast<float>(H);
    return t;
}

// Notebook 001 applies a (B, T_q, T_k) mask per batch row (mask.unsqueeze(1)
// against (B, H, T_q, T_k) scores): a 3-D mask gains a head dimension of 1.
// paddingMask's (B, 1, T_k) is such a mask too.
AttentionOptions per_batch_row(const AttentionOptions& o) {
    if (o.mask.dim() != 3) return o;
    AttentionOptions out = o;
    out.mask.shape = {o.mask.shape[0], 1, o.mask.shape[1], o.mask.shape[2]};
    return out;
}

// torch.nn.MultiheadAttention's attn_mask is (T_q, T_k) or (B·num_heads, T_q, T_k).
AttentionOptions per_batch_and_head(const AttentionOptions& o, int64_t B, int64_t H, const char* fn) {
    if (o.mask.dim() != 3) return o;
    if (o.mask.shape[0] != B * H) {
        throw_shape(fn, "mask", "[T_q, T_k] or [B·numHeads, T_q, T_k] = [" + std::to_string(B * H) + ", T_q, T_k]",
                    o.mask.shape);
    }
    AttentionOptions out = o;
    out.mask.shape = {B, H, o.mask.shape[1], o.mask.shape[2]};
    return out;
}

Matrix project(const Tensor& x, const float* weight, const float* bias, int64_t C) {
    const int64_t rows = x.numel() / C;
    Matrix out(rows, C);
    linear_forward(out.data(), x.data.data(), weight, bias, rows, C, C);
    return out;
}
}  // namespace

MultiHeadAttention::MultiHeadAttention(int64_t d_model, int64_t num_heads, Generator& gen)
    : W_q((checked_heads("MultiHeadAttention", "d_model", d_model, num_heads), d_model), d_model, false, gen),
      W_k(d_model, d_model, false, gen),
      W_v(d_model, d_model, false, gen),
      W_o(d_model, d_model, false, gen),
      num_heads_(num_heads) {}

void MultiHeadAttention::load_state_dict(const StateDict& state, bool strict) {
    attn::load_state_dict("MultiHeadAttention.loadStateDict",
                          {{"W_q.weight", &W_q.weight}, {"W_k.weight", &W_k.weight}, {"W_v.weight", &W_v.weight},
                           {"W_o.weight", &W_o.weight}},
                          state, strict);
}

MultiHeadAttentionTrace MultiHeadAttention::forward(const Tensor& x, const AttentionOptions& o, bool trace) const {
    constexpr const char* fn = "MultiHeadAttention.forward";
    const int64_t C = d_model();
    const auto [B, T] = batch_and_length(x, C, fn, "x");
    (void)T;
    const Matrix q = project(x, W_q.weight.data.data(), nullptr, C);
    const Matrix k = project(x, W_k.weight.data.data(), nullptr, C);
    const Matrix v = project(x, W_v.weight.data.data(), nullptr, C);
    return attend(q, k, v, B, num_heads_, per_batch_row(o), W_o, x.dim() == 3, trace, fn);
}

TorchMultiheadAttention::TorchMultiheadAttention(int64_t E, int64_t num_heads, bool bias, Generator& gen)
    : out_proj((checked_heads("TorchMultiheadAttention", "embed_dim", E, num_heads), E), E, bias, gen), num_heads_(num_heads) {
    // torch/nn/modules/activation.py _reset_parameters: xavier_uniform_ with
    // fan_in = E, fan_out = 3E, computed in double as torch.nn.init does.
    in_proj_weight = Tensor({3 * E, E});
    const double a = std::sqrt(3.0) * std::sqrt(2.0 / static_cast<double>(E + 3 * E));
    uniform_(in_proj_weight, -a, a, gen);
    if (bias) {
        in_proj_bias = Tensor({3 * E});
        out_proj.bias = Tensor({E});
    }
}

MultiHeadAttentionTrace TorchMultiheadAttention::forward(const Tensor& query, const Tensor& key, const Tensor& value,
                                                         const AttentionOptions& o, bool trace) const {
    constexpr const char* fn = "TorchMultiheadAttention.forward";
    const int64_t E = embed_dim();
    const auto [B, T_q] = batch_and_length(query, E, fn, "query");
    const auto [Bk, T_k] = batch_and_length(key, E, fn, "key");
    const auto [Bv, T_v] = batch_and_length(value, E, fn, "value");
    (void)T_q;
    if (Bk != B || key.dim() != query.dim()) throw_shape(fn, "key", "with the query's batch size", key.shape);
    if (Bv != B || T_v != T_k || value.dim() != query.dim()) throw_shape(fn, "value", shape_str(key.shape), value.shape);
    const float* w = in_proj_weight.data.data();
    const float* b = in_proj_bias.dim() == 1 ? in_proj_bias.data.data() : nullptr;
    const Matrix q = project(query, w, b, E);
    const Matrix k = project(key, w + E * E, b ? b + E : nullptr, E);
    const Matrix v = project(value, w + 2 * E * E, b ? b + 2 * E : nullptr, E);
    return attend(q, k, v, B, num_heads_, per_batch_and_head(o, B, num_heads_, fn), out_proj, query.dim() == 3, trace,
                  fn);
}

}  // namespace attn
