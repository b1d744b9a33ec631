#include "attn/repeated_sequences.hpp"

#include "attn/error.hpp"
#include "attn/tensor.hpp"

#include <algorithm>
#include <string>

namespace attn {

RepeatLengths repeat_lengths(int64_t T) { return {T / 4, T / 3}; }

RepeatedSequences repeated_sequences(int64_t B, int64_t T, int64_t vocab_size, Generator& gen, const char* fn) {
    if (T < kMinRepeatedLength) {
        throw Error(std::string(fn) + ": expected sequences of at least " + std::to_string(kMinRepeatedLength) +
                    " tokens (a repeat of 2 tokens or more, twice, with room around it), got " + std::to_string(T));
    }
    if (B < 1) throw Error(std::string(fn) + ": expected at least 1 sequence, got " + std::to_string(B));
    // Checked before anything is drawn: the ids are allocated at once.
    if (B > kMaxElements / T) {
        throw Error(std::string(fn) + ": " + std::to_string(B) + " sequences of " + std::to_string(T) + " tokens exceed the " +
                    std::to_string(kMaxElements) + " elements a tensor may hold");
    }
    if (vocab_size < 2) {
        throw Error(std::string(fn) + ": expected a vocabulary of at least 2 tokens to draw from, got " +
                    std::to_string(vocab_size));
    }
    const RepeatLengths lengths = repeat_lengths(T);
    RepeatedSequences s;
    s.B = B;
    s.T = T;
    s.ids.reserve(static_cast<size_t>(B * T));
    for (int64_t b = 0; b < B; ++b) {
        const std::vector<int64_t> tokens = randint(0, vocab_size, {T}, gen);
        Repeat r;
        r.length = randint(lengths.min, lengths.max + 1, {1}, gen)[0];
        r.first = randint(0, T - 2 * r.length + 1, {1}, gen)[0];
        r.second = randint(r.first + r.length, T - r.length + 1, {1}, gen)[0];
        const size_t row = s.ids.size();
        s.ids.insert(s.ids.end(), tokens.begin(), tokens.end());
        std::copy_n(tokens.begin() + r.first, r.length, s.ids.begin() + static_cast<std::ptrdiff_t>(row) + r.second);
        s.repeats.push_back(r);
    }
    return s;
}

}  // namespace attn
