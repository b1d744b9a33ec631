#include "attn/rope.hpp"

#include <cmath>
#include <string>

namespace attn {

namespace {
// Python's math.pi, which Hugging Face's 2 * math.pi / inv_freq reads.
constexpr double kPi = 3.141592653589793;

void check_rope(const Rope& rope) {
    if (rope.head_dim <= 0 || rope.head_dim % 2 != 0) {
        throw Error("rope: expected an even head_dim > 0 (dimensions turn in pairs), got " + std::to_string(rope.head_dim));
    }
    if (!(rope.theta > 1) || !std::isfinite(rope.theta)) throw Error("rope: expected rope_theta > 1, got " + std::to_string(rope.theta));
    if (!rope.scaled) return;
    const Llama3Scaling& s = rope.llama3;
    if (!(s.factor >= 1) || !std::isfinite(s.factor)) throw Error("rope: expected rope_scaling.factor >= 1, got " + std::to_string(s.factor));
    if (!(s.low_freq_factor > 0) || !(s.high_freq_factor > s.low_freq_factor) || !std::isfinite(s.high_freq_factor)) {
        throw Error("rope: expected 0 < rope_scaling.low_freq_factor < high_freq_factor, got " + std::to_string(s.low_freq_factor) +
                    " and " + std::to_string(s.high_freq_factor));
    }
    if (s.original_max_position_embeddings <= 0) {
        throw Error("rope: expected rope_scaling.original_max_position_embeddings > 0, got " + std::to_string(s.original_max_position_embeddings));
    }
}

// The shared shape check of forward and backward: x (..., T, D) against tables of T rows of D.
void check_input(const Tensor& x, const RopeTables& t, const char* fn) {
    const int64_t T = t.cos.shape.empty() ? 0 : t.cos.shape[0], D = t.cos.shape.size() == 2 ? t.cos.shape[1] : 0;
    if (x.dim() < 2 || x.shape[x.shape.size() - 2] != T || x.shape.back() != D) {
        throw Error(std::string(fn) + ": expected x of shape (..., " + std::to_string(T) + ", " + std::to_string(D) + ") for tables of " +
                    std::to_string(T) + " positions, got " + shape_str(x.shape));
    }
}

// out = a · cos + sign · rotate_half(a) · sin, row by row.
Tensor rotate(const Tensor& a, const RopeTables& t, float sign) {
    const int64_t T = t.cos.shape[0], D = t.cos.shape[1];
    Tensor out = a;
    const int64_t rows = a.numel() / D;
    for (int64_t r = 0; r < rows; ++r) {
        rope_rotate(out.data.data() + r * D, 1, D, t.cos.data.data() + (r % T) * D, t.sin.data.data() + (r % T) * D, sign);
    }
    return out;
}
}  // namespace

void rope_rotate(float* x, int64_t heads, int64_t D, const float* c, const float* s, float sign) {
    // rotate_half's transpose is rotate_half with the sign flipped: it moves the second half to the first negated
    // and the first to the second. Each product is rounded before the sum, as torch's q * cos + rotate_half(q) * sin.
    const int64_t half = D / 2;
    for (int64_t h = 0; h < heads; ++h, x += D) {
        for (int64_t i = 0; i < half; ++i) {
            const float a = x[i], b = x[i + half];
            x[i] = a * c[i] - sign * b * s[i];
            x[i + half] = b * c[i + half] + sign * a * s[i + half];
        }
    }
}

std::vector<float> rope_inverse_frequencies(const Rope& rope) {
    check_rope(rope);
    const int64_t half = rope.head_dim / 2;
    std::vector<float> inv(static_cast<size_t>(half));
    for (int64_t i = 0; i < half; ++i) {
        // float32 throughout, as torch computes 1.0 / (base ** (arange(0, D, 2).float() / D)).
        const float exponent = static_cast<float>(2 * i) / static_cast<float>(rope.head_dim);
        inv[static_cast<size_t>(i)] = 1.0f / std::pow(static_cast<float>(rope.theta), exponent);
    }
    if (!rope.scaled) return inv;
    // In float32 and in torch's order of operations (a scalar divided by a tensor is the tensor's reciprocal times
    // the scalar), so that the frequencies are torch's to the bit: an angle at position 70,000 moves by 0.004
    // for one unit in the last place of its frequency.
    const Llama3Scaling& s = rope.llama3;
    const float old = static_cast<float>(s.original_max_position_embeddings);
    const float low = static_cast<float>(s.low_freq_factor);
    const float factor = static_cast<float>(s.factor);
    const float low_wavelen = static_cast<float>(static_cast<double>(s.original_max_position_embeddings) / s.low_freq_factor);
    const float high_wavelen = static_cast<float>(static_cast<double>(s.original_max_position_embeddings) / s.high_freq_factor);
    for (float& f : inv) {
        const float wavelen = (1.0f / f) * static_cast<float>(2 * kPi);
        if (wavelen > low_wavelen) {
            f = f / factor;  // a slow pair: stretched to the new context
        } else if (!(wavelen < high_wavelen)) {
            const float smooth = ((1.0f / wavelen) * old - low) / static_cast<float>(s.high_freq_factor - s.low_freq_factor);
            f = (1 - smooth) * f / factor + smooth * f;  // between: blended
        }
    }
    return inv;
}

RopeTables rope_tables(const Rope& rope, const std::vector<int64_t>& positions) {
    const std::vector<float> inv = rope_inverse_frequencies(rope);
    const int64_t T = static_cast<int64_t>(positions.size()), D = rope.head_dim, half = D / 2;
    numel({T, D}, "rope");
    RopeTables t{Tensor({T, D}), Tensor({T, D})};
    for (int64_t p = 0; p < T; ++p) {
        if (positions[static_cast<size_t>(p)] < 0) throw Error("rope: expected positions >= 0, got " + std::to_string(positions[static_cast<size_t>(p)]));
        for (int64_t i = 0; i < half; ++i) {
            // The angle in float32, as torch's float32 product of position and frequency.
            const float angle = static_cast<float>(positions[static_cast<size_t>(p)]) * inv[static_cast<size_t>(i)];
            const float c = std::cos(angle), s = std::sin(angle);
            t.cos.data[static_cast<size_t>(p * D + i)] = t.cos.data[static_cast<size_t>(p * D + i + half)] = c;
            t.sin.data[static_cast<size_t>(p * D + i)] = t.sin.data[static_cast<size_t>(p * D + i + half)] = s;
        }
    }
    return t;
}

Tensor rope_forward(const Tensor& x, const RopeTables& tables) {
    check_input(x, tables, "rope_forward");
    return rotate(x, tables, 1.0f);
}

Tensor rope_backward(const Tensor& dy, const RopeTables& tables) {
    check_input(dy, tables, "rope_backward");
    return rotate(dy, tables, -1.0f);
}

}  // namespace attn
