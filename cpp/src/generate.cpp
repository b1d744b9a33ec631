#include "attn/generate.hpp"

#include "schema.hpp"

#include <algorithm>
#include <string>

namespace attn {

namespace {
// Every field of GenerateOptions, once (schema.hpp).
const schema::Table<GenerateOptions>& generate_fields() {
    using C = GenerateOptions;
    using schema::kMaxSafeInteger;
    static const schema::Table<C> table = {"option", {
        ATTN_INTEGER("max_new_tokens", max_new_tokens, 0, kMaxElements, "tokens to generate after the prompt"),
        ATTN_NUMBER("temperature", sampling.temperature, 0, kMaxSafeInteger, false, false, "divides the logits; 0 = greedy (the argmax)"),
        ATTN_INTEGER("top_k", sampling.top_k, 0, kMaxSafeInteger, "sample among the k likeliest tokens; 0 = all"),
        ATTN_NUMBER("top_p", sampling.top_p, 0, 1, true, false,
                    "then among the likeliest tokens whose probabilities sum to top_p (nucleus sampling); 1 = all"),
        ATTN_OPTIONAL_INTEGER("seed", seed, -kMaxSafeInteger, kMaxSafeInteger,
                              "sample as after torch.manual_seed(seed); null: go on with the global generator"),
        ATTN_SWITCH("use_kv_cache", use_kv_cache, "feed only the new token each step (the same logits, faster)"),
        // transformers' name: one id or a list, as generation_config.json writes it.
        ATTN_INTEGER_LIST("eos_token_id", eos_token_ids, 0, kMaxSafeInteger,
                          "stop tokens: a row that produces one is finished (kept in its output), and generation ends "
                          "when every row is; none = never stop early"),
        ATTN_OPTIONAL_INTEGER("pad_token_id", pad_token_id, 0, kMaxSafeInteger,
                              "what a finished row gets while the others go on; null = the first stop token"),
    }};
    return table;
}
}  // namespace

void GenerateOptions::validate(const char* fn, Naming naming) const {
    schema::check_all(generate_fields(), *this, naming, fn);
}

std::string to_json(const GenerateOptions& o, Naming naming) { return schema::write(generate_fields(), o, naming); }

GenerateOptions generate_options_from_json(const std::string& text, Naming naming, const char* fn,
                                           const GenerateOptions& base) {
    return schema::read(generate_fields(), text, naming, fn, base);
}

void set_field(GenerateOptions& o, const std::string& name, const std::string& value, Naming naming, const char* fn) {
    schema::set_text(generate_fields(), o, name, value, naming, fn);
}

std::vector<FieldInfo> fields(const GenerateOptions& o, Naming naming) {
    return schema::list(generate_fields(), o, naming);
}

GenerationSession::GenerationSession(const GPT& model, std::vector<int64_t> prompt, int64_t B,
                                     const GenerateOptions& options)
    : model_(model), B_(B), options_(options), own_(options.seed ? static_cast<uint64_t>(*options.seed) : Generator::kDefaultSeed),
      gen_(options.seed ? &own_ : &default_generator()) {
    constexpr const char* fn = "generate";
    if (B <= 0 || prompt.empty() || prompt.size() % static_cast<size_t>(B) != 0) {
        throw Error(std::string(fn) + ": expected a prompt of shape [B, T] with B, T > 0, got " +
                    std::to_string(prompt.size()) + " ids for B=" + std::to_string(B));
    }
    options.validate(fn);
    // Every row's tokens together stay within the library's limit.
    if (options.max_new_tokens > kMaxElements / B) {
        throw Error(std::string(fn) + ": expected max_new_tokens in [0, " + std::to_string(kMaxElements / B) +
                    "] for a batch of " + std::to_string(B) + ", got " + std::to_string(options.max_new_tokens));
    }
    const int64_t V = model.config().vocab_size;
    // Stop and pad tokens the model can produce: a pad token is fed back to it, and a stop token it cannot make
    // would never stop anything.
    for (size_t i = 0; i < options.eos_token_ids.size(); ++i) {
        if (options.eos_token_ids[i] >= V) {
            throw Error(std::string(fn) + ": expected eos_token_id in [0, " + std::to_string(V) + "), the model's vocabulary, got " +
                        std::to_string(options.eos_token_ids[i]));
        }
    }
    if (options.pad_token_id && *options.pad_token_id >= V) {
        throw Error(std::string(fn) + ": expected pad_token_id in [0, " + std::to_string(V) + "), the model's vocabulary, got " +
                    std::to_string(*options.pad_token_id));
    }
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
    finished_.assign(static_cast<size_t>(B), 0);
    unfinished_ = B;
}

std::vector<int64_t> GenerationSession::next() {
    if (done()) {
        throw Error(unfinished_ == 0 ? "generate: every row has produced a stop token"
                                     : "generate: all " + std::to_string(options_.max_new_tokens) + " new tokens have been produced");
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
    // Every row is sampled, finished or not (the same draws as transformers, which samples the whole batch), then
    // a finished row's token replaced: next_tokens * unfinished + pad_token_id * (1 - unfinished).
    std::vector<int64_t> next = sample_next(last, options_.sampling, *gen_);
    const std::vector<int64_t>& eos = options_.eos_token_ids;
    for (int64_t b = 0; b < B_; ++b) {
        int64_t& token = next[static_cast<size_t>(b)];
        char& finished = finished_[static_cast<size_t>(b)];
        if (finished) {
            token = options_.pad_token_id.value_or(eos.front());
        } else if (std::find(eos.begin(), eos.end(), token) != eos.end()) {
            finished = 1;  // EosTokenCriteria: the row's last token is a stop token
            --unfinished_;
        }
        rows_[static_cast<size_t>(b)].push_back(token);
    }
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
