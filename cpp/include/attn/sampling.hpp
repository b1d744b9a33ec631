// Choosing the next token from logits, as nanoGPT's GPT.generate does:
// divide by the temperature, keep the top k, softmax, and draw with
// torch.multinomial, whose default CPU path (docs/torch-rng.md: PyTorch 1.13
// and >= 2.7; not the MKL builds between) is the exponential race
// argmax(p / q), q ~ Exp(1). Between the top k and the softmax, nucleus
// (top-p) sampling as transformers' TopPLogitsWarper does it: its warpers run
// in the same order, temperature, top-k, top-p (generation/utils.py,
// _get_logits_processor).
#pragma once

#include "attn/tensor.hpp"
#include "attn/torch_rng.hpp"

#include <vector>

namespace attn {

struct SamplingOptions {
    float temperature = 1.0f;  // 0 means greedy: the argmax of the logits
    int64_t top_k = 0;         // keep the k largest logits per row; 0 keeps all
    // Keep the likeliest tokens whose probabilities (after temperature and top_k) sum to at least top_p: sorted
    // ascending, a token goes when the cumulative probability up to it is <= 1 - top_p, and the likeliest always
    // stays. 1 keeps all. A double, as transformers' top_p is a Python float: the threshold 1 - top_p is computed
    // in double and compared in float32, as TopPLogitsWarper's torch comparison does.
    double top_p = 1.0;
};

// torch.multinomial(probs, num_samples=1): draws probs.numel() exponentials in
// row-major order, then per row the first index of max p / q. probs (B, V),
// non-negative with a positive sum per row. Returns (B).
std::vector<int64_t> multinomial(const Tensor& probs, Generator& gen = default_generator());

// The distribution sample_next draws from, in nanoGPT's order: logits / temperature, every logit below the
// k-th largest set to -inf, then top-p's cut (TopPLogitsWarper) to -inf, softmax. Temperature 0 (greedy) puts all
// the mass on the first largest logit.
// logits (B, V) -> (B, V), each row summing to 1.
Tensor sampling_distribution(const Tensor& logits, const SamplingOptions& options);

// logits (B, V) of one position per row -> (B) next tokens.
std::vector<int64_t> sample_next(const Tensor& logits, const SamplingOptions& options,
                                 Generator& gen = default_generator());

void check_sampling_options(const SamplingOptions& options, const char* fn);

}  // namespace attn
