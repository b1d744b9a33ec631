#include "safetensors.hpp"

#include "json_limits.hpp"

#include <algorithm>

namespace attn::safetensors {

namespace {
// The bytes of one element of each dtype the format defines, or 0 for a name that is not one.
uint64_t dtype_size(const std::string& dtype) {
    static const std::map<std::string, uint64_t> kSizes = {
        {"BOOL", 1}, {"U8", 1}, {"I8", 1}, {"F8_E5M2", 1}, {"F8_E4M3", 1}, {"I16", 2}, {"U16", 2}, {"F16", 2},
        {"BF16", 2}, {"I32", 4}, {"U32", 4}, {"F32", 4}, {"I64", 8}, {"U64", 8}, {"F64", 8}};
    const auto it = kSizes.find(dtype);
    return it == kSizes.end() ? 0 : it->second;
}
}  // namespace

uint64_t header_length(const char* first, size_t available, uint64_t file_size, const std::string& where) {
    if (available < 8 || file_size < 8) {
        throw FormatError(where + "a file of " + std::to_string(file_size) + " bytes is too short for a safetensors header");
    }
    uint64_t n = 0;
    for (int i = 7; i >= 0; --i) n = (n << 8) | static_cast<unsigned char>(first[i]);
    if (n > file_size - 8) {
        throw FormatError(where + "the header length " + std::to_string(n) + " exceeds the file's " + std::to_string(file_size - 8) +
                    " bytes after the length field (truncated or not a safetensors file)");
    }
    if (n > kMaxHeaderBytes) {
        throw FormatError(where + "a header of " + std::to_string(n) + " bytes is larger than the limit of " +
                    std::to_string(kMaxHeaderBytes >> 20) + " MiB");
    }
    return n;
}

Header read_header(const std::string& text, uint64_t file_size, const std::string& where) {
    Header h;
    h.json = parse_bounded(text, where + "the header");
    if (h.json.is_discarded()) throw FormatError(where + "the header is not valid JSON");
    if (!h.json.is_object()) throw FormatError(where + "the header must be a JSON object");
    h.text = text.substr(0, text.find_last_not_of(' ') + 1);
    h.data_begin = 8 + text.size();
    h.data_size = file_size - h.data_begin;
    if (static_cast<int64_t>(h.json.size()) > kMaxTensors + 1) {  // + 1: __metadata__
        throw FormatError(where + "the header lists " + std::to_string(h.json.size()) + " entries, more than the limit of " +
                    std::to_string(kMaxTensors) + " tensors");
    }
    if (h.json.contains("__metadata__")) {
        const nlohmann::json& meta = h.json["__metadata__"];
        if (!meta.is_object()) throw FormatError(where + "__metadata__ must be an object of strings, as safetensors defines it");
        for (const auto& [key, value] : meta.items()) {
            if (!value.is_string()) throw FormatError(where + "__metadata__." + key.substr(0, 40) + " must be a string, as safetensors defines it");
            h.metadata[key] = value.get<std::string>();
        }
        h.has_metadata = true;
    }
    return h;
}

void check_entries(Header& h, const std::string& where) {
    std::vector<const Entry*> by_offset;
    for (const auto& [name, e] : h.json.items()) {
        if (name == "__metadata__") continue;
        const std::string tensor = "tensor \"" + name.substr(0, 80) + "\"";
        if (!e.is_object() || !e.contains("dtype") || !e["dtype"].is_string() || !e.contains("shape") || !e["shape"].is_array() ||
            !e.contains("data_offsets") || !e["data_offsets"].is_array() || e["data_offsets"].size() != 2 ||
            !e["data_offsets"][0].is_number_unsigned() || !e["data_offsets"][1].is_number_unsigned()) {
            throw FormatError(where + tensor + " must be an object with dtype, shape and data_offsets");
        }
        Entry entry;
        entry.name = name;
        entry.dtype = e["dtype"].get<std::string>();
        entry.element_size = dtype_size(entry.dtype);
        if (entry.element_size == 0) throw FormatError(where + tensor + " has dtype \"" + entry.dtype.substr(0, 20) + "\", which is not a safetensors dtype");
        uint64_t count = 1;
        for (const nlohmann::json& d : e["shape"]) {
            if (!d.is_number_unsigned() || d.get<uint64_t>() > (uint64_t{1} << 31) || entry.shape.size() == 8) {
                throw FormatError(where + tensor + " has an invalid shape " + e["shape"].dump().substr(0, 60));
            }
            // Saturating at 2^59 elements (at most 2^62 bytes): beyond any file, and refused by the bounds below.
            const uint64_t n = d.get<uint64_t>(), cap = uint64_t{1} << 59;
            count = n != 0 && count > cap / n ? cap : count * n;
            entry.shape.push_back(static_cast<int64_t>(n));
        }
        entry.begin = e["data_offsets"][0].get<uint64_t>();
        entry.end = e["data_offsets"][1].get<uint64_t>();
        const uint64_t bytes = count * entry.element_size;
        if (entry.begin > entry.end || entry.end > h.data_size || entry.end - entry.begin != bytes) {
            throw FormatError(where + tensor + " has data_offsets [" + std::to_string(entry.begin) + ", " + std::to_string(entry.end) + "] for " +
                        std::to_string(bytes) + " bytes of " + entry.dtype + " in a data section of " + std::to_string(h.data_size) +
                        " bytes (truncated or damaged)");
        }
        by_offset.push_back(&h.entries.emplace(name, std::move(entry)).first->second);
    }
    std::sort(by_offset.begin(), by_offset.end(), [](const Entry* a, const Entry* b) { return a->begin < b->begin; });
    for (size_t i = 1; i < by_offset.size(); ++i) {
        if (by_offset[i]->begin < by_offset[i - 1]->end) {
            throw FormatError(where + "tensors \"" + by_offset[i - 1]->name + "\" and \"" + by_offset[i]->name + "\" overlap");
        }
    }
}

std::string assemble(const nlohmann::json& header, const std::string& data) {
    std::string text = header.dump();
    text.append((8 - text.size() % 8) % 8, ' ');
    std::string out(8, '\0');
    const uint64_t n = text.size();
    for (int i = 0; i < 8; ++i) out[static_cast<size_t>(i)] = static_cast<char>((n >> (8 * i)) & 0xFF);
    out.reserve(out.size() + text.size() + data.size());
    out += text;
    out += data;
    return out;
}

}  // namespace attn::safetensors
