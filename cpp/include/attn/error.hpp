// What every refused call throws.
#pragma once

#include <stdexcept>

namespace attn {

// Thrown for every misuse of a public function: wrong shapes, non-finite
// values, bad options. The message names the function, what it expected and
// what it was given, e.g. "SelfAttentionV1.forward: expected x of shape
// [T, 3], got [6, 4]".
class Error : public std::invalid_argument {
public:
    using std::invalid_argument::invalid_argument;
};

}  // namespace attn
