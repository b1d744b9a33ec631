// attn-train's files: a text read whole, and a checkpoint written so that a save can never destroy what it
// replaces (files.cpp says how). Errors are attn::Error naming the path.
#pragma once

#include <string>

namespace attn::cli {

std::string read_file(const std::string& path);
void write_file(const std::string& path, const std::string& bytes);

}  // namespace attn::cli
