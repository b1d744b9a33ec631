// The one reader of safetensors files (https://huggingface.co/docs/safetensors): an 8-byte little-endian length
// n, n bytes of a JSON header naming each tensor's dtype, shape and byte range, then the data. Every model file
// this library reads is one: its own checkpoints (checkpoint.cpp) and Hugging Face weights (pretrained.cpp). What
// the format itself promises is checked here, once, for every entry, whether or not the caller will read it;
// each caller then holds the entries to its own table of names, dtypes and shapes.
#pragma once

#include "attn/checkpoint.hpp"
#include "attn/tensor.hpp"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace attn::safetensors {

// One tensor as the header lists it.
struct Entry {
    std::string name;
    std::string dtype;          // one of safetensors' dtypes: "F32", "BF16", "I64", …
    uint64_t element_size = 0;  // the dtype's bytes
    Shape shape;                // at most 8 sizes, each at most 2^31
    uint64_t begin = 0, end = 0;  // its bytes, counted from the start of the data section
};

struct Header {
    nlohmann::json json;                          // as parsed (a checkpoint's digest covers it)
    std::string text;                             // its bytes, without the spaces that pad it
    std::map<std::string, std::string> metadata;  // __metadata__: strings only, as the format defines it
    bool has_metadata = false;
    std::map<std::string, Entry> entries;         // by name
    uint64_t data_begin = 0, data_size = 0;       // where the data section starts in the file, and its bytes
};

// The header's length n from a file's first bytes (`available` of them, 8 needed) and the file's size, checked
// against kMaxHeaderBytes and the file: the header is bytes [8, 8 + n). `where` begins every Error
// ("loadCheckpoint: ", "loadPretrained: model.safetensors: ").
uint64_t header_length(const char* first, size_t available, uint64_t file_size, const std::string& where);

// The header's n bytes and the file's size, parsed within the JSON limits (json_limits.hpp): an object of at most
// kMaxTensors entries besides __metadata__ (an object of strings). Its entries are checked next, by check_entries
// (a checkpoint first checks its digest, which says more about a damaged file than the first bad entry would).
Header read_header(const std::string& text, uint64_t file_size, const std::string& where);
// Fills h.entries: each an object of a dtype the format defines, a shape, and data_offsets in the data section
// spanning exactly shape × dtype bytes; no two overlapping.
void check_entries(Header& h, const std::string& where);

// A file of `header` (entries and any __metadata__, as the caller built them) and its data section: the 8-byte
// length, the header's JSON padded with spaces to a multiple of 8 bytes (so that the data is aligned), the data.
std::string assemble(const nlohmann::json& header, const std::string& data);

}  // namespace attn::safetensors
