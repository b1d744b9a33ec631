#include "attn/sampling.hpp"

#include "attn/softmax.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

namespace attn {

void check_sampling_options(const SamplingOptions& o, const char* fn) {
    if (!(o.temperature >= 0.0f) || !std::isfinite(o.temperature)) {
        throw Error(std::string(fn) + ": expected temperature >= 0 (0 = greedy), got " + format_number(o.temperature));
    }
    if (o.top_k < 0) throw Error(std::string(fn) + ": expected top_k >= 0 (0 = all tokens), got " + std::to_string(o.top_k));
    if (!(o.top_p > 0.0 && o.top_p <= 1.0)) {
        throw Error(std::string(fn) + ": expected top_p in (0, 1] (1 = all tokens), got " + format_number(o.top_p));
    }
}

std::vector<int64_t> multinomial(const Tensor& probs, Generator& gen) {
    if (probs.dim() != 2 || probs.shape[1] == 0) throw_shape("multinomial", "probs", "[B, V] with V > 0", probs.shape);
    const int64_t B = probs.shape[0], V = probs.shape[1];
    for (int64_t b = 0; b < B; ++b) {
        float sum = 0;
        for (int64_t j = 0; j < V; ++j) {
            const float p = probs.at(b, j);
            if (!(p >= 0.0f) || !std::isfinite(p)) {
                throw Error("multinomial: expected finite, non-negative probabilities, got " + format_number(p) +
                            " in row " + std::to_string(b));
            }
            sum += p;
        }
        if (!(sum > 0.0f)) throw Error("multinomial: row " + std::to_string(b) + " has no positive probability");
    }
    Tensor q(probs.shape);
    exponential_(q, 1.0, gen);
    std::vector<int64_t> out(static_cast<size_t>(B));
    for (int64_t b = 0; b < B; ++b) {
        float best = -1.0f;
        for (int64_t j = 0; j < V; ++j) {
            const float r = probs.at(b, j) / q.at(b, j);
            if (r > best) {  // strict: the first index wins ties, as argmax does
                best = r;
                out[static_cast<size_t>(b)] = j;
            }
        }
    }
    return out;
}

namespace {
// transformers' TopPLogitsWarper on one row of V logits (min_tokens_to_keep 1):
//   sorted_logits, sorted_indices = torch.sort(scores, descending=False)
//   cumulative_probs = sorted_logits.softmax(dim=-1).cumsum(dim=-1)
//   sorted_indices_to_remove = cumulative_probs <= (1 - top_p)
//   sorted_indices_to_remove[..., -1:] = 0
// then the removed logits set to -inf. Equal logits keep their order here (the one of lower index goes first), as
// torch.sort's default (unstable) CPU sort happens to keep them in rows of up to 16; in longer rows it orders ties
// as its algorithm falls, so which of two equally likely tokens at the cut goes may differ from PyTorch's there.
// cumsum accumulates in double (at::acc_type<float> on CPU) and writes float32, as here.
void top_p_cut(float* row, int64_t V, double top_p, std::vector<int64_t>& order) {
    order.resize(static_cast<size_t>(V));
    for (int64_t j = 0; j < V; ++j) order[static_cast<size_t>(j)] = j;
    std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) { return row[a] < row[b]; });
    const float top = row[order.back()];  // finite: the logits are checked, and top-k keeps the largest
    double sum = 0;
    for (int64_t j = 0; j < V; ++j) sum += std::exp(static_cast<double>(row[j] - top));
    const float threshold = static_cast<float>(1.0 - top_p);
    double cumulative = 0;
    for (int64_t i = 0; i + 1 < V; ++i) {  // the last, the likeliest, always stays
        const int64_t j = order[static_cast<size_t>(i)];
        cumulative += static_cast<double>(static_cast<float>(std::exp(static_cast<double>(row[j] - top)) / sum));
        if (!(static_cast<float>(cumulative) <= threshold)) break;
        row[j] = -std::numeric_limits<float>::infinity();
    }
}

// sampling_distribution and sample_next: the checks and the distribution they share; `fn` names the caller.
Tensor distribution(const Tensor& logits, const SamplingOptions& o, const char* fn) {
    check_sampling_options(o, fn);
    if (logits.dim() != 2 || logits.shape[1] == 0) throw_shape(fn, "logits", "[B, V] with V > 0", logits.shape);
    check_finite(logits, fn, "logits");  // the argmax of a row of NaN would be token 0, silently
    const int64_t B = logits.shape[0], V = logits.shape[1];
    if (o.temperature == 0.0f) {
        Tensor one_hot(logits.shape);
        for (int64_t b = 0; b < B; ++b) {
            const float* row = logits.data.data() + b * V;
            one_hot.data[static_cast<size_t>(b * V + (std::max_element(row, row + V) - row))] = 1.0f;
        }
        return one_hot;
    }
    Tensor scaled = logits;
    for (float& x : scaled.data) x /= o.temperature;
    if (o.top_k > 0 && o.top_k < V) {
        // nanoGPT: v, _ = torch.topk(logits, k); logits[logits < v[:, [-1]]] = -inf
        std::vector<float> row(static_cast<size_t>(V));
        for (int64_t b = 0; b < B; ++b) {
            float* r = scaled.data.data() + b * V;
            std::copy(r, r + V, row.begin());
            std::nth_element(row.begin(), row.begin() + (o.top_k - 1), row.end(), std::greater<float>());
            const float kth = row[static_cast<size_t>(o.top_k - 1)];
            for (int64_t j = 0; j < V; ++j)
                if (r[j] < kth) r[j] = -std::numeric_limits<float>::infinity();
        }
    }
    if (o.top_p < 1.0) {
        std::vector<int64_t> order;
        for (int64_t b = 0; b < B; ++b) top_p_cut(scaled.data.data() + b * V, V, o.top_p, order);
    }
    return softmax(scaled);
}
}  // namespace

Tensor sampling_distribution(const Tensor& logits, const SamplingOptions& o) {
    return distribution(logits, o, "samplingDistribution");
}

std::vector<int64_t> sample_next(const Tensor& logits, const SamplingOptions& o, Generator& gen) {
    const Tensor probs = distribution(logits, o, "sampleNext");
    if (o.temperature > 0.0f) return multinomial(probs, gen);
    // Greedy draws nothing from the generator: the argmax, as the one-hot distribution has it.
    const int64_t B = probs.shape[0], V = probs.shape[1];
    std::vector<int64_t> out(static_cast<size_t>(B));
    for (int64_t b = 0; b < B; ++b) {
        const float* row = probs.data.data() + b * V;
        out[static_cast<size_t>(b)] = std::max_element(row, row + V) - row;
    }
    return out;
}

}  // namespace attn
