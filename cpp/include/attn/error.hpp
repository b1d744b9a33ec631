// What every refused call throws.
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

namespace attn {

// Thrown for every misuse of a public function: wrong shapes, non-finite
// values, bad options. The message names the function, what it expected and
// what it was given, e.g. "SelfAttentionV1.forward: expected x of shape
// [T, 3], got [6, 4]".
class Error : public std::invalid_argument {
public:
    using std::invalid_argument::invalid_argument;
};

// Thrown when the contents of a file are refused: not the format it claims,
// truncated, damaged, inconsistent with itself, or beyond a limit (safetensors,
// checkpoints, config.json, tokenizer files). A kind of Error, so that whoever
// catches Error catches it too; the JS bindings give it its own code
// (ERR_ATTN_INVALID_FILE, docs/errors.md), so an app can tell "this file is
// bad" from "this call was wrong".
class FormatError : public Error {
public:
    using Error::Error;
};

// The known name closest to `name`: the one spelled alike but for case, '_' and '-' (top_p → topP), else the
// nearest by edit distance, or "" when none is close: what an error about an unknown name suggests instead.
std::string nearest_name(const std::string& name, const std::vector<std::string>& known);

}  // namespace attn
