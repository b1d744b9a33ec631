#include "attn/head_statistics.hpp"

#include <algorithm>
#include <cmath>
#include <string>

namespace attn {

HeadSummary summarize_heads(const GPT& model, const std::vector<int64_t>& ids, const HeadSummaryOptions& options) {
    constexpr const char* fn = "summarizeHeads";
    const GPTConfig& c = model.config();
    const int64_t L = c.n_layer, H = c.n_head, T = static_cast<int64_t>(ids.size());
    if (T < 2) throw Error(std::string(fn) + ": expected a text of at least 2 tokens, got " + std::to_string(T));
    if (options.thumbnail < 0 || options.thumbnail > 1024) {
        throw Error(std::string(fn) + ": expected thumbnail in [0, 1024], got " + std::to_string(options.thumbnail));
    }
    const int64_t block = options.thumbnail > 0 ? (T + std::min(options.thumbnail, T) - 1) / std::min(options.thumbnail, T) : 1;
    const int64_t S = options.thumbnail > 0 ? (T + block - 1) / block : 0;
    const int64_t P = std::min(T, kDistanceProfile);
    HeadSummary s{Tensor({L, H}), Tensor({L, H}), Tensor({L, H}), Tensor({L, H}), Tensor({L, H, P}), Tensor({L}), Tensor({L, H, S, S}), Tensor()};
    for (int64_t l = 0; l < L; ++l) s.layer_window.data[static_cast<size_t>(l)] = c.sliding(l) ? static_cast<float>(c.sliding_window) : 0.0f;
    const GPT::AttentionObserver observe = [&](int64_t l, const std::vector<float>& w, const Matrix&) {  // w (1, H, T, T)
        for (int64_t h = 0; h < H; ++h) {
            const float* map = w.data() + h * T * T;
            double prev = 0, first = 0, distance = 0, entropy = 0;
            for (int64_t i = 1; i < T; ++i) {
                const float* row = map + i * T;
                prev += row[i - 1];
                first += row[0];
                for (int64_t j = 0; j <= i; ++j) {
                    distance += static_cast<double>(row[j]) * static_cast<double>(i - j);
                    if (row[j] > 0) entropy -= static_cast<double>(row[j]) * std::log(static_cast<double>(row[j]));
                }
            }
            const int64_t k = l * H + h;
            const double n = static_cast<double>(T - 1);
            s.previous_token.data[static_cast<size_t>(k)] = static_cast<float>(prev / n);
            s.first_token.data[static_cast<size_t>(k)] = static_cast<float>(first / n);
            s.mean_distance.data[static_cast<size_t>(k)] = static_cast<float>(distance / n);
            s.entropy.data[static_cast<size_t>(k)] = static_cast<float>(entropy / n);
            for (int64_t d = 0; d < P; ++d) {
                double on = 0;
                const int64_t from = std::max<int64_t>(d, 1);
                for (int64_t i = from; i < T; ++i) on += map[i * T + i - d];
                s.distance_profile.data[static_cast<size_t>(k * P + d)] = static_cast<float>(on / static_cast<double>(T - from));
            }
            if (S == 0) continue;
            float* thumb = s.thumbnails.data.data() + k * S * S;
            for (int64_t i = 0; i < T; ++i) {
                for (int64_t j = 0; j <= i; ++j) {
                    float& cell = thumb[(i / block) * S + j / block];
                    cell = std::max(cell, map[i * T + j]);
                }
            }
        }
    };
    const Tensor logits = model.forward_observed(ids, 1, observe, options.head_mask);
    const int64_t V = c.vocab_size;
    s.next_logits = Tensor({V}, std::vector<float>(logits.data.end() - V, logits.data.end()));
    return s;
}

namespace {
void check_layer(const GPTConfig& c, int64_t layer, const char* fn) {
    if (layer < 0 || layer >= c.n_layer) {
        throw Error(std::string(fn) + ": expected layer in [0, " + std::to_string(c.n_layer) + "), got " + std::to_string(layer));
    }
}
}  // namespace

HeadMap head_attention(const GPT& model, const std::vector<int64_t>& ids, int64_t layer, int64_t head, const Tensor* head_mask) {
    constexpr const char* fn = "headAttention";
    const GPTConfig& c = model.config();
    if (layer < 0 || layer >= c.n_layer || head < 0 || head >= c.n_head) {
        throw Error(std::string(fn) + ": expected layer in [0, " + std::to_string(c.n_layer) + ") and head in [0, " +
                    std::to_string(c.n_head) + "), got layer " + std::to_string(layer) + " and head " + std::to_string(head));
    }
    const int64_t T = static_cast<int64_t>(ids.size()), d = c.head_size(), HD = c.q_width(), KD = c.kv_width();
    const int64_t kv = head / (c.n_head / c.kv_heads());  // the key/value head this query head reads (GQA)
    HeadMap out;
    out.divisor = std::sqrt(static_cast<float>(c.query_pre_attn_scalar > 0 ? c.query_pre_attn_scalar : static_cast<float>(d)));
    model.forward_observed(ids, 1, [&](int64_t l, const std::vector<float>& w, const Matrix& qkv) {  // qkv (T, HD + 2·KD)
        if (l != layer) return;
        out.weights = Tensor({T, T}, std::vector<float>(w.begin() + head * T * T, w.begin() + (head + 1) * T * T));
        // The head's query columns, and its key/value head's key and value columns (after RoPE, as they met).
        const int64_t starts[] = {head * d, HD + kv * d, HD + KD + kv * d};
        Tensor* parts[] = {&out.queries, &out.keys, &out.values};
        for (int64_t p = 0; p < 3; ++p) {
            *parts[p] = Tensor({T, d});
            MatrixMap(parts[p]->data.data(), T, d) = qkv.block(0, starts[p], T, d);
        }
    }, head_mask);
    return out;
}

Tensor layer_attention(const GPT& model, const std::vector<int64_t>& ids, int64_t layer, const Tensor* head_mask) {
    const GPTConfig& c = model.config();
    check_layer(c, layer, "layerAttention");
    const int64_t T = static_cast<int64_t>(ids.size());
    Tensor out;
    model.forward_observed(ids, 1, [&](int64_t l, const std::vector<float>& w, const Matrix&) {
        if (l == layer) out = Tensor({c.n_head, T, T}, w);
    }, head_mask);
    return out;
}

}  // namespace attn
