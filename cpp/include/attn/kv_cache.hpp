// What generation keeps for every token it has seen (generate.hpp's KV cache): in each layer, the token's key and
// value, kv_heads × head_size numbers each. Query heads that share a key/value head (grouped-query attention,
// Ainslie et al. 2023; multi-query when one head serves all) shrink it by n_head / kv_heads; a sliding-window
// layer (Mistral, Gemma 3's local layers) never keeps more than its window's tokens.
//
//   attn::kv_cache_numbers(config, 8192) * 2  // bytes at 8k tokens in 16-bit numbers
#pragma once

#include "attn/config.hpp"

#include <cstdint>

namespace attn {

// 2 · Σ over layers of kv_heads · head_size · (tokens, or at most sliding_window on a sliding layer). tokens ≥ 0.
int64_t kv_cache_numbers(const GPTConfig& c, int64_t tokens);

}  // namespace attn
