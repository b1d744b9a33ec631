#include "attn/kv_cache.hpp"

#include <algorithm>
#include <string>

namespace attn {

int64_t kv_cache_numbers(const GPTConfig& c, int64_t tokens) {
    if (tokens < 0) throw Error("kv_cache_numbers: expected tokens >= 0, got " + std::to_string(tokens));
    int64_t numbers = 0;
    for (int64_t layer = 0; layer < c.n_layer; ++layer) {
        const int64_t kept = c.sliding(layer) ? std::min(tokens, c.sliding_window) : tokens;
        numbers += 2 * c.kv_heads() * c.head_size() * kept;  // a key and a value per head per token kept
    }
    return numbers;
}

}  // namespace attn
