#include "attn/checkpoint.hpp"

#include "attn/tokenizer.hpp"
#include "json_limits.hpp"
#include "safetensors.hpp"

#include <nlohmann/json.hpp>
// xxHash as a header-only library (Debian's libxxhash-dev), so that the WASM
// build needs no library of the host's; its portable code path (0 = scalar)
// everywhere: checkpoints are small, and the digest is the same on every path.
#define XXH_INLINE_ALL
#define XXH_VECTOR 0
#include <xxhash.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>
#include <new>

namespace attn {

namespace {
using nlohmann::json;
constexpr const char* kFormat = "attention-step-by-step";

[[noreturn]] void fail(const std::string& what) { throw FormatError("loadCheckpoint: " + what); }

// parse_bounded under loadCheckpoint's name.
template <typename... Text>
json bounded(const Text&... text_and_what) {
    try {
        return parse_bounded(text_and_what...);
    } catch (const Error& e) {
        fail(e.what());
    }
}

// A config as __metadata__ holds it (a JSON string), read through the schema of
// config.hpp. Files written by version 0.1 spell two fields otherwise: the
// feed-forward width "d_ff" (now "n_inner", GPT-2's name) and "cosine" (now
// nanoGPT's "decay_lr"); they are read under their new names.
json config_object(const std::string& text, const char* where) {
    json j = bounded(text, std::string("__metadata__.") + where);
    if (j.is_discarded() || !j.is_object()) fail(std::string("__metadata__.") + where + " is not a JSON object");
    for (const auto& [old_name, name] : {std::pair{"d_ff", "n_inner"}, std::pair{"cosine", "decay_lr"}}) {
        if (j.contains(old_name) && !j.contains(name)) {
            j[name] = j[old_name];
            j.erase(old_name);
        }
    }
    return j;
}

template <typename Config, typename Read>
Config read_config(const json& j, const char* where, Read read) {
    try {
        return read(j.dump(), Naming::Snake, where);
    } catch (const Error& e) {
        fail(e.what());
    }
}

GPTConfig parse_config(const std::string& text) {
    return read_config<GPTConfig>(config_object(text, "config"), "config", [](const std::string& t, Naming n, const char* w) {
        return gpt_config_from_json(t, n, w);
    });
}

// A count in the metadata (the step, the optimizer's steps): an integer from 0 to 2^53 - 1, the largest a JS number
// holds exactly. Read as int64 unchecked, 18446744073709551615 became -1, and a resumed run restarted its warm-up
// there with the optimizer's state of step 50.
int64_t count_of(const json& j, const std::string& where) {
    constexpr uint64_t kMaxCount = (uint64_t{1} << 53) - 1;
    if (!j.is_number_unsigned() || j.get<uint64_t>() > kMaxCount) {
        fail(where + " must be an integer from 0 to " + std::to_string(kMaxCount) + ", got " + j.dump().substr(0, 40));
    }
    return static_cast<int64_t>(j.get<uint64_t>());
}

// The run's settings, and the optimizer's step count (0.1 kept it among them).
TrainConfig parse_train_config(const std::string& text, const std::map<std::string, std::string>& meta, int64_t* optimizer_steps) {
    json j = config_object(text, "train_config");
    json steps = j.contains("optimizer_steps") ? j["optimizer_steps"] : json();
    j.erase("optimizer_steps");
    if (meta.count("optimizer_steps")) steps = bounded(meta.at("optimizer_steps"), "__metadata__.optimizer_steps");
    *optimizer_steps = count_of(steps, "__metadata__.optimizer_steps");
    return read_config<TrainConfig>(j, "train_config", [](const std::string& t, Naming n, const char* w) {
        return train_config_from_json(t, n, w);
    });
}

bool little_endian() {
    const uint32_t one = 1;
    unsigned char b;
    std::memcpy(&b, &one, 1);
    return b == 1;
}

// ---- the digest: XXH3-128 of the header without the digest, then the data.
// The header is hashed as nlohmann::json dumps it (keys sorted, no spaces), so
// writing and reading hash the same text whatever the file's whitespace.
constexpr const char* kDigestPrefix = "xxh3-128:";

std::string digest_of(const json& header_without_digest, const char* data, size_t size) {
    const std::string text = header_without_digest.dump();
    XXH3_state_t* state = XXH3_createState();
    if (!state) throw std::bad_alloc();
    XXH3_128bits_reset(state);
    XXH3_128bits_update(state, text.data(), text.size());
    XXH3_128bits_update(state, data, size);
    XXH128_canonical_t canonical;
    XXH128_canonicalFromHash(&canonical, XXH3_128bits_digest(state));
    XXH3_freeState(state);
    static const char* hex = "0123456789abcdef";
    std::string out = kDigestPrefix;
    for (unsigned char byte : canonical.digest) {
        out += hex[byte >> 4];
        out += hex[byte & 15];
    }
    return out;
}

using safetensors::Entry;

// A checkpoint split into its parts by the safetensors reader: its header checked as the format defines it, and
// where its data starts.
struct Parsed {
    safetensors::Header header;
    const char* data = nullptr;  // the bytes after the header
};

Parsed parse_file(const std::string& bytes) {
    if (!little_endian()) fail("only little-endian machines are supported");
    const uint64_t n = safetensors::header_length(bytes.data(), bytes.size(), bytes.size(), "loadCheckpoint: ");
    Parsed p{safetensors::read_header(bytes.substr(8, n), bytes.size(), "loadCheckpoint: "), bytes.data() + 8 + n};
    if (!p.header.has_metadata) fail("the header has no __metadata__ object (not a checkpoint of this library)");
    return p;
}

// True when the file carries a digest and it matches; false when it carries
// none (a file written by another tool). A mismatch is an Error.
bool verify_digest(const Parsed& p) {
    const auto it = p.header.metadata.find("digest");
    if (it == p.header.metadata.end()) return false;
    if (it->second.rfind(kDigestPrefix, 0) != 0) {
        fail("__metadata__.digest \"" + it->second.substr(0, 40) + "\" is not an " + kDigestPrefix + " digest");
    }
    // The digest covers the header as this library writes it, so a signed header must be in exactly that form:
    // any other spelling of the same JSON (spaces, key order, escapes) could be read differently by another tool.
    if (p.header.text != p.header.json.dump()) {
        fail("the header is not in the form its digest covers (edited by hand, or by another tool)");
    }
    json unsigned_header = p.header.json;
    unsigned_header["__metadata__"].erase("digest");
    if (digest_of(unsigned_header, p.data, p.header.data_size) != it->second) {
        fail("the file is damaged: its digest does not match its contents");
    }
    return true;
}

// Every entry a float32 tensor (the reader has checked the rest of what the format promises).
void check_dtypes(const safetensors::Header& h) {
    for (const auto& [name, e] : h.entries) {
        if (e.dtype != "F32") fail("tensor \"" + name + "\" has dtype \"" + e.dtype + "\", expected \"F32\"");
    }
}

// The tokenizer the metadata describes, of the model's vocabulary size.
Tokenizer read_tokenizer(std::map<std::string, std::string>& meta, int64_t vocab_size) {
    // Checkpoints from before word tokenizers have no "tokenizer": they are character-level.
    const std::string kind_name = meta.count("tokenizer") ? meta["tokenizer"] : "char";
    TokenizerKind kind = TokenizerKind::Char;
    try {
        kind = parse_tokenizer_kind(kind_name, "loadCheckpoint");
    } catch (const Error&) {
        fail("__metadata__.tokenizer is \"" + kind_name + "\", expected \"char\" or \"word\"");
    }
    std::optional<Tokenizer> tokenizer;
    try {
        tokenizer = Tokenizer::from_vocabulary(kind, meta["vocabulary"], "loadCheckpoint");
    } catch (const Error&) {
    }
    if (!tokenizer || tokenizer->vocab_size() != vocab_size) {
        fail("__metadata__.vocabulary must hold " + std::to_string(vocab_size) + " distinct " +
             (kind == TokenizerKind::Char ? "characters" : "words (a JSON array of strings)") + " in sorted order");
    }
    return std::move(*tokenizer);
}

// The file's tensors are exactly those a model of `config` has (and, with a run's state, AdamW's two moments of
// each), of the same shapes: checked before anything is allocated.
void check_layout(const std::map<std::string, Entry>& entries, const GPTConfig& config, bool with_optimizer) {
    std::map<std::string, Shape> expected;
    for (const auto& [name, shape] : GPT::parameter_layout(config)) {
        expected.emplace(name, shape);
        if (with_optimizer) {
            expected.emplace("optimizer.exp_avg." + name, shape);
            expected.emplace("optimizer.exp_avg_sq." + name, shape);
        }
    }
    for (const auto& [name, shape] : expected) {
        const auto it = entries.find(name);
        if (it == entries.end()) fail("tensor \"" + name + "\" is missing");
        if (it->second.shape != shape) {
            fail("tensor \"" + name + "\" has shape " + shape_str(it->second.shape) + ", the config needs " + shape_str(shape));
        }
    }
    for (const auto& [name, e] : entries)
        if (!expected.count(name)) fail("unexpected tensor \"" + name + "\"");
}

// Copies a tensor out of the data (its entry was checked against the layout) and refuses a non-finite value.
class TensorReader {
public:
    explicit TensorReader(const Parsed& p) : data_(p.data), entries_(p.header.entries) {}

    void read(const std::string& name, Tensor& into) const {
        const Entry& e = entries_.at(name);
        std::memcpy(into.data.data(), data_ + e.begin, e.end - e.begin);
        if (first_non_finite(into.data.data(), into.numel()) >= 0) fail("tensor \"" + name + "\" holds a non-finite value");
    }

private:
    const char* data_;
    const std::map<std::string, Entry>& entries_;
};

// The tensors of a checkpoint, in the order they are written and read.
std::vector<std::pair<std::string, const Tensor*>> checkpoint_tensors(const GPT& model, const AdamW* optimizer) {
    std::vector<std::pair<std::string, const Tensor*>> tensors = model.named_parameters();
    if (optimizer) {
        const auto names = model.named_parameters();
        for (size_t i = 0; i < names.size(); ++i) {
            tensors.emplace_back("optimizer.exp_avg." + names[i].first, &optimizer->exp_avg[i]);
            tensors.emplace_back("optimizer.exp_avg_sq." + names[i].first, &optimizer->exp_avg_sq[i]);
        }
    }
    return tensors;
}
}  // namespace

std::string save_checkpoint(const GPT& model, const Tokenizer& tokenizer, const Trainer* trainer) {
    if (!little_endian()) throw Error("saveCheckpoint: only little-endian machines are supported");
    if (tokenizer.vocab_size() != model.config().vocab_size) {
        throw Error("saveCheckpoint: the tokenizer has " + std::to_string(tokenizer.vocab_size()) +
                    " pieces but the model's vocab_size is " + std::to_string(model.config().vocab_size));
    }
    const auto tensors = checkpoint_tensors(model, trainer ? &trainer->optimizer() : nullptr);
    // A loaded model's 16-bit weights are written as the float32 values they stand for.
    std::vector<float> wide;
    const auto values = [&](const Tensor& t) -> const float* {
        if (!t.is_half()) return t.data.data();
        wide = float_values(t);
        return wide.data();
    };
    // A file the loader would refuse is never written.
    for (const auto& [name, t] : tensors) {
        if (first_non_finite(values(*t), t->numel()) >= 0) {
            throw Error("saveCheckpoint: tensor \"" + name + "\" holds a non-finite value; a checkpoint of it could not be loaded");
        }
    }
    json meta = {{"format", kFormat}, {"format_version", "1"}, {"config", to_json(model.config())},
                 {"tokenizer", tokenizer_kind_name(tokenizer.kind())}, {"vocabulary", tokenizer.vocabulary()}};
    if (trainer) {
        meta["iter"] = std::to_string(trainer->iter());
        meta["train_config"] = to_json(trainer->config());
        meta["optimizer_steps"] = std::to_string(trainer->optimizer().steps);
    }
    json header = json::object();
    std::string data;
    for (const auto& [name, t] : tensors) {
        const uint64_t offset = data.size(), bytes = static_cast<uint64_t>(t->numel()) * 4;
        header[name] = {{"dtype", "F32"}, {"shape", t->shape}, {"data_offsets", {offset, offset + bytes}}};
        data.append(reinterpret_cast<const char*>(values(*t)), bytes);
    }
    header["__metadata__"] = meta;
    header["__metadata__"]["digest"] = digest_of(header, data.data(), data.size());
    return safetensors::assemble(header, data);
}

Checkpoint load_checkpoint(const std::string& bytes) {
    Parsed p = parse_file(bytes);
    std::map<std::string, std::string>& meta = p.header.metadata;
    const bool verified = verify_digest(p);
    safetensors::check_entries(p.header, "loadCheckpoint: ");  // every entry as the format defines it
    if (meta["format"] != kFormat) fail("__metadata__.format is \"" + meta["format"] + "\", expected \"" + kFormat + "\"");
    const GPTConfig config = parse_config(meta["config"]);
    // Everything the file says is checked against its data before the model is allocated: a small file
    // whose config describes a huge model is refused here, not after allocating it.
    check_dtypes(p.header);
    Tokenizer tokenizer = read_tokenizer(meta, config.vocab_size);
    const double copies = meta.count("iter") ? 3.0 : 1.0;  // the weights, and AdamW's two moments
    const double needed = 4.0 * copies * config.matrix_parameters();
    if (static_cast<double>(p.header.data_size) < needed) {
        fail("its config describes a model of at least " + format_number(config.matrix_parameters()) +
             " parameters (" + format_number(needed) + " bytes of float32" + (copies > 1 ? " with the optimizer's state" : "") +
             "), but the file holds " + std::to_string(p.header.data_size) + " data bytes");
    }
    check_layout(p.header.entries, config, meta.count("iter") > 0);
    const TensorReader tensors(p);
    Checkpoint ck{GPT::zeros(config), std::move(tokenizer), std::nullopt, verified};
    for (auto& [name, t] : ck.model.named_parameters()) tensors.read(name, *t);  // every tensor is read here

    if (meta.count("iter")) {
        TrainingState state{0, TrainConfig{}, AdamW(ck.model, AdamWOptions{})};
        state.iter = count_of(bounded(meta["iter"], "__metadata__.iter"), "__metadata__.iter");
        state.config = parse_train_config(meta["train_config"], meta, &state.optimizer.steps);
        state.optimizer.options = state.config.adamw;
        state.config.tokenizer = ck.tokenizer.kind();
        const auto names = ck.model.named_parameters();
        for (size_t i = 0; i < names.size(); ++i) {
            tensors.read("optimizer.exp_avg." + names[i].first, state.optimizer.exp_avg[i]);
            tensors.read("optimizer.exp_avg_sq." + names[i].first, state.optimizer.exp_avg_sq[i]);
        }
        ck.training = std::move(state);
    }
    return ck;
}

}  // namespace attn
