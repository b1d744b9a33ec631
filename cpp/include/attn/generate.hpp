// Text generation with the language model (nanoGPT's GPT.generate): crop the
// context to the block size, take the last position's logits, sample, append,
// repeat. With the KV cache each step feeds only the new token; the logits
// equal a full recompute (tests hold them within 1e-5).
#pragma once

#include "attn/gpt.hpp"
#include "attn/sampling.hpp"

#include <functional>
#include <optional>
#include <vector>

namespace attn {

// generate()'s settings. generate.cpp lists every field once with its limits
// and help, as config.cpp does for the configs: JSON (the JS API's options),
// the command line's flags and help, and every message about a field come
// from that one table.
struct GenerateOptions {
    int64_t max_new_tokens = 100;
    SamplingOptions sampling;
    // Sample from a generator seeded with this, i.e. as after
    // torch.manual_seed(seed) just before generate() (a negative seed wraps to
    // uint64 as in PyTorch); unset: the default generator.
    std::optional<int64_t> seed;
    bool use_kv_cache = true;

    // Throws Error naming the first field outside its limits as `naming` spells it.
    void validate(const char* fn = "generate", Naming naming = Naming::Snake) const;
};

// The table's functions, as config.hpp's for the configs. Reading takes any
// subset of the fields over `base` and refuses unknown names with the nearest
// known one.
std::string to_json(const GenerateOptions& options, Naming naming = Naming::Snake);
GenerateOptions generate_options_from_json(const std::string& json, Naming naming, const char* fn,
                                           const GenerateOptions& base = {});
void set_field(GenerateOptions& options, const std::string& name, const std::string& value, Naming naming,
               const char* fn);
std::vector<FieldInfo> fields(const GenerateOptions& options, Naming naming);

// One generation in progress: owns the tokens so far and the KV cache, and
// produces one token per batch row per call, so callers can stream.
class GenerationSession {
public:
    // prompt (B, T0) row-major, T0 >= 1. The model must outlive the session.
    GenerationSession(const GPT& model, std::vector<int64_t> prompt, int64_t B, const GenerateOptions& options);

    // The next token of every row (B). Throws Error once max_new_tokens are out.
    std::vector<int64_t> next();

    bool done() const { return produced_ >= options_.max_new_tokens; }
    int64_t batch() const { return B_; }
    int64_t length() const { return static_cast<int64_t>(rows_[0].size()); }
    // Every token so far, (B, length()) row-major.
    std::vector<int64_t> tokens() const;

private:
    const GPT& model_;
    int64_t B_;
    GenerateOptions options_;
    Generator own_;
    Generator* gen_;
    std::vector<std::vector<int64_t>> rows_;  // (B) token lists
    KVCache cache_;
    int64_t cache_start_ = 0;  // absolute position of the cache's first token
    int64_t produced_ = 0;
};

// Runs a session to the end. on_token (optional) sees each step's tokens (B)
// and may return false to stop early. Returns (B, T0 + n) tokens.
std::vector<int64_t> generate(const GPT& model, const std::vector<int64_t>& prompt, int64_t B,
                              const GenerateOptions& options,
                              const std::function<bool(const std::vector<int64_t>&)>& on_token = {});

}  // namespace attn
