// attn-train's command line: its commands and their flags, the parsing that refuses an unknown flag or a bad value
// by name, and the help that lists them. What each command does is attn_train.cpp's.
//
// Each command takes its own flags; `train` also takes every field of the model and training configs
// (config.hpp) and `generate` every generation option (generate.hpp) as --kebab-case flags, a switch as --bias /
// --no-bias: those flags, their help and their limits come from the library's tables. Anything else is an error
// that names the flag and the nearest known one, never a silently ignored setting.
#pragma once

#include "attn/config.hpp"
#include "attn/error.hpp"
#include "attn/generate.hpp"

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace attn::cli {

// A mistake in the command line itself (as opposed to, say, a missing file).
struct UsageError : Error {
    using Error::Error;
};

struct Flag {
    const char* name;   // "--max-iters"
    const char* value;  // "N", "FILE", ...
    const char* help;
    const char* fallback = nullptr;  // the value when the flag is not given, as typed (help shows it)
};

// Which of the library's tables give a command flags too.
enum class Tables { None, Configs, Generation };

struct Command {
    const char* name;
    const char* summary;
    std::vector<Flag> flags;
    Tables tables = Tables::None;
};

const std::vector<Command>& commands();

// The defaults of `train`: nanoGPT's train_shakespeare_char at laptop size.
GPTConfig default_model();
// The defaults of `generate`: nanoGPT's sample.py's for a reader at a terminal.
GenerateOptions default_generation();

// A parsed command line.
struct Args {
    const Command* command = nullptr;
    std::map<std::string, std::string> values;                  // the command's own flags
    std::vector<std::pair<std::string, std::string>> model;     // config flags, in order
    std::vector<std::pair<std::string, std::string>> training;
    std::vector<std::pair<std::string, std::string>> generation;

    bool has(const std::string& k) const { return values.count(k) > 0; }
    std::string str(const std::string& k, const std::string& def = "") const {
        const auto it = values.find(k);
        return it == values.end() ? def : it->second;
    }
    // The flag's value, or its fallback in the command's table (or `def` where the table has none), an integer
    // of at least `min` (else a UsageError naming the flag).
    int64_t integer(const std::string& k, int64_t def = 0, int64_t min = 0) const;
};

// argv as a command and its flags; a UsageError names what is wrong.
Args parse(int argc, char** argv);
// `attn-train help`: every command and flag, with the tables' help and defaults.
std::string help_text();
// "0,100,250": the steps a comma-separated list names (empty: none).
std::set<int64_t> steps_of(const std::string& list, const char* flag);

}  // namespace attn::cli
