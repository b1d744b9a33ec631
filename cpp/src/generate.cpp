#include "attn/generate.hpp"

#include <algorithm>
#include <string>

namespace attn {

GenerationSession::GenerationSession(const GPT& model, std::vector<int64_t> prompt, int64_t B,
                                     const GenerateOptions& options)
    : model_(model), B_(B), options_(options), own_(options.seed.value_or(Generator::kDefaultSeed)),
      gen_(options.seed ? &own_ : &default_generator()) {
    constexpr const char* fn = "generate";
    if (B <= 0 || prompt.empty() || prompt.size() % static_cast<size_t>(B) != 0) {
        throw Error(std::string(fn) + ": expected a prompt of shape [B, T] with B, T > 0, got " +
                    std::to_string(prompt.size()) + " ids for B=" + std::to_string(B));
    }
    if (options.max_new_tokens < 0 || options.max_new_tokens > kMaxElements / B) {
        throw Error(std::string(fn) + ": expected maxNewTokens in [0, " + std::to_string(kMaxElements / B) + "], got " +
                    std::to_string(options.max_new_tokens));
    }
    check_sampling_options(options.sampling, fn);
    const int64_t V = model.config().vocab_size;
    for (size_t i = 0; i < prompt.size(); ++i) {
        if (prompt[i] < 0 || prompt[i] >= V) {
            throw Error(std::string(fn) + ": expected token ids in [0, " + std::to_string(V) + "), got " +
                        std::to_string(prompt[i]) + " at index " + std::to_string(i));
        }
    }
    const size_t T0 = prompt.size() / static_cast<size_t>(B);
    for (int64_t b = 0; b < B; ++b)
        rows_.emplace_back(prompt.begin() + static_cast<int64_t>(T0) * b, prompt.begin() + static_cast<int64_t>(T0) * (b + 1));
    if (options.use_kv_cache) cache_ = model.new_cache(B);
}

std::vector<int64_t> GenerationSession::next() {
    if (done()) {
        throw Error("generate: all " + std::to_string(options_.max_new_tokens) + " new tokens have been produced");
    }
    const int64_t T = length(), block = model_.config().block_size, V = model_.config().vocab_size;
    const int64_t start = std::max<int64_t>(0, T - block);  // idx_cond = idx[:, -block_size:]
    int64_t feed_from = start;
    if (options_.use_kv_cache) {
        // Cropping shifts every position, which invalidates the cache: refill.
        if (cache_.length() == 0 || start != cache_start_) {
            cache_.clear();
            cache_start_ = start;
        } else {
            feed_from = cache_start_ + cache_.length();
        }
    }
    const int64_t n = T - feed_from;
    std::vector<int64_t> ids;
    ids.reserve(static_cast<size_t>(B_ * n));
    for (const auto& row : rows_) ids.insert(ids.end(), row.begin() + feed_from, row.end());
    const Tensor logits = options_.use_kv_cache ? model_.forward_cached(ids, B_, cache_) : model_.forward(ids, B_);

    Tensor last({B_, V});  // logits[:, -1, :]
    for (int64_t b = 0; b < B_; ++b)
        std::copy_n(logits.data.begin() + (b * n + n - 1) * V, V, last.data.begin() + b * V);
    std::vector<int64_t> next = sample_next(last, options_.sampling, *gen_);
    for (int64_t b = 0; b < B_; ++b) rows_[static_cast<size_t>(b)].push_back(next[static_cast<size_t>(b)]);
    ++produced_;
    return next;
}

std::vector<int64_t> GenerationSession::tokens() const {
    std::vector<int64_t> out;
    for (const auto& row : rows_) out.insert(out.end(), row.begin(), row.end());
    return out;
}

std::vector<int64_t> generate(const GPT& model, const std::vector<int64_t>& prompt, int64_t B,
                              const GenerateOptions& options,
                              const std::function<bool(const std::vector<int64_t>&)>& on_token) {
    GenerationSession session(model, prompt, B, options);
    while (!session.done()) {
        const std::vector<int64_t> step = session.next();
        if (on_token && !on_token(step)) break;
    }
    return session.tokens();
}

}  // namespace attn
