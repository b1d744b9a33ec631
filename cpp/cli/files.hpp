// attn-train's files: a text read whole, and a checkpoint written so that a save can never destroy what it
// replaces (files.cpp says how); and the checks that let `train` refuse a path before it does any work, not
// when it saves. Errors are attn::Error naming the path and what it is.
#pragma once

#include <cstdint>
#include <string>

namespace attn::cli {

// A regular file's bytes (a FIFO, a directory or a device is refused, never waited on), refused by its size before
// it is read when it holds more than max_bytes.
std::string read_file(const std::string& path, uint64_t max_bytes, const char* flag);
void write_file(const std::string& path, const std::string& bytes);

// That write_file(path) can succeed: nothing at `path` but a regular file, in an existing directory this process
// may write to.
void check_writable(const std::string& path, const char* flag);
// That `dir` is a directory this process may write to.
void check_directory(const std::string& dir, const char* flag);
// Whether two paths name the same existing file.
bool same_file(const std::string& a, const std::string& b);

}  // namespace attn::cli
