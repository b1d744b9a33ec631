#include "attn/generation_config.hpp"

#include "json_limits.hpp"
#include "schema.hpp"

#include <cmath>
#include <string>
#include <vector>

namespace attn {

namespace {
using nlohmann::json;

// transformers' GenerationConfig defaults for what a generation_config.json leaves out
// (generation/configuration_utils.py: temperature 1.0, top_k 50, top_p 1.0, do_sample False).
constexpr float kTransformersTemperature = 1.0f;
constexpr int64_t kTransformersTopK = 50;
constexpr double kTransformersTopP = 1.0;

// One file's keys, each checked and named in messages as "<fn>: <file>'s <key>: expected ..., got ...".
class Keys {
public:
    Keys(const std::string& text, const char* fn, const char* file) : fn_(fn), file_(file) {
        j_ = parse_bounded(text, std::string(fn) + ": " + file);
        if (j_.is_discarded() || !j_.is_object()) throw FormatError(std::string(fn) + ": " + file + " is not a JSON object");
    }
    Keys(json j, const char* fn, const char* file) : j_(std::move(j)), fn_(fn), file_(file) {}

    bool has(const char* key) const { return j_.contains(key); }
    // A key's value; absent and null are both "not set", as GenerationConfig's None.
    const json* get(const char* key) const {
        const auto it = j_.find(key);
        return it == j_.end() || it->is_null() ? nullptr : &*it;
    }
    const json* object(const char* key) const {
        const json* v = get(key);
        return v && v->is_object() ? v : nullptr;
    }
    std::optional<bool> flag(const char* key) const {
        const json* v = get(key);
        if (!v) return std::nullopt;
        if (!v->is_boolean()) refuse(key, "true or false", *v);
        return v->get<bool>();
    }
    std::optional<double> number(const char* key) const {
        const json* v = get(key);
        if (!v) return std::nullopt;
        if (!v->is_number() || !std::isfinite(v->get<double>())) refuse(key, "a number", *v);
        return v->get<double>();
    }
    std::optional<int64_t> count(const char* key, const char* expected = "an integer >= 0") const {
        const json* v = get(key);
        if (!v) return std::nullopt;
        return whole(key, *v, expected);
    }
    // A token id or a list of them (transformers takes either for eos_token_id).
    std::optional<std::vector<int64_t>> tokens(const char* key) const {
        const json* v = get(key);
        if (!v) return std::nullopt;
        constexpr const char* expected = "a token id (an integer >= 0) or a list of them";
        if (!v->is_array()) return std::vector<int64_t>{whole(key, *v, expected)};
        std::vector<int64_t> ids;
        for (const json& id : *v) ids.push_back(whole(key, id, expected));
        return ids;
    }
    [[noreturn]] void refuse(const char* key, const std::string& expected, const json& v) const {
        std::string got = schema::shown(v);
        if (got.size() > 80) got = got.substr(0, 77) + "...";
        throw FormatError(std::string(fn_) + ": " + file_ + "'s " + key + ": expected " + expected + ", got " + got);
    }

private:
    int64_t whole(const char* key, const json& v, const char* expected) const {
        const double x = v.is_number() ? v.get<double>() : -1.0;
        if (!std::isfinite(x) || x != std::floor(x) || x < 0 || x > schema::kMaxSafeInteger) refuse(key, expected, v);
        return static_cast<int64_t>(x);
    }
    json j_;
    const char* fn_;
    const char* file_;
};

// eos_token_id and pad_token_id of a file: the special tokens generate() stops at and pads with.
void read_special_tokens(const Keys& keys, GenerateOptions& o) {
    if (auto eos = keys.tokens("eos_token_id")) o.eos_token_ids = *eos;
    if (auto pad = keys.count("pad_token_id", "a token id (an integer >= 0)")) o.pad_token_id = *pad;
}
}  // namespace

GenerateOptions generation_options_from_files(const std::optional<std::string>& generation_config_json,
                                              const std::string& config_json, const GenerateOptions& base, const char* fn) {
    GenerateOptions o = base;
    if (generation_config_json) {
        // transformers reads generation_config.json instead of config.json's generation keys when the folder has it
        // (PreTrainedModel.from_pretrained replaces the model's generation_config whole).
        const Keys keys(*generation_config_json, fn, "generation_config.json");
        const bool sample = keys.flag("do_sample").value_or(false);
        const std::optional<double> temperature = keys.number("temperature");
        const std::optional<int64_t> top_k = keys.count("top_k");
        const std::optional<double> top_p = keys.number("top_p");
        // TemperatureLogitsWarper refuses a temperature that is not > 0 (it is made only when sampling: a greedy
        // file's temperature is not used); TopPLogitsWarper a top_p outside [0, 1] (this library's limit is (0, 1],
        // generate.cpp's table), which a file states for whoever turns sampling on.
        if (sample && temperature && !(*temperature > 0.0)) {
            keys.refuse("temperature", "a number > 0 when do_sample is true (do_sample false is greedy)", *keys.get("temperature"));
        }
        if (top_p && !(*top_p > 0.0 && *top_p <= 1.0)) keys.refuse("top_p", "a number in (0, 1]", *keys.get("top_p"));
        o.sampling.temperature = sample ? static_cast<float>(temperature.value_or(kTransformersTemperature)) : 0.0f;
        // Left out, GenerationConfig's default; null (None) is no top-k at all, as _get_logits_processor skips it.
        o.sampling.top_k = top_k.value_or(keys.has("top_k") ? 0 : kTransformersTopK);
        o.sampling.top_p = top_p.value_or(kTransformersTopP);
        o.eos_token_ids.clear();
        o.pad_token_id.reset();
        read_special_tokens(keys, o);
    } else {
        // GenerationConfig.from_model_config: config.json's own keys; a composite model keeps its text model's
        // settings under text_config, which generation reads for what the top level leaves unset.
        const Keys keys(config_json, fn, "config.json");
        read_special_tokens(keys, o);
        if (const json* text = keys.object("text_config")) {
            GenerateOptions inner;
            read_special_tokens(Keys(*text, fn, "config.json's text_config"), inner);
            if (!keys.get("eos_token_id")) o.eos_token_ids = inner.eos_token_ids;
            if (!keys.get("pad_token_id") && inner.pad_token_id) o.pad_token_id = inner.pad_token_id;
        }
    }
    o.validate(fn);
    return o;
}

}  // namespace attn
