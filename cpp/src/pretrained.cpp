#include "attn/pretrained.hpp"

#include "attn/checkpoint.hpp"
#include "json_limits.hpp"
#include "safetensors.hpp"
#include "thread_pool.hpp"

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>

#include <nlohmann/json.hpp>

namespace attn {

namespace {
using json = nlohmann::json;

[[noreturn]] void fail(const std::string& what) { throw Error("loadPretrained: " + what); }

uint64_t dtype_size(Dtype d) { return d == Dtype::F32 ? 4 : 2; }

// IEEE half to float, exactly (every half is a float).
float half_to_float(uint16_t h) {
    const uint32_t sign = static_cast<uint32_t>(h & 0x8000) << 16;
    uint32_t exponent = (h >> 10) & 0x1F, mantissa = h & 0x3FF, bits;
    if (exponent == 0x1F) {
        bits = sign | 0x7F800000u | (mantissa << 13);  // Inf, NaN
    } else if (exponent != 0) {
        bits = sign | ((exponent + 112) << 23) | (mantissa << 13);
    } else if (mantissa == 0) {
        bits = sign;
    } else {  // subnormal: normalise
        exponent = 113;
        while (!(mantissa & 0x400)) {
            mantissa <<= 1;
            --exponent;
        }
        bits = sign | (exponent << 23) | ((mantissa & 0x3FF) << 13);
    }
    float f;
    std::memcpy(&f, &bits, 4);
    return f;
}

// n elements of dtype d at p, as floats.
void convert(const char* p, Dtype d, int64_t n, float* out) {
    if (d == Dtype::F32) {
        std::memcpy(out, p, static_cast<size_t>(n) * 4);
        return;
    }
    for (int64_t k = 0; k < n; ++k) {
        uint16_t h;
        std::memcpy(&h, p + 2 * k, 2);
        if (d == Dtype::F16) {
            out[k] = half_to_float(h);
        } else {
            const uint32_t bits = static_cast<uint32_t>(h) << 16;  // bfloat16 is a float's upper half
            std::memcpy(out + k, &bits, 4);
        }
    }
}

// Elements converted, checked and stored at a time: a piece stays in L1 between its conversion and its store.
constexpr int64_t kPiece = 1024;

// The weights GPT-2 keeps as Conv1D, (in, out): every other parameter has nn.Linear's or no orientation.
bool is_conv1d(const std::string& parameter) {
    static const char* const kSuffixes[] = {".attn.c_attn.weight", ".attn.c_proj.weight", ".mlp.c_fc.weight", ".mlp.c_proj.weight"};
    return std::any_of(std::begin(kSuffixes), std::end(kSuffixes), [&](const char* s) {
        const size_t n = std::strlen(s);
        return parameter.size() > n && parameter.compare(parameter.size() - n, n, s) == 0;
    });
}

bool ends_with(const std::string& s, const char* suffix) {
    const size_t n = std::strlen(suffix);
    return s.size() >= n && s.compare(s.size() - n, n, suffix) == 0;
}

std::string shape_text(const Shape& s) {
    std::string out = "[";
    for (size_t i = 0; i < s.size(); ++i) out += (i ? ", " : "") + std::to_string(s[i]);
    return out + "]";
}

// The reader's entries held to GPT-2's table: each one a parameter of this config (under GPT2LMHeadModel's names
// or GPT2Model's, which lack "transformer."), once, in F32, F16 or BF16, of the config's shape (Conv1D weights
// stored (in, out)); none missing. The causal-mask buffers and a tied lm_head are left unread, after the reader
// has checked them like the rest. The tensors to read, in file order.
std::vector<PretrainedTensor> check_header(const GPTConfig& config, const std::string& header, uint64_t file_size) {
    safetensors::Header h = safetensors::read_header(header, file_size, "loadPretrained: model.safetensors: ");
    safetensors::check_entries(h, "loadPretrained: model.safetensors: ");
    std::map<std::string, Shape> expected;
    for (auto& [name, shape] : GPT::parameter_layout(config)) expected.emplace(name, shape);
    std::map<std::string, std::string> found;  // parameter -> the file's name for it
    std::vector<PretrainedTensor> out;
    for (const auto& [name, e] : h.entries) {
        const std::string where = "model.safetensors: tensor \"" + name.substr(0, 80) + "\"";
        const std::string parameter = name.rfind("lm_head.", 0) == 0 || name.rfind("transformer.", 0) == 0 ? name : "transformer." + name;
        if (ends_with(parameter, ".attn.bias") || ends_with(parameter, ".attn.masked_bias")) continue;
        if (parameter == "lm_head.weight" && config.tie_embeddings) continue;  // the same as wte, which is read
        const auto want = expected.find(parameter);
        if (want == expected.end()) fail(where + " is not a parameter of a GPT-2 model of this config.json");
        if (!found.emplace(parameter, name).second) fail(where + " is listed twice (as \"" + found[parameter] + "\" too)");
        PretrainedTensor t;
        t.name = name;
        t.parameter = parameter;
        if (e.dtype == "F32") t.dtype = Dtype::F32;
        else if (e.dtype == "F16") t.dtype = Dtype::F16;
        else if (e.dtype == "BF16") t.dtype = Dtype::BF16;
        else fail(where + " has dtype \"" + e.dtype + "\", expected F32, F16 or BF16");
        t.shape = e.shape;
        t.transposed = is_conv1d(parameter);
        Shape stored = want->second;
        if (t.transposed) std::swap(stored[0], stored[1]);
        if (t.shape != stored) {
            fail(where + " has shape " + shape_text(t.shape) + ", but config.json means " + shape_text(stored) +
                 (t.transposed ? " (Conv1D: in, out)" : ""));
        }
        t.begin = h.data_begin + e.begin;
        t.end = h.data_begin + e.end;
        out.push_back(std::move(t));
    }
    for (const auto& [parameter, shape] : expected) {
        if (!found.count(parameter)) fail("model.safetensors has no tensor \"" + parameter + "\" (nor without \"transformer.\")");
    }
    std::sort(out.begin(), out.end(), [](const PretrainedTensor& a, const PretrainedTensor& b) { return a.begin < b.begin; });
    return out;
}
}  // namespace

GPTConfig gpt2_config_from_json(const std::string& text) {
    const json j = parse_bounded(text, "loadPretrained: config.json");
    if (j.is_discarded() || !j.is_object()) fail("config.json is not a JSON object");
    const auto refuse = [](const std::string& key, const json& value, const std::string& why) {
        fail("config.json: " + key + " is " + value.dump().substr(0, 60) + "; " + why);
    };
    const json model_type = j.value("model_type", json());
    if (model_type != "gpt2") {
        refuse("model_type", model_type, "this library reads GPT-2-family models (model_type \"gpt2\")");
    }
    const std::pair<const char*, bool> unsupported[] = {
        {"scale_attn_by_inverse_layer_idx", false}, {"reorder_and_upcast_attn", false}, {"add_cross_attention", false},
        {"scale_attn_weights", true}};
    for (const auto& [key, supported] : unsupported) {
        if (j.contains(key) && j[key] != supported) {
            refuse(key, j[key], std::string("this library computes GPT-2's attention with ") + key + " = " + (supported ? "true" : "false"));
        }
    }
    const auto integer = [&](const char* key, const json& fallback) -> int64_t {
        const json v = j.contains(key) && !j[key].is_null() ? j[key] : fallback;
        if (!v.is_number_unsigned() || v.get<uint64_t>() == 0 || v.get<uint64_t>() > (uint64_t{1} << 31)) {
            refuse(key, v, "expected a positive integer");
        }
        return v.get<int64_t>();
    };
    GPTConfig c;
    c.vocab_size = integer("vocab_size", json());
    c.n_embd = integer("n_embd", json());
    c.n_layer = integer("n_layer", json());
    c.n_head = integer("n_head", json());
    c.block_size = integer("n_positions", j.value("n_ctx", json()));
    c.n_inner = integer("n_inner", json(static_cast<uint64_t>(4 * c.n_embd)));  // null: 4 · n_embd
    const json activation = j.value("activation_function", json("gelu_new"));
    if (activation == "gelu_new" || activation == "gelu_pytorch_tanh") c.activation = Activation::GELUTanh;
    else if (activation == "gelu") c.activation = Activation::GELU;
    else if (activation == "relu") c.activation = Activation::ReLU;
    else refuse("activation_function", activation, "expected \"gelu_new\", \"gelu_pytorch_tanh\", \"gelu\" or \"relu\"");
    const json eps = j.value("layer_norm_epsilon", json(1e-5));
    if (!eps.is_number() || !(eps.get<double>() > 0) || eps.get<double>() >= 1) refuse("layer_norm_epsilon", eps, "expected a number in (0, 1)");
    c.layer_norm_epsilon = static_cast<float>(eps.get<double>());
    const json tie = j.value("tie_word_embeddings", json(true));
    if (!tie.is_boolean()) refuse("tie_word_embeddings", tie, "expected true or false");
    c.tie_embeddings = tie.get<bool>();
    c.norm = NormPlacement::Pre;
    c.attention_bias = c.bias = true;
    c.head_bias = false;
    c.init = InitScheme::GPT2;
    c.dropout = 0.0f;  // loaded for inference; GPT-2's *_pdrop are training settings
    c.validate("loadPretrained: config.json");
    return c;
}

uint64_t PretrainedLoader::header_length(const std::string& first, uint64_t file_size) {
    return safetensors::header_length(first.data(), first.size(), file_size, "loadPretrained: model.safetensors: ");
}

PretrainedLoader::PretrainedLoader(const std::string& config_json, const std::string& header, uint64_t file_size)
    : config_(gpt2_config_from_json(config_json)),
      tensors_(check_header(config_, header, file_size)),
      done_(tensors_.size(), 0),
      model_(GPT::zeros(config_)) {
    std::map<std::string, Tensor*> by_name;
    for (auto& [name, t] : model_.named_parameters()) by_name.emplace(name, t);
    for (const PretrainedTensor& t : tensors_) target_.push_back(by_name.at(t.parameter));
}

void PretrainedLoader::read(size_t i, uint64_t offset, const char* bytes, size_t size) {
    if (i >= tensors_.size()) fail("no tensor " + std::to_string(i) + " (the file has " + std::to_string(tensors_.size()) + ")");
    const PretrainedTensor& t = tensors_[i];
    const uint64_t elem = dtype_size(t.dtype), length = t.end - t.begin;
    if (offset != done_[i] || size % elem != 0 || offset + size > length) {
        fail("model.safetensors: tensor \"" + t.name + "\" expected its bytes from " + std::to_string(done_[i]) +
             " in whole elements, got " + std::to_string(size) + " bytes at " + std::to_string(offset));
    }
    float* dst = target_[i]->data.data();
    const auto first = static_cast<int64_t>(offset / elem), count = static_cast<int64_t>(size / elem);
    const int64_t out_features = t.transposed ? t.shape[1] : 0, in_features = t.transposed ? t.shape[0] : 0;
    // Pieces of the range, spread over the library's threads; each notes its first non-finite element, so
    // that the one reported is the file's first whatever the thread count.
    const int64_t pieces = (count + kPiece - 1) / kPiece;
    std::vector<int64_t> bad(static_cast<size_t>(pieces), -1);
    parallel_for(pieces, [&](int64_t piece) {
        const int64_t begin = first + piece * kPiece, n = std::min(kPiece, first + count - begin);
        const char* from = bytes + (begin - first) * static_cast<int64_t>(elem);
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
        if (flat >= 0) fail("model.safetensors: tensor \"" + t.name + "\" holds a non-finite value at element " + std::to_string(flat));
    }
    done_[i] += size;
}

GPT PretrainedLoader::finish() {
    for (size_t i = 0; i < tensors_.size(); ++i) {
        if (done_[i] != tensors_[i].end - tensors_[i].begin) {
            fail("model.safetensors: tensor \"" + tensors_[i].name + "\" was read " + std::to_string(done_[i]) + " of " +
                 std::to_string(tensors_[i].end - tensors_[i].begin) + " bytes");
        }
    }
    return std::move(model_);
}

}  // namespace attn

namespace attn {

std::optional<std::string> character_vocabulary(const std::string& tokenizer_json) {
    const json j = parse_bounded(tokenizer_json, "loadPretrained: tokenizer.json");
    if (j.is_discarded()) fail("tokenizer.json is not valid JSON");
    if (!j.is_object() || !j.contains("model") || !j["model"].is_object() || j["model"].value("type", json()) != "WordLevel") {
        return std::nullopt;
    }
    const json vocab = j["model"].value("vocab", json::object());
    if (!vocab.is_object()) fail("tokenizer.json: model.vocab must be an object {\"piece\": id}");
    std::vector<std::string> chars(vocab.size());
    for (const auto& [piece, id] : vocab.items()) {
        bool one_character = false;
        try {
            one_character = utf8_decode(piece, "loadPretrained: tokenizer.json").size() == 1;
        } catch (const Error&) {
        }
        if (!one_character || !id.is_number_unsigned() || id.get<uint64_t>() >= chars.size() || !chars[id.get<size_t>()].empty()) {
            fail("tokenizer.json is a WordLevel vocabulary but not one of single characters with ids 0 to " + std::to_string(vocab.size() - 1) +
                 " (at " + json(piece).dump() + ": " + id.dump().substr(0, 20) + "); this library reads character-level and GPT-2 BPE tokenizers");
        }
        chars[id.get<size_t>()] = piece;
    }
    std::string out;
    for (const std::string& c : chars) out += c;
    return out;
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
    const GPTConfig shape = gpt2_config_from_json(config);  // checked before anything is read further
    std::optional<std::variant<BPETokenizer, Tokenizer>> tokenizer;
    if (files.has("tokenizer.json")) {
        const std::string text = files.text("tokenizer.json");
        if (const std::optional<std::string> chars = character_vocabulary(text)) {
            tokenizer.emplace(Tokenizer::from_vocabulary(TokenizerKind::Char, *chars, "loadPretrained: tokenizer.json"));
        } else {
            tokenizer.emplace(BPETokenizer::from_tokenizer_json(text));
        }
    } else if (files.has("vocab.json") && files.has("merges.txt")) {
        tokenizer.emplace(BPETokenizer::from_files(files.text("vocab.json"), files.text("merges.txt")));
    } else {
        fail("the model folder has no tokenizer: expected tokenizer.json, or vocab.json and merges.txt; it holds " + files.listing());
    }
    const int64_t tokens = std::visit([](const auto& t) { return t.vocab_size(); }, *tokenizer);
    if (tokens > shape.vocab_size) {
        fail("the tokenizer has " + std::to_string(tokens) + " tokens, more than config.json's vocab_size " + std::to_string(shape.vocab_size));
    }
    if (!files.has("model.safetensors") && files.has("pytorch_model.bin")) {
        fail("the model folder has pytorch_model.bin but no model.safetensors; this library reads safetensors (convert with "
             "transformers: model.save_pretrained(folder, safe_serialization=True))");
    }
    need("model.safetensors", "the weights");
    const uint64_t file_size = files.size("model.safetensors");
    std::string first(static_cast<size_t>(std::min<uint64_t>(8, file_size)), '\0');
    files.read("model.safetensors", 0, first.data(), first.size());
    std::string header(static_cast<size_t>(PretrainedLoader::header_length(first, file_size)), '\0');
    files.read("model.safetensors", 8, header.data(), header.size());
    PretrainedLoader loader(config, header, file_size);
    std::string chunk;
    for (size_t i = 0; i < loader.tensors().size(); ++i) {
        const PretrainedTensor& t = loader.tensors()[i];
        for (uint64_t at = t.begin; at < t.end; at += kChunkBytes) {
            chunk.resize(static_cast<size_t>(std::min(kChunkBytes, t.end - at)));
            files.read("model.safetensors", at, chunk.data(), chunk.size());
            loader.read(i, at - t.begin, chunk.data(), chunk.size());
        }
    }
    return Pretrained{loader.finish(), std::move(*tokenizer)};
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
