#include "attn/pretrained.hpp"

#include "attn/checkpoint.hpp"
#include "hf_formats.hpp"
#include "json_limits.hpp"
#include "safetensors.hpp"
#include "tokenizer_json.hpp"
#include "thread_pool.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>

#include <nlohmann/json.hpp>

namespace attn {

namespace {
using json = nlohmann::json;

[[noreturn]] void fail(const std::string& what) { throw FormatError("loadPretrained: " + what); }

uint64_t dtype_size(Dtype d) { return d == Dtype::F32 ? 4 : 2; }

// n elements of dtype d at p, as floats.
void convert(const char* p, Dtype d, int64_t n, float* out) {
    if (d == Dtype::F32) {
        std::memcpy(out, p, static_cast<size_t>(n) * 4);
        return;
    }
    for (int64_t k = 0; k < n; ++k) {
        uint16_t h;
        std::memcpy(&h, p + 2 * k, 2);
        out[k] = widen(h, d == Dtype::F16 ? Half::F16 : Half::BF16);
    }
}

// Elements converted, checked and stored at a time: a piece stays in L1 between its conversion and its store.
constexpr int64_t kPiece = 1024;

std::string shape_text(const Shape& s) {
    std::string out = "[";
    for (size_t i = 0; i < s.size(); ++i) out += (i ? ", " : "") + std::to_string(s[i]);
    return out + "]";
}

// Every file's entries held to the family's table (hf_formats.hpp): each one a tensor of this config, once across
// the files, in F32, F16 or BF16, of the shape the table gives; none missing. Tensors the engine does not read
// (buffers, a tied lm_head, a vision tower) are left unread, after the reader has checked them like the rest. The
// tensors to read, file by file, each file's in order.
std::vector<PretrainedTensor> check_headers(const hf::Format& format, const std::vector<SafetensorsHeader>& files,
                                           const std::string& index_json) {
    std::map<std::string, std::string> found;  // canonical name -> where it was found
    std::vector<PretrainedTensor> out;
    std::map<std::string, std::string> held;   // every entry of every file -> its file, for the index's check
    for (size_t f = 0; f < files.size(); ++f) {
        const std::string file = files[f].name;
        safetensors::Header h = safetensors::read_header(files[f].header, files[f].size, "loadPretrained: " + file + ": ");
        safetensors::check_entries(h, "loadPretrained: " + file + ": ");
        std::vector<PretrainedTensor> in_file;
        for (const auto& [name, e] : h.entries) {
            held.emplace(name, file);
            const std::string where = file + ": tensor \"" + name.substr(0, 80) + "\"";
            const std::string canonical = format.canonical(name);
            if (canonical.empty()) continue;
            const auto want = format.tensors.find(canonical);
            if (want == format.tensors.end()) {
                fail(where + " is not a parameter of a " + (format.model_type == "gpt2" ? "GPT-2" : format.model_type) + " model of this config.json");
            }
            const std::string here = "\"" + name + "\" in " + file;
            if (!found.emplace(canonical, here).second) fail(where + " is listed twice (as " + found[canonical] + " too)");
            const hf::Target& target = want->second;
            PretrainedTensor t;
            t.name = name;
            t.parameter = target.parameter;
            t.file = f;
            if (e.dtype == "F32") t.dtype = Dtype::F32;
            else if (e.dtype == "F16") t.dtype = Dtype::F16;
            else if (e.dtype == "BF16") t.dtype = Dtype::BF16;
            else fail(where + " has dtype \"" + e.dtype + "\", expected F32, F16 or BF16");
            t.shape = e.shape;
            t.transposed = target.transposed;
            t.offset = target.offset;
            if (t.shape != target.stored) {
                fail(where + " has shape " + shape_text(t.shape) + ", but config.json means " + shape_text(target.stored) +
                     (t.transposed ? " (Conv1D: in, out)" : ""));
            }
            t.begin = h.data_begin + e.begin;
            t.end = h.data_begin + e.end;
            in_file.push_back(std::move(t));
        }
        std::sort(in_file.begin(), in_file.end(), [](const PretrainedTensor& a, const PretrainedTensor& b) { return a.begin < b.begin; });
        out.insert(out.end(), std::make_move_iterator(in_file.begin()), std::make_move_iterator(in_file.end()));
    }
    // The index's map from tensors to shards agrees with the shards: a shard that lost a tensor, or an index from
    // another download, is named here rather than as a parameter found missing.
    if (!index_json.empty()) {
        const json index = parse_bounded(index_json, "loadPretrained: model.safetensors.index.json");  // (shard_files checked it)
        for (const auto& [tensor, file] : index["weight_map"].items()) {
            const auto it = held.find(tensor);
            if (it == held.end() || it->second != file.get<std::string>()) {
                fail("model.safetensors.index.json puts tensor \"" + tensor.substr(0, 80) + "\" in " + file.get<std::string>() + ", but " +
                     (it == held.end() ? "no shard holds it" : it->second + " holds it"));
            }
        }
    }
    for (const auto& [name, target] : format.tensors) {
        if (!found.count(name)) {
            fail((files.size() == 1 ? files[0].name : "the model's " + std::to_string(files.size()) + " safetensors files") + " ha" +
                 (files.size() == 1 ? "s" : "ve") + " no tensor \"" + name + "\"" +
                 (format.model_type == "gpt2" ? " (nor without \"transformer.\")" : " (nor under \"model.\")"));
        }
    }
    return out;
}
}  // namespace

uint64_t PretrainedLoader::header_length(const std::string& first, uint64_t file_size, const std::string& file) {
    return safetensors::header_length(first.data(), first.size(), file_size, "loadPretrained: " + file + ": ");
}

std::vector<std::string> PretrainedLoader::shard_files(const std::string& index_json) {
    const json j = parse_bounded(index_json, "loadPretrained: model.safetensors.index.json");
    if (j.is_discarded() || !j.is_object() || !j.contains("weight_map") || !j["weight_map"].is_object()) {
        fail("model.safetensors.index.json has no weight_map object {\"tensor\": \"file\"}");
    }
    std::vector<std::string> out;
    for (const auto& [tensor, file] : j["weight_map"].items()) {
        // A shard is a file of this folder: a name with a path in it would read outside the folder.
        if (!file.is_string() || file.get<std::string>().empty() || file.get<std::string>().find_first_of("/\\") != std::string::npos ||
            file.get<std::string>()[0] == '.') {
            fail("model.safetensors.index.json: weight_map[\"" + tensor.substr(0, 80) + "\"] is " + file.dump().substr(0, 80) +
                 ", expected the name of a file in the model folder");
        }
        if (std::find(out.begin(), out.end(), file.get<std::string>()) == out.end()) out.push_back(file.get<std::string>());
    }
    if (out.empty()) fail("model.safetensors.index.json's weight_map lists no tensors");
    return out;
}

namespace {
std::vector<PretrainedTensor> checked(const hf::Format& format, const std::vector<SafetensorsHeader>& files,
                                     const std::string& index_json) {
    if (files.empty()) fail("no safetensors file was given");
    if (!index_json.empty()) {
        // The files are the ones the index names, each once.
        const std::vector<std::string> shards = PretrainedLoader::shard_files(index_json);
        std::vector<std::string> given;
        for (const SafetensorsHeader& f : files) given.push_back(f.name);
        if (given != shards) {
            const auto list = [](const std::vector<std::string>& names) {
                std::string out;
                for (const std::string& n : names) out += (out.empty() ? "" : ", ") + n;
                return out;
            };
            fail("model.safetensors.index.json lists the shards " + list(shards) + "; the files given are " + list(given));
        }
    }
    return check_headers(format, files, index_json);
}
}  // namespace

// (config.json is read twice, for the config and for the table: a few kilobytes, before anything is allocated.)
namespace {
std::vector<std::string> names_of(const std::vector<SafetensorsHeader>& files) {
    std::vector<std::string> out;
    for (const SafetensorsHeader& f : files) out.push_back(f.name);
    return out;
}

// The format each weight matrix keeps: its tensors' dtype, which they must share (an Error names two that do not).
// Float16 and bfloat16 stay 16-bit: widening is exact, so the model computes what float32 weights would, in half
// the memory.
std::function<Half(const std::string&)> half_formats(const std::vector<PretrainedTensor>& tensors,
                                                    const std::vector<std::string>& files) {
    static const char* const kDtypes[] = {"F32", "F16", "BF16"};
    std::map<std::string, const PretrainedTensor*> first_of;  // the first tensor filling each parameter
    std::map<std::string, Half> kinds;
    for (const PretrainedTensor& t : tensors) {
        const auto [it, first] = first_of.emplace(t.parameter, &t);
        if (!first && it->second->dtype != t.dtype) {
            const PretrainedTensor& a = *it->second;
            fail("tensors \"" + a.name + "\" (" + kDtypes[static_cast<int>(a.dtype)] + ", in " + files[a.file] + ") and \"" + t.name +
                 "\" (" + kDtypes[static_cast<int>(t.dtype)] + ", in " + files[t.file] + ") fill one matrix, " + t.parameter +
                 ": expected one dtype");
        }
        kinds.emplace(t.parameter, t.dtype == Dtype::F16 ? Half::F16 : t.dtype == Dtype::BF16 ? Half::BF16 : Half::None);
    }
    return [kinds](const std::string& parameter) {
        // The position table stays float32: the embedding step reads it row by row with the token embeddings.
        const auto it = kinds.find(parameter);
        return it == kinds.end() || parameter == "transformer.wpe.weight" ? Half::None : it->second;
    };
}
}  // namespace

PretrainedLoader::PretrainedLoader(const std::string& config_json, const std::vector<SafetensorsHeader>& files,
                                   const std::string& index_json)
    : config_(hf::format_from_config(config_json).config),
      tensors_(checked(hf::format_from_config(config_json), files, index_json)),
      done_(tensors_.size(), 0),
      file_names_(names_of(files)),
      model_(GPT::zeros(config_, half_formats(tensors_, file_names_))) {
    std::map<std::string, Tensor*> by_name;
    for (auto& [name, t] : model_.named_parameters()) by_name.emplace(name, t);
    for (const PretrainedTensor& t : tensors_) target_.push_back(by_name.at(t.parameter));
}

void PretrainedLoader::read(size_t i, uint64_t offset, const char* bytes, size_t size) {
    if (i >= tensors_.size()) fail("no tensor " + std::to_string(i) + " (the file has " + std::to_string(tensors_.size()) + ")");
    const PretrainedTensor& t = tensors_[i];
    const uint64_t elem = dtype_size(t.dtype), length = t.end - t.begin;
    if (offset != done_[i] || size % elem != 0 || offset + size > length) {
        fail(file_names_[t.file] + ": tensor \"" + t.name + "\" expected its bytes from " + std::to_string(done_[i]) +
             " in whole elements, got " + std::to_string(size) + " bytes at " + std::to_string(offset));
    }
    Tensor& target = *target_[i];
    float* dst = target.is_half() ? nullptr : target.data.data() + t.offset;
    uint16_t* dst16 = target.is_half() ? target.half.data() + t.offset : nullptr;  // kept as the file holds it
    const auto first = static_cast<int64_t>(offset / elem), count = static_cast<int64_t>(size / elem);
    const int64_t out_features = t.transposed ? t.shape[1] : 0, in_features = t.transposed ? t.shape[0] : 0;
    // Pieces of the range, spread over the library's threads; each notes its first non-finite element, so
    // that the one reported is the file's first whatever the thread count.
    const int64_t pieces = (count + kPiece - 1) / kPiece;
    std::vector<int64_t> bad(static_cast<size_t>(pieces), -1);
    parallel_for(pieces, [&](int64_t piece) {
        const int64_t begin = first + piece * kPiece, n = std::min(kPiece, first + count - begin);
        const char* from = bytes + (begin - first) * static_cast<int64_t>(elem);
        if (dst16) {
            thread_local std::vector<uint16_t> raw;
            raw.resize(static_cast<size_t>(n));
            std::memcpy(raw.data(), from, static_cast<size_t>(n) * 2);
            for (int64_t k = 0; k < n; ++k) {
                if (!std::isfinite(widen(raw[static_cast<size_t>(k)], target.half_kind))) {
                    bad[static_cast<size_t>(piece)] = begin + k;
                    break;
                }
            }
            for (int64_t k = 0; k < n; ++k) {
                const int64_t at = begin + k;  // stored (in, out) when transposed: element (r, c) goes to (c, r)
                dst16[t.transposed ? (at % out_features) * in_features + at / out_features : at] = raw[static_cast<size_t>(k)];
            }
            return;
        }
        thread_local std::vector<float> values;  // a transposed piece's, before they are scattered
        if (t.transposed) values.resize(static_cast<size_t>(kPiece));
        float* out = t.transposed ? values.data() : dst + begin;
        convert(from, t.dtype, n, out);
        const int64_t at = first_non_finite(out, n);
        if (at >= 0) bad[static_cast<size_t>(piece)] = begin + at;
        if (!t.transposed) return;
        // Stored (in, out), kept (out, in): element (r, c) of the file goes to dst[c][r].
        int64_t r = begin / out_features, c = begin % out_features;
        for (int64_t k = 0; k < n; ++k) {
            dst[c * in_features + r] = values[static_cast<size_t>(k)];
            if (++c == out_features) {
                c = 0;
                ++r;
            }
        }
    }, grain_for_work(kMovedFloatWork * kPiece));
    for (const int64_t flat : bad) {
        if (flat >= 0) fail(file_names_[t.file] + ": tensor \"" + t.name + "\" holds a non-finite value at element " + std::to_string(flat));
    }
    done_[i] += size;
}

GPT PretrainedLoader::finish() {
    for (size_t i = 0; i < tensors_.size(); ++i) {
        if (done_[i] != tensors_[i].end - tensors_[i].begin) {
            fail(file_names_[tensors_[i].file] + ": tensor \"" + tensors_[i].name + "\" was read " + std::to_string(done_[i]) + " of " +
                 std::to_string(tensors_[i].end - tensors_[i].begin) + " bytes");
        }
    }
    return std::move(model_);
}

}  // namespace attn

namespace attn {

namespace {
TokenizerJson parse_tokenizer_json(const std::string& text) {
    return read_tokenizer_json(text, "loadPretrained: tokenizer.json");
}

std::optional<std::string> character_vocabulary(const TokenizerJson& parsed) {
    const json& j = parsed.value;
    if (!j.is_object() || !j.contains("model") || !j["model"].is_object() || j["model"].value("type", json()) != "WordLevel") {
        return std::nullopt;
    }
    if (!parsed.has_vocab) fail("tokenizer.json: model.vocab must be an object {\"piece\": id}");
    std::vector<std::string> chars(parsed.vocab.size());
    for (const auto& [at, id] : parsed.vocab) {
        const std::string piece(parsed.view(at));
        bool one_character = false;
        try {
            one_character = utf8_decode(piece, "loadPretrained: tokenizer.json").size() == 1;
        } catch (const Error&) {
        }
        if (!one_character || id >= chars.size() || !chars[static_cast<size_t>(id)].empty()) {
            fail("tokenizer.json is a WordLevel vocabulary but not one of single characters with ids 0 to " + std::to_string(chars.size() - 1) +
                 " (at " + json(piece).dump() + ": " + std::to_string(id) + "); this library reads character-level and BPE tokenizers");
        }
        chars[static_cast<size_t>(id)] = piece;
    }
    std::string out;
    for (const std::string& c : chars) out += c;
    return out;
}
}  // namespace

std::optional<std::string> character_vocabulary(const std::string& tokenizer_json) {
    return character_vocabulary(parse_tokenizer_json(tokenizer_json));
}

std::string pretrained_weights_file(const GPT& model, const std::string& config_json) {
    const hf::Format format = hf::format_from_config(config_json);
    if (GPT::parameter_layout(format.config) != GPT::parameter_layout(model.config())) {
        throw Error("loadPretrained: config.json describes a model of other shapes than the one to save");
    }
    std::map<std::string, const Tensor*> parameters;
    for (const auto& [name, t] : model.named_parameters()) parameters.emplace(name, t);
    json header = json::object();
    std::string data;
    for (const auto& [canonical, target] : format.tensors) {
        const Tensor& p = *parameters.at(target.parameter);
        const std::vector<float> values = float_values(p);
        const int64_t n = numel(target.stored);
        std::vector<float> stored(static_cast<size_t>(n));
        if (target.transposed) {  // stored (in, out), kept (out, in)
            const int64_t rows = target.stored[0], cols = target.stored[1];
            for (int64_t i = 0; i < rows; ++i)
                for (int64_t j = 0; j < cols; ++j) stored[static_cast<size_t>(i * cols + j)] = values[static_cast<size_t>(j * rows + i)];
        } else {
            std::copy_n(values.begin() + target.offset, n, stored.begin());
        }
        // The names a family's own save_pretrained writes: the decoder's under "model.", lm_head beside it.
        const std::string name = format.model_type == "gpt2" || canonical == "lm_head.weight" ? canonical : "model." + canonical;
        if (first_non_finite(stored.data(), n) >= 0) throw Error("loadPretrained: tensor \"" + name + "\" holds a non-finite value; it cannot be saved");
        const uint64_t offset = data.size(), bytes = static_cast<uint64_t>(n) * 4;
        header[name] = {{"dtype", "F32"}, {"shape", target.stored}, {"data_offsets", {offset, offset + bytes}}};
        data.append(reinterpret_cast<const char*>(stored.data()), bytes);
    }
    header["__metadata__"] = {{"format", "pt"}};
    return safetensors::assemble(header, data);
}

std::variant<BPETokenizer, Tokenizer> pretrained_tokenizer(const PretrainedTokenizerFiles& files) {
    const std::string config = files.tokenizer_config_json.value_or("");
    if (files.tokenizer_json) {
        const TokenizerJson parsed = parse_tokenizer_json(*files.tokenizer_json);  // once, for both readers
        if (const std::optional<std::string> chars = character_vocabulary(parsed)) {
            return Tokenizer::from_vocabulary(TokenizerKind::Char, *chars, "loadPretrained: tokenizer.json");
        }
        return BPETokenizer::from_tokenizer_json(parsed, config);
    }
    if (files.vocab_json && files.merges_txt) return BPETokenizer::from_files(*files.vocab_json, *files.merges_txt, config);
    fail("no tokenizer was given: expected tokenizer.json, or vocab.json and merges.txt");
}

namespace {
// A model folder's files, however they are held: what load_pretrained needs of them.
struct Files {
    std::vector<std::string> names;                            // sorted
    std::function<uint64_t(const std::string&)> size;
    std::function<void(const std::string&, uint64_t, char*, size_t)> read;  // name, offset, out, bytes

    bool has(const std::string& name) const { return std::binary_search(names.begin(), names.end(), name); }
    std::string text(const std::string& name) const {
        std::string out(static_cast<size_t>(size(name)), '\0');
        read(name, 0, out.data(), out.size());
        return out;
    }
    std::string listing() const {
        std::string out;
        for (const std::string& n : names) out += (out.empty() ? "" : ", ") + n;
        return out.empty() ? "no files" : out;
    }
};

// Bytes read from the weights file, and handed to the loader, at a time: small next to a model.
constexpr uint64_t kChunkBytes = uint64_t{16} << 20;

Pretrained load(const Files& files) {
    const auto need = [&](const std::string& name, const char* why) {
        if (!files.has(name)) fail("the model folder has no " + name + " (" + why + "); it holds " + files.listing());
    };
    need("config.json", "the model's shape");
    const std::string config = files.text("config.json");
    pretrained_config_from_json(config);  // checked before anything is read further
    PretrainedTokenizerFiles tokenizer_files;
    if (files.has("tokenizer.json")) {
        tokenizer_files.tokenizer_json = files.text("tokenizer.json");
    } else if (files.has("vocab.json") && files.has("merges.txt")) {
        tokenizer_files.vocab_json = files.text("vocab.json");
        tokenizer_files.merges_txt = files.text("merges.txt");
    } else {
        fail("the model folder has no tokenizer: expected tokenizer.json, or vocab.json and merges.txt; it holds " + files.listing());
    }
    if (files.has("tokenizer_config.json")) tokenizer_files.tokenizer_config_json = files.text("tokenizer_config.json");
    std::variant<BPETokenizer, Tokenizer> tokenizer = pretrained_tokenizer(tokenizer_files);
    if (!files.has("model.safetensors") && files.has("pytorch_model.bin")) {
        fail("the model folder has pytorch_model.bin but no model.safetensors; this library reads safetensors (convert with "
             "transformers: model.save_pretrained(folder, safe_serialization=True))");
    }
    // One file, or the shards an index lists (from_pretrained's model.safetensors.index.json).
    std::vector<std::string> weight_files;
    if (files.has("model.safetensors")) {
        weight_files = {"model.safetensors"};
    } else if (files.has("model.safetensors.index.json")) {
        weight_files = PretrainedLoader::shard_files(files.text("model.safetensors.index.json"));
        for (const std::string& shard : weight_files) {
            if (!files.has(shard)) fail("model.safetensors.index.json lists " + shard + ", which the model folder does not hold; it holds " + files.listing());
        }
    } else {
        need("model.safetensors", "the weights, or model.safetensors.index.json and its shards");
    }
    std::vector<SafetensorsHeader> headers;
    for (const std::string& name : weight_files) {
        const uint64_t file_size = files.size(name);
        std::string first(static_cast<size_t>(std::min<uint64_t>(8, file_size)), '\0');
        files.read(name, 0, first.data(), first.size());
        std::string header(static_cast<size_t>(PretrainedLoader::header_length(first, file_size, name)), '\0');
        files.read(name, 8, header.data(), header.size());
        headers.push_back({name, std::move(header), file_size});
    }
    PretrainedLoader loader(config, headers, files.has("model.safetensors") ? "" : files.text("model.safetensors.index.json"));
    std::string chunk;
    for (size_t i = 0; i < loader.tensors().size(); ++i) {
        const PretrainedTensor& t = loader.tensors()[i];
        for (uint64_t at = t.begin; at < t.end; at += kChunkBytes) {
            chunk.resize(static_cast<size_t>(std::min(kChunkBytes, t.end - at)));
            files.read(weight_files[t.file], at, chunk.data(), chunk.size());
            loader.read(i, at - t.begin, chunk.data(), chunk.size());
        }
    }
    return Pretrained{loader.finish(), std::move(tokenizer)};
}
}  // namespace

Pretrained load_pretrained(const std::map<std::string, std::string>& bytes) {
    Files files;
    for (const auto& [name, content] : bytes) files.names.push_back(name);
    files.size = [&](const std::string& name) { return static_cast<uint64_t>(bytes.at(name).size()); };
    files.read = [&](const std::string& name, uint64_t offset, char* out, size_t n) {
        const std::string& b = bytes.at(name);
        if (offset > b.size() || n > b.size() - offset) fail(name + " ends at " + std::to_string(b.size()) + " bytes");
        std::memcpy(out, b.data() + offset, n);
    };
    return load(files);
}

Pretrained load_pretrained(const std::string& folder) {
    namespace fs = std::filesystem;
    std::error_code error;
    Files files;
    for (fs::directory_iterator it(folder, error), end; !error && it != end; it.increment(error)) {
        files.names.push_back(it->path().filename().string());
    }
    if (error) fail("could not read the model folder " + folder + ": " + error.message());
    std::sort(files.names.begin(), files.names.end());
    files.size = [&](const std::string& name) {
        const fs::path path = fs::path(folder) / name;
        // Only a regular file is read: a FIFO in its place would wait for a writer forever.
        if (!fs::is_regular_file(path, error)) fail("could not read " + path.string() + ": expected a regular file");
        const uintmax_t size = fs::file_size(path, error);
        if (error) fail("could not read " + path.string() + ": " + error.message());
        return static_cast<uint64_t>(size);
    };
    files.read = [&](const std::string& name, uint64_t offset, char* out, size_t n) {
        const fs::path path = fs::path(folder) / name;
        files.size(name);
        std::ifstream in(path, std::ios::binary);
        in.seekg(static_cast<std::streamoff>(offset));
        if (!in || !in.read(out, static_cast<std::streamsize>(n))) {
            fail("could not read " + std::to_string(n) + " bytes at " + std::to_string(offset) + " of " + path.string() + " (it changed while it was read?)");
        }
    };
    return load(files);
}

}  // namespace attn
