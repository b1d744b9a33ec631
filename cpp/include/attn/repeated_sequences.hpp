// Random token sequences in which one segment appears twice, at random places:
//
//   x y [A B C D] p q r [A B C D] s t      first = 2, second = 9, length = 4
//
// The task that induction heads form on (Olsson et al. 2022, "In-context Learning and Induction Heads";
// small reproductions train attention-only models on exactly this), and the sequences their scores are
// measured on (head_scores.hpp). Tokens outside the repeat are unpredictable, so a model can only lower its
// loss on the second copy, by finding the first one: attend to the token after the earlier occurrence of the
// current token and copy it.
//
// The repeat's length and both places are drawn per sequence. A repeat that always sat at the same offset
// (a sequence [A | A] of fixed halves) could be copied by position alone, with no previous-token head; drawn
// places leave the induction mechanism as the only way.
#pragma once

#include "attn/torch_rng.hpp"

#include <cstdint>
#include <vector>

namespace attn {

// One sequence's repeat: tokens [first, first + length) equal tokens [second, second + length).
struct Repeat {
    int64_t first = 0;
    int64_t second = 0;  // >= first + length: the copies do not overlap
    int64_t length = 0;
};

struct RepeatedSequences {
    int64_t B = 0, T = 0;
    std::vector<int64_t> ids;     // (B, T) token ids in [0, vocab_size)
    std::vector<Repeat> repeats;  // (B)
};

// The shortest sequence that holds a repeat of two tokens or more: lengths are drawn from
// repeat_lengths(T), and a repeat of one token has nothing to copy after its first token.
constexpr int64_t kMinRepeatedLength = 8;

// The repeat lengths drawn for sequences of T tokens: from ⌊T/4⌋ to ⌊T/3⌋ (12 to 16 at T = 48), so
// that both copies and the random tokens around them fit.
struct RepeatLengths {
    int64_t min = 0, max = 0;
};
RepeatLengths repeat_lengths(int64_t T);

// B sequences of T tokens drawn from gen, each in its order: T tokens uniform in [0, vocab_size) (torch.randint),
// then the length L in repeat_lengths(T), the first place in [0, T − 2L], the second in [first + L, T − L],
// and the first copy written over the second. Throws Error (naming fn) when T < kMinRepeatedLength,
// B < 1 or vocab_size < 2.
RepeatedSequences repeated_sequences(int64_t B, int64_t T, int64_t vocab_size, Generator& gen,
                                     const char* fn = "repeatedSequences");

}  // namespace attn
