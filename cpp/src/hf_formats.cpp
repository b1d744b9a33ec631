#include "hf_formats.hpp"

#include "attn/gpt.hpp"
#include "attn/pretrained.hpp"
#include "json_limits.hpp"

#include <algorithm>
#include <cstring>

#include <nlohmann/json.hpp>

namespace attn::hf {

namespace {
using json = nlohmann::json;

[[noreturn]] void fail(const std::string& what) { throw FormatError("loadPretrained: config.json: " + what); }
[[noreturn]] void refuse(const std::string& key, const json& value, const std::string& why) {
    fail(key + " is " + value.dump().substr(0, 80) + "; " + why);
}

bool starts_with(const std::string& s, const char* prefix) { return s.rfind(prefix, 0) == 0; }
bool ends_with(const std::string& s, const char* suffix) {
    const size_t n = std::strlen(suffix);
    return s.size() >= n && s.compare(s.size() - n, n, suffix) == 0;
}

// A config.json's keys, read with their checks: each Error names the key and its value.
struct Keys {
    const json& j;
    const json& get(const char* key, const json& fallback) const {
        return j.contains(key) && !j[key].is_null() ? j[key] : fallback;
    }
    int64_t integer(const char* key, const json& fallback = json()) const {
        const json& v = get(key, fallback);
        if (!v.is_number_unsigned() || v.get<uint64_t>() == 0 || v.get<uint64_t>() > (uint64_t{1} << 31)) {
            refuse(key, v, "expected a positive integer");
        }
        return v.get<int64_t>();
    }
    double number(const char* key, const json& fallback, double above, double below) const {
        const json& v = get(key, fallback);
        if (!v.is_number() || !(v.get<double>() > above) || !(v.get<double>() < below)) {
            refuse(key, v, "expected a number in (" + format_number(above) + ", " + format_number(below) + ")");
        }
        return v.get<double>();
    }
    bool flag(const char* key, bool fallback) const {
        const json& v = get(key, json(fallback));
        if (!v.is_boolean()) refuse(key, v, "expected true or false");
        return v.get<bool>();
    }
};

GPTConfig gpt2_config(const json& j) {
    const Keys k{j};
    const std::pair<const char*, bool> unsupported[] = {
        {"scale_attn_by_inverse_layer_idx", false}, {"reorder_and_upcast_attn", false}, {"add_cross_attention", false},
        {"scale_attn_weights", true}};
    for (const auto& [key, supported] : unsupported) {
        if (j.contains(key) && j[key] != supported) {
            refuse(key, j[key], std::string("this library computes GPT-2's attention with ") + key + " = " + (supported ? "true" : "false"));
        }
    }
    GPTConfig c;
    c.vocab_size = k.integer("vocab_size");
    c.n_embd = k.integer("n_embd");
    c.n_layer = k.integer("n_layer");
    c.n_head = k.integer("n_head");
    c.block_size = k.integer("n_positions", j.value("n_ctx", json()));
    c.n_inner = k.integer("n_inner", json(static_cast<uint64_t>(4 * c.n_embd)));  // null: 4 · n_embd
    const json activation = j.value("activation_function", json("gelu_new"));
    if (activation == "gelu_new" || activation == "gelu_pytorch_tanh") c.activation = Activation::GELUTanh;
    else if (activation == "gelu") c.activation = Activation::GELU;
    else if (activation == "relu") c.activation = Activation::ReLU;
    else refuse("activation_function", activation, "expected \"gelu_new\", \"gelu_pytorch_tanh\", \"gelu\" or \"relu\"");
    c.layer_norm_epsilon = static_cast<float>(k.number("layer_norm_epsilon", json(1e-5), 0, 1));
    c.tie_embeddings = k.flag("tie_word_embeddings", true);
    c.norm = NormPlacement::Pre;
    c.attention_bias = c.bias = true;
    c.head_bias = false;
    c.init = InitScheme::GPT2;
    c.dropout = 0.0f;  // loaded for inference; GPT-2's *_pdrop are training settings
    return c;
}

// RoPE's settings of one layer type, from a rope_parameters entry or the older rope_theta + rope_scaling keys.
void read_rope(const json& params, const char* key, GPTConfig& c, float* theta) {
    const json type = params.value("rope_type", params.value("type", json("default")));
    if (params.contains("rope_theta")) {
        const json& t = params["rope_theta"];
        if (!t.is_number() || !(t.get<double>() > 1) || !(t.get<double>() < 1e12)) refuse(std::string(key) + ".rope_theta", t, "expected a number > 1");
        *theta = static_cast<float>(t.get<double>());
    }
    if (type == "default") return;
    if (type != "llama3") {
        refuse(std::string(key) + ".rope_type", type, "this library computes RoPE as trained (\"default\") or with \"llama3\" scaling");
    }
    if (theta != &c.rope_theta) refuse(std::string(key) + ".rope_type", type, "llama3 scaling is read on full-attention layers only");
    const Keys k{params};
    c.rope_scaling = RopeScaling::Llama3;
    c.rope_factor = static_cast<float>(k.number("factor", json(), 1 - 1e-9, 1e6));
    c.rope_low_freq_factor = static_cast<float>(k.number("low_freq_factor", json(), 0, 1e6));
    c.rope_high_freq_factor = static_cast<float>(k.number("high_freq_factor", json(), 0, 1e6));
    c.rope_original_context = k.integer("original_max_position_embeddings");
}

GPTConfig decoder_config(const json& j, const std::string& type) {
    const Keys k{j};
    const bool gemma = type == "gemma3_text";
    GPTConfig c;
    c.vocab_size = k.integer("vocab_size");
    c.n_embd = k.integer("hidden_size");
    c.n_inner = k.integer("intermediate_size");
    c.n_layer = k.integer("num_hidden_layers");
    c.n_head = k.integer("num_attention_heads");
    c.n_kv_head = k.integer("num_key_value_heads", json(static_cast<uint64_t>(c.n_head)));
    c.head_dim = j.contains("head_dim") && !j["head_dim"].is_null() ? k.integer("head_dim") : 0;
    if (c.n_head % c.n_kv_head != 0) {
        refuse("num_key_value_heads", j["num_key_value_heads"], "num_attention_heads (" + std::to_string(c.n_head) +
               ") must be a multiple of it: each key/value head serves a group of query heads");
    }
    if (c.head_size() % 2 != 0 || (c.head_dim == 0 && c.n_embd % c.n_head != 0)) {
        refuse(c.head_dim ? "head_dim" : "hidden_size", c.head_dim ? j["head_dim"] : j["hidden_size"],
               "rotary positions turn a head's dimensions in pairs: expected an even head size (head_dim, or hidden_size / num_attention_heads)");
    }
    c.block_size = std::min<int64_t>(k.integer("max_position_embeddings"), int64_t{1} << 20);
    c.layer_norm_epsilon = static_cast<float>(k.number("rms_norm_eps", json(1e-6), 0, 1));
    // transformers' defaults: Gemma ties its head, the others do not.
    c.tie_embeddings = k.flag("tie_word_embeddings", gemma);
    c.norm = NormPlacement::Pre;
    c.norm_type = gemma ? NormType::GemmaRMSNorm : NormType::RMSNorm;
    c.positions = Positions::Rope;
    c.gated_mlp = true;
    c.init = InitScheme::GPT2;
    c.dropout = 0.0f;
    c.bias = false;
    c.head_bias = false;
    const char* act_key = gemma && j.contains("hidden_activation") ? "hidden_activation" : "hidden_act";
    const json act = k.get(act_key, json(gemma ? "gelu_pytorch_tanh" : "silu"));
    if (act == "silu") c.activation = Activation::SiLU;
    else if (act == "gelu_pytorch_tanh") c.activation = Activation::GELUTanh;
    else refuse(act_key, act, "this library's gated MLPs are SwiGLU (\"silu\") and GeGLU (\"gelu_pytorch_tanh\")");
    c.attention_bias = k.flag("attention_bias", false);
    c.qkv_bias = type == "qwen2";
    c.qk_norm = type == "qwen3" || gemma;
    if (k.flag("mlp_bias", false)) refuse("mlp_bias", true, "this library's gated MLPs have no biases");
    for (const char* key : {"final_logit_softcapping", "attn_logit_softcapping"}) {
        if (j.contains(key) && !j[key].is_null()) refuse(key, j[key], "this library does not cap logits (expected null)");
    }
    // Sliding windows: Mistral's on every layer; Gemma 3's on all but every sliding_window_pattern-th (layer_types
    // says which, in newer files); Qwen's only with use_sliding_window, which this library does not read.
    if (k.flag("use_sliding_window", false)) refuse("use_sliding_window", true, "this library reads Qwen models with full attention");
    if ((type == "mistral" || gemma) && j.contains("sliding_window") && !j["sliding_window"].is_null()) {
        c.sliding_window = k.integer("sliding_window");
    }
    if (gemma && c.sliding_window > 0) c.sliding_window_pattern = k.integer("sliding_window_pattern", json(uint64_t{6}));
    if (j.contains("layer_types") && !j["layer_types"].is_null()) {
        const json& types = j["layer_types"];
        if (!types.is_array() || static_cast<int64_t>(types.size()) != c.n_layer) {
            refuse("layer_types", types, "expected one entry per layer (" + std::to_string(c.n_layer) + ")");
        }
        // The pattern: the first full layer's index + 1 (none full: every layer slides), which must explain them all.
        int64_t pattern = 0;
        for (size_t l = 0; l < types.size() && pattern == 0; ++l) {
            if (types[l] == "full_attention" && c.sliding_window > 0) pattern = static_cast<int64_t>(l) + 1;
        }
        GPTConfig check = c;
        check.sliding_window_pattern = pattern;
        for (size_t l = 0; l < types.size(); ++l) {
            const bool slides = types[l] == "sliding_attention";
            if ((!slides && types[l] != "full_attention") || (slides && c.sliding_window == 0) || slides != check.sliding(static_cast<int64_t>(l))) {
                refuse("layer_types[" + std::to_string(l) + "]", types[l],
                       "this library reads layers that all attend fully, all slide, or slide but for every n-th");
            }
        }
        c.sliding_window_pattern = pattern;
    }
    // RoPE: the newer rope_parameters (one entry, or one per layer type), else rope_theta and rope_scaling.
    c.rope_theta = gemma ? 1e6f : 10000.0f;
    if (gemma) c.rope_local_theta = 10000.0f;
    if (j.contains("rope_parameters") && !j["rope_parameters"].is_null()) {
        const json& p = j["rope_parameters"];
        if (!p.is_object()) refuse("rope_parameters", p, "expected an object");
        if (p.contains("full_attention") || p.contains("sliding_attention")) {
            for (const auto& [layer_type, params] : p.items()) {
                if (!params.is_object() || (layer_type != "full_attention" && layer_type != "sliding_attention")) {
                    refuse("rope_parameters." + layer_type, params, "expected full_attention and sliding_attention objects");
                }
                const bool local = layer_type == "sliding_attention";
                read_rope(params, ("rope_parameters." + layer_type).c_str(), c, local ? &c.rope_local_theta : &c.rope_theta);
            }
        } else {
            read_rope(p, "rope_parameters", c, &c.rope_theta);
        }
    } else {
        if (j.contains("rope_theta")) c.rope_theta = static_cast<float>(k.number("rope_theta", json(), 1, 1e12));
        if (gemma && j.contains("rope_local_base_freq")) c.rope_local_theta = static_cast<float>(k.number("rope_local_base_freq", json(), 1, 1e12));
        if (j.contains("rope_scaling") && !j["rope_scaling"].is_null()) {
            if (!j["rope_scaling"].is_object()) refuse("rope_scaling", j["rope_scaling"], "expected an object or null");
            read_rope(j["rope_scaling"], "rope_scaling", c, &c.rope_theta);
        }
    }
    if (!gemma) c.rope_local_theta = 0.0f;  // one base for every layer
    if (gemma) {
        c.sandwich_norm = true;
        c.scale_embeddings = true;
        c.query_pre_attn_scalar = static_cast<float>(k.number("query_pre_attn_scalar", json(256), 0, 1e9));
    }
    return c;
}

// The tensors of a llama-like family, by their names inside the decoder ("layers.0.self_attn.q_proj.weight").
std::map<std::string, Target> decoder_tensors(const GPTConfig& c, bool gemma) {
    std::map<std::string, Target> t;
    const int64_t C = c.n_embd, F = c.n_inner, D = c.head_size(), HD = c.q_width(), KD = c.kv_width();
    t["embed_tokens.weight"] = {"transformer.wte.weight", 0, {c.vocab_size, C}};
    for (int64_t l = 0; l < c.n_layer; ++l) {
        const std::string hf = "layers." + std::to_string(l) + ".", ours = "transformer.h." + std::to_string(l) + ".";
        t[hf + "input_layernorm.weight"] = {ours + "ln_1.weight", 0, {C}};
        t[hf + "self_attn.q_proj.weight"] = {ours + "attn.c_attn.weight", 0, {HD, C}};
        t[hf + "self_attn.k_proj.weight"] = {ours + "attn.c_attn.weight", HD * C, {KD, C}};
        t[hf + "self_attn.v_proj.weight"] = {ours + "attn.c_attn.weight", (HD + KD) * C, {KD, C}};
        if (c.attention_bias || c.qkv_bias) {
            t[hf + "self_attn.q_proj.bias"] = {ours + "attn.c_attn.bias", 0, {HD}};
            t[hf + "self_attn.k_proj.bias"] = {ours + "attn.c_attn.bias", HD, {KD}};
            t[hf + "self_attn.v_proj.bias"] = {ours + "attn.c_attn.bias", HD + KD, {KD}};
        }
        if (c.qk_norm) {
            t[hf + "self_attn.q_norm.weight"] = {ours + "attn.q_norm.weight", 0, {D}};
            t[hf + "self_attn.k_norm.weight"] = {ours + "attn.k_norm.weight", 0, {D}};
        }
        t[hf + "self_attn.o_proj.weight"] = {ours + "attn.c_proj.weight", 0, {C, HD}};
        if (c.attention_bias) t[hf + "self_attn.o_proj.bias"] = {ours + "attn.c_proj.bias", 0, {C}};
        // Llama's post_attention_layernorm is the norm before its MLP; Gemma's is on the attention's output, and
        // pre_feedforward_layernorm comes before the MLP.
        if (gemma) {
            t[hf + "post_attention_layernorm.weight"] = {ours + "ln_post_attn.weight", 0, {C}};
            t[hf + "pre_feedforward_layernorm.weight"] = {ours + "ln_2.weight", 0, {C}};
            t[hf + "post_feedforward_layernorm.weight"] = {ours + "ln_post_mlp.weight", 0, {C}};
        } else {
            t[hf + "post_attention_layernorm.weight"] = {ours + "ln_2.weight", 0, {C}};
        }
        t[hf + "mlp.gate_proj.weight"] = {ours + "mlp.c_gate.weight", 0, {F, C}};
        t[hf + "mlp.up_proj.weight"] = {ours + "mlp.c_fc.weight", 0, {F, C}};
        t[hf + "mlp.down_proj.weight"] = {ours + "mlp.c_proj.weight", 0, {C, F}};
    }
    t["norm.weight"] = {"transformer.ln_f.weight", 0, {C}};
    if (!c.tie_embeddings) t["lm_head.weight"] = {"lm_head.weight", 0, {c.vocab_size, C}};
    return t;
}

// GPT-2's tensors: this library's own names and shapes, Conv1D weights stored (in, out).
std::map<std::string, Target> gpt2_tensors(const GPTConfig& c) {
    std::map<std::string, Target> t;
    for (auto& [name, shape] : GPT::parameter_layout(c)) {
        const bool conv1d = shape.size() == 2 && (ends_with(name, ".attn.c_attn.weight") || ends_with(name, ".attn.c_proj.weight") ||
                                                  ends_with(name, ".mlp.c_fc.weight") || ends_with(name, ".mlp.c_proj.weight"));
        Target target{name, 0, shape, conv1d};
        if (conv1d) std::swap(target.stored[0], target.stored[1]);
        t[name] = target;
    }
    return t;
}
}  // namespace

std::string Format::canonical(const std::string& name) const {
    if (model_type == "gpt2") {
        const std::string n = starts_with(name, "lm_head.") || starts_with(name, "transformer.") ? name : "transformer." + name;
        if (ends_with(n, ".attn.bias") || ends_with(n, ".attn.masked_bias")) return "";  // the causal-mask buffers
        if (n == "lm_head.weight" && config.tie_embeddings) return "";                   // the same as wte, which is read
        return n;
    }
    // Gemma3ForConditionalGeneration's files hold the text model under language_model (older transformers:
    // language_model.model.*, language_model.lm_head.*; newer: model.language_model.*, lm_head.*) beside a vision
    // tower and projector, which a text model does not read.
    for (const char* other : {"vision_tower.", "multi_modal_projector.", "model.vision_tower.", "model.multi_modal_projector."}) {
        if (starts_with(name, other)) return "";
    }
    std::string n = name;
    for (const char* prefix : {"language_model.model.", "model.language_model.", "language_model.", "model."}) {
        if (starts_with(n, prefix)) {
            n = n.substr(std::strlen(prefix));
            break;
        }
    }
    if (ends_with(n, ".rotary_emb.inv_freq")) return "";  // older files store RoPE's frequencies, which are computed
    if (n == "lm_head.weight" && config.tie_embeddings) return "";
    return n;
}

Format format_from_config(const std::string& text, bool weight_budget) {
    const json j = parse_bounded(text, "loadPretrained: config.json");
    if (j.is_discarded() || !j.is_object()) throw FormatError("loadPretrained: config.json is not a JSON object");
    Format f;
    const json type = j.value("model_type", json());
    const json* body = &j;
    if (type == "gemma3") {
        // The multimodal Gemma 3's config: its text model's under text_config.
        if (!j.contains("text_config") || !j["text_config"].is_object()) refuse("text_config", j.value("text_config", json()), "expected Gemma 3's text model config");
        body = &j["text_config"];
        f.model_type = "gemma3_text";
    } else if (type.is_string()) {
        f.model_type = type.get<std::string>();
    }
    static const char* const kFamilies[] = {"gpt2", "llama", "mistral", "qwen2", "qwen3", "gemma3_text"};
    if (std::find(std::begin(kFamilies), std::end(kFamilies), f.model_type) == std::end(kFamilies)) {
        refuse("model_type", type, "this library reads \"gpt2\", \"llama\", \"mistral\", \"qwen2\", \"qwen3\", \"gemma3_text\" and \"gemma3\" models");
    }
    f.config = f.model_type == "gpt2" ? gpt2_config(*body) : decoder_config(*body, f.model_type);
    f.config.validate("loadPretrained: config.json", Naming::Snake, weight_budget);
    f.tensors = f.model_type == "gpt2" ? gpt2_tensors(f.config) : decoder_tensors(f.config, f.model_type == "gemma3_text");
    return f;
}

}  // namespace attn::hf

namespace attn {
GPTConfig pretrained_config_from_json(const std::string& config_json, bool weight_budget) {
    return hf::format_from_config(config_json, weight_budget).config;
}
}  // namespace attn
