// Text generation with the language model (nanoGPT's GPT.generate): crop the
// context to the block size, take the last position's logits, sample, append,
// repeat. With the KV cache each step feeds only the new token; the logits
// equal a full recompute (tests hold them within 1e-5). Stop tokens end a row
// as transformers' GenerationMixin._sample ends it: the row's stop token is
// kept, the row is padded from then on while the others go on, and the whole
// generation ends when every row has stopped.
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
    // Stop tokens (transformers' eos_token_id): a row that produces one of them is finished; empty: none.
    std::vector<int64_t> eos_token_ids;
    // What a finished row gets while the others go on; unset: the first stop token (transformers pads with
    // pad_token_id, and takes eos_token_id[0] for it when the model has none).
    std::optional<int64_t> pad_token_id;

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

    // The next token of every row (B): a finished row's is the pad token. Throws Error once done().
    std::vector<int64_t> next();

    // max_new_tokens are out, or every row has produced a stop token.
    bool done() const { return produced_ >= options_.max_new_tokens || unfinished_ == 0; }
    // Whether row b has produced a stop token (and is padded from then on).
    bool finished(int64_t b) const { return finished_.at(static_cast<size_t>(b)) != 0; }
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
    std::vector<char> finished_;  // (B): 1 once the row produced a stop token
    int64_t unfinished_ = 0;      // rows not finished
};

// Runs a session to the end. on_token (optional) sees each step's tokens (B)
// and may return false to stop early. Returns (B, T0 + n) tokens, n at most
// max_new_tokens (fewer when every row stopped), finished rows padded.
std::vector<int64_t> generate(const GPT& model, const std::vector<int64_t>& prompt, int64_t B,
                              const GenerateOptions& options,
                              const std::function<bool(const std::vector<int64_t>&)>& on_token = {});

}  // namespace attn
