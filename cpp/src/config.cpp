// Every field of GPTConfig and TrainConfig, once: its name, kind, limits and
// what it means. JSON, command-line flags and messages are derived from the
// two tables below.
#include "attn/config.hpp"

#include "attn/multi_head_attention.hpp"
#include "schema.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace attn {

namespace {
using schema::Table;

// The names of each enum's values, in the enum's order.
const std::vector<const char*> kNorms = {"post", "pre"};
const std::vector<const char*> kActivations = {"relu", "gelu", "gelu_new", "silu"};
const std::vector<const char*> kNormTypes = {"layer_norm", "rms_norm", "gemma_rms_norm"};
const std::vector<const char*> kPositions = {"learned", "rope"};
const std::vector<const char*> kRopeScalings = {"none", "llama3"};
const std::vector<const char*> kInits = {"pytorch", "gpt2"};
const std::vector<const char*> kTokenizers = {"char", "word"};
const std::vector<const char*> kTasks = {"text", "repeats"};

const Table<GPTConfig>& gpt_fields() {
    using C = GPTConfig;
    using schema::kMaxSafeInteger;
    static const Table<C> table = {"config field", {
        ATTN_INTEGER("vocab_size", vocab_size, 1, kMaxVocabulary, "tokens in the vocabulary"),
        ATTN_INTEGER("n_embd", n_embd, 1, 1 << 16, "width of the residual stream (d_model)"),
        ATTN_INTEGER("n_head", n_head, 1, 1 << 12, "attention heads per layer"),
        ATTN_INTEGER("n_layer", n_layer, 1, 1 << 10, "transformer blocks"),
        ATTN_INTEGER("n_inner", n_inner, 1, 1 << 20, "feed-forward width (nanoGPT: 4 · n_embd)"),
        ATTN_SWITCH("attn_only", attn_only, "blocks of attention alone, without the feed-forward sublayer"),
        ATTN_INTEGER("block_size", block_size, 1, 1 << 20, "longest context in tokens"),
        ATTN_CHOICE("norm", norm, kNorms, "LN(x + sublayer(x)) as notebook 001, or x + sublayer(LN(x)) as nanoGPT"),
        ATTN_CHOICE("activation", activation, kActivations, "the feed-forward non-linearity (gelu_new: GPT-2's tanh approximation)"),
        ATTN_SWITCH("attention_bias", attention_bias, "biases in the q/k/v and output projections"),
        ATTN_SWITCH("bias", bias, "biases in the feed-forward layers and LayerNorms"),
        ATTN_SWITCH("head_bias", head_bias, "a bias in the vocabulary projection"),
        ATTN_SWITCH("tie_embeddings", tie_embeddings, "lm_head shares the token embedding"),
        ATTN_NUMBER("layer_norm_epsilon", layer_norm_epsilon, 0, 1, true, false, "ε of every LayerNorm"),
        ATTN_CHOICE("init", init, kInits, "PyTorch's module defaults, or nanoGPT's normal(0, 0.02)"),
        ATTN_NUMBER("dropout", dropout, 0, 1, false, true, "dropout probability in training"),
        ATTN_INTEGER("seed", seed, 0, kMaxSafeInteger, "initial weights = torch.manual_seed(seed); Model(config)"),
        ATTN_CHOICE("norm_type", norm_type, kNormTypes, "LayerNorm (GPT-2), RMSNorm (Llama, Qwen) or RMSNorm × (1 + w) (Gemma)"),
        ATTN_CHOICE("positions", positions, kPositions, "a learned position table (GPT-2) or rotary embeddings (RoPE)"),
        ATTN_NUMBER("rope_theta", rope_theta, 1, 1e12, true, false, "the base of RoPE's wavelengths"),
        ATTN_NUMBER("rope_local_theta", rope_local_theta, 0, 1e12, false, false, "RoPE's base on sliding-window layers (0: rope_theta)"),
        ATTN_CHOICE("rope_scaling", rope_scaling, kRopeScalings, "RoPE's frequencies as trained, or stretched as Llama 3.1 does"),
        ATTN_NUMBER("rope_factor", rope_factor, 1, 1e6, false, false, "llama3 scaling: how much slower the slowest pairs turn"),
        ATTN_NUMBER("rope_low_freq_factor", rope_low_freq_factor, 0, 1e6, true, false, "llama3 scaling: where stretching starts"),
        ATTN_NUMBER("rope_high_freq_factor", rope_high_freq_factor, 0, 1e6, true, false, "llama3 scaling: where it stops"),
        ATTN_INTEGER("rope_original_context", rope_original_context, 1, 1 << 24, "llama3 scaling: the context the model was trained for"),
        ATTN_INTEGER("n_kv_head", n_kv_head, 0, 1 << 12, "key/value heads (0: n_head; fewer: grouped-query attention)"),
        ATTN_INTEGER("head_dim", head_dim, 0, 1 << 12, "dimensions of a head (0: n_embd / n_head)"),
        ATTN_SWITCH("qkv_bias", qkv_bias, "biases on q, k and v only (Qwen2)"),
        ATTN_SWITCH("qk_norm", qk_norm, "a norm over each head's queries and keys (Qwen3, Gemma 3)"),
        ATTN_SWITCH("gated_mlp", gated_mlp, "down(act(gate(x)) · up(x)): SwiGLU, GeGLU"),
        ATTN_SWITCH("sandwich_norm", sandwich_norm, "norms on the attention and feed-forward outputs too (Gemma)"),
        ATTN_SWITCH("scale_embeddings", scale_embeddings, "token embeddings × √n_embd (Gemma)"),
        ATTN_INTEGER("sliding_window", sliding_window, 0, 1 << 24, "keys a query sees on a sliding layer (0: every earlier key)"),
        ATTN_INTEGER("sliding_window_pattern", sliding_window_pattern, 0, 1 << 10, "0: every layer slides; p: every p-th layer attends fully"),
        ATTN_NUMBER("query_pre_attn_scalar", query_pre_attn_scalar, 0, 1e9, false, false, "scores × 1/√this (0: head_dim)"),
    }};
    return table;
}

const Table<TrainConfig>& train_fields() {
    using C = TrainConfig;
    using schema::kMaxSafeInteger;
    static const Table<C> table = {"config field", {
        ATTN_INTEGER("batch_size", batch_size, 1, 1 << 16, "sequences per step"),
        ATTN_NUMBER("learning_rate", lr.learning_rate, 0, 1e6, true, false, "peak learning rate"),
        ATTN_NUMBER("min_lr", lr.min_lr, 0, 1e6, false, false, "learning rate at the end of the decay"),
        ATTN_INTEGER("warmup_iters", lr.warmup_iters, 0, kMaxSafeInteger, "steps of linear warm-up"),
        ATTN_INTEGER("lr_decay_iters", lr.lr_decay_iters, 0, kMaxSafeInteger, "step where the cosine decay reaches min_lr"),
        ATTN_SWITCH("decay_lr", lr.decay_lr, "warm-up and cosine decay (false: a constant learning_rate)"),
        ATTN_NUMBER("beta1", adamw.beta1, 0, 1, false, true, "AdamW's β₁"),
        ATTN_NUMBER("beta2", adamw.beta2, 0, 1, false, true, "AdamW's β₂"),
        ATTN_NUMBER("eps", adamw.eps, 0, 1, true, false, "AdamW's ε"),
        ATTN_NUMBER("weight_decay", adamw.weight_decay, 0, 1e6, false, false, "AdamW's decay of matrices and embeddings"),
        ATTN_NUMBER("grad_clip", grad_clip, 0, 1e12, false, false, "global gradient-norm limit (0: off)"),
        ATTN_INTEGER("eval_iters", eval_iters, 1, 1 << 20, "batches per split in an evaluation"),
        ATTN_INTEGER("seed", seed, 0, kMaxSafeInteger, "torch.manual_seed for the weights, batches and dropout"),
        ATTN_CHOICE("tokenizer", tokenizer, kTokenizers, "how a fresh run splits its text"),
        ATTN_CHOICE("task", task, kTasks, "text: windows of the text; repeats: random tokens of its vocabulary with a segment repeated"),
        ATTN_INTEGER("context", context, 0, kMaxSafeInteger, "tokens a training window holds, at most the model's block size (0: the block size)"),
    }};
    return table;
}
}  // namespace

// ---- GPTConfig ----

GPTConfig GPTConfig::notebook001(int64_t vocab_size, int64_t d_model, int64_t num_heads, int64_t d_ff,
                                 int64_t max_seq_length, const char* fn) {
    check_head_split(d_model, num_heads, fn, "d_model", "num_heads");
    GPTConfig c;
    c.vocab_size = vocab_size;
    c.n_embd = d_model;
    c.n_head = num_heads;
    c.n_layer = 1;
    c.n_inner = d_ff;
    c.block_size = max_seq_length;
    c.norm = NormPlacement::Post;
    c.activation = Activation::ReLU;
    c.attention_bias = false;
    c.bias = true;
    c.head_bias = true;
    c.tie_embeddings = false;
    c.init = InitScheme::PyTorch;
    return c;
}

GPTConfig GPTConfig::nanogpt(int64_t vocab_size, int64_t block_size, int64_t n_layer, int64_t n_head, int64_t n_embd,
                             bool bias, bool tie_embeddings) {
    GPTConfig c;
    c.vocab_size = vocab_size;
    c.block_size = block_size;
    c.n_layer = n_layer;
    c.n_head = n_head;
    c.n_embd = n_embd;
    c.n_inner = 4 * n_embd;
    c.norm = NormPlacement::Pre;
    c.activation = Activation::GELU;
    c.attention_bias = bias;
    c.bias = bias;
    c.head_bias = false;
    c.tie_embeddings = tie_embeddings;
    c.init = InitScheme::GPT2;
    return c;
}

GPTConfig GPTConfig::induction(int64_t vocab_size) {
    GPTConfig c;
    c.vocab_size = vocab_size;
    c.block_size = 32;
    c.n_layer = 2;
    c.n_head = 2;
    c.n_embd = 64;
    c.attn_only = true;
    c.norm = NormPlacement::Pre;
    c.attention_bias = true;
    c.bias = true;
    c.head_bias = true;
    c.tie_embeddings = false;
    c.init = InitScheme::PyTorch;
    return c;
}

void GPTConfig::validate(const char* fn, Naming naming, bool weight_budget) const {
    schema::check_all(gpt_fields(), *this, naming, fn);
    const auto name = [&](const char* field) { return schema::spelled(field, naming); };
    const auto refuse = [&](const std::string& what) { throw Error(std::string(fn) + ": " + what); };
    if (head_dim == 0) check_head_split(n_embd, n_head, fn, name("n_embd"), name("n_head"));
    if (n_head % kv_heads() != 0) {
        refuse(name("n_head") + " must be divisible by " + name("n_kv_head") + " (each key/value head serves a group of query heads), got " +
               std::to_string(n_head) + " and " + std::to_string(n_kv_head));
    }
    if (positions == Positions::Rope && head_size() % 2 != 0) {
        refuse("rotary positions turn dimensions in pairs: expected an even head size, got " + std::to_string(head_size()) + " (" +
               name("head_dim") + " " + std::to_string(head_dim) + ", " + name("n_embd") + " / " + name("n_head") + ")");
    }
    if (rope_scaling == RopeScaling::Llama3 && !(rope_high_freq_factor > rope_low_freq_factor)) {
        refuse("expected " + name("rope_high_freq_factor") + " > " + name("rope_low_freq_factor") + ", got " +
               schema::shortest_text(rope_high_freq_factor) + " and " + schema::shortest_text(rope_low_freq_factor));
    }
    if (activation == Activation::SiLU && !gated_mlp) refuse(name("activation") + " silu is the gate of a gated MLP: set " + name("gated_mlp"));
    if (gated_mlp && activation != Activation::SiLU && activation != Activation::GELUTanh) {
        refuse("a gated MLP's " + name("activation") + " is silu (SwiGLU) or gelu_new (GeGLU), got " + kActivations[static_cast<size_t>(activation)]);
    }
    if (qk_norm && norm_type == NormType::LayerNorm) refuse(name("qk_norm") + " normalises with RMSNorm: set " + name("norm_type") + " rms_norm or gemma_rms_norm");
    if (sandwich_norm && norm != NormPlacement::Pre) refuse(name("sandwich_norm") + " adds norms to a pre-norm block: set " + name("norm") + " pre");
    if (norm_type != NormType::LayerNorm && norm != NormPlacement::Pre) refuse("RMSNorm blocks are pre-norm here: set " + name("norm") + " pre");
    // The weight budget, checked before anything is allocated: at 16 bits a parameter, the least a model is kept in.
    const double params = matrix_parameters();
    if (weight_budget && 2 * params > kMaxWeightBytes) {
        const auto count = [](double n) { return std::to_string(static_cast<int64_t>(n)); };
        throw Error(std::string(fn) + ": a model of about " + count(params) + " parameters (" + format_bytes(2 * params) +
                    " in 16 bits) exceeds the library's limit of " + format_number(kMaxWeightBytes / (int64_t{1} << 30)) + " GiB of weights (" +
                    count(kMaxWeightBytes / 2) + " parameters in 16 bits, " + count(kMaxWeightBytes / 4) + " in float32)");
    }
}

double GPTConfig::matrix_parameters() const {
    const double C = static_cast<double>(n_embd), F = static_cast<double>(n_inner);
    const double attention = 2.0 * C * static_cast<double>(q_width() + kv_width());  // q, k, v and the output
    const double mlp = attn_only ? 0.0 : (gated_mlp ? 3.0 : 2.0) * C * F;
    return static_cast<double>(vocab_size + (positions == Positions::Learned ? block_size : 0)) * C +
           static_cast<double>(n_layer) * (attention + mlp) + (tie_embeddings ? 0.0 : static_cast<double>(vocab_size) * C);
}

// ---- TrainConfig ----

TrainConfig TrainConfig::induction() {
    TrainConfig t;
    t.task = Task::Repeats;
    t.batch_size = 32;
    t.lr.learning_rate = 3e-3f;
    t.lr.decay_lr = false;
    t.adamw = AdamWOptions{};  // PyTorch's: β₁ 0.9, β₂ 0.999, ε 1e-8, decay 0.01
    t.grad_clip = 0.0f;
    t.eval_iters = 20;
    return t;
}

void TrainConfig::validate(const char* fn, Naming naming) const {
    schema::check_all(train_fields(), *this, naming, fn);
    if (lr.decay_lr && lr.lr_decay_iters <= lr.warmup_iters) {
        throw Error(std::string(fn) + ": expected " + schema::spelled("lr_decay_iters", naming) + " > " +
                    schema::spelled("warmup_iters", naming) + ", got " + std::to_string(lr.lr_decay_iters) + " and " +
                    std::to_string(lr.warmup_iters));
    }
}

// ---- the schema ----

std::string to_json(const GPTConfig& c, Naming naming) { return schema::write(gpt_fields(), c, naming); }
std::string to_json(const TrainConfig& c, Naming naming) { return schema::write(train_fields(), c, naming); }

Rope rope_of(const GPTConfig& c) {
    return Rope{c.head_size(), c.rope_theta, c.rope_scaling == RopeScaling::Llama3,
                Llama3Scaling{c.rope_factor, c.rope_low_freq_factor, c.rope_high_freq_factor, c.rope_original_context}};
}

GPTConfig gpt_config_from_json(const std::string& text, Naming naming, const char* fn, const GPTConfig& base) {
    GPTConfig c = schema::read(gpt_fields(), text, naming, fn, base);
    c.validate(fn, naming);
    return c;
}
TrainConfig train_config_from_json(const std::string& text, Naming naming, const char* fn, const TrainConfig& base) {
    TrainConfig c = schema::read(train_fields(), text, naming, fn, base);
    c.validate(fn, naming);
    return c;
}

void set_field(GPTConfig& c, const std::string& name, const std::string& value, Naming naming, const char* fn) {
    schema::set_text(gpt_fields(), c, name, value, naming, fn);
}
void set_field(TrainConfig& c, const std::string& name, const std::string& value, Naming naming, const char* fn) {
    schema::set_text(train_fields(), c, name, value, naming, fn);
}

std::vector<FieldInfo> fields(const GPTConfig& c, Naming naming) { return schema::list(gpt_fields(), c, naming); }
std::vector<FieldInfo> fields(const TrainConfig& c, Naming naming) { return schema::list(train_fields(), c, naming); }

// ---- the machinery's functions (schema.hpp) ----

namespace schema {

std::string spelled(const std::string& name, Naming naming) {
    if (naming == Naming::Snake) return name;
    std::string out = naming == Naming::Flag ? "--" : "";
    bool upper = false;
    for (char ch : name) {
        if (ch == '_') {
            if (naming == Naming::Flag) out += '-';
            upper = naming == Naming::Camel;
            continue;
        }
        out += upper ? static_cast<char>(std::toupper(static_cast<unsigned char>(ch))) : ch;
        upper = false;
    }
    return out;
}

std::string limits(double min, double max, bool open_min, bool open_max) {
    if (max >= kMaxSafeInteger && min <= -kMaxSafeInteger) return "";  // any value of the kind
    if (max >= kMaxSafeInteger) return (open_min ? " > " : " >= ") + format_number(min);
    return std::string(open_min ? " in (" : " in [") + format_number(min) + ", " + format_number(max) + (open_max ? ")" : "]");
}

std::string kind_of(Kind kind, const std::vector<const char*>& choices) {
    switch (kind) {
        case Kind::Integer: return "integer";
        case Kind::Number: return "number";
        case Kind::Switch: return "true|false";
        case Kind::IntegerList: return "integers";
        case Kind::Choice: {
            std::string s;
            for (const char* c : choices) s += (s.empty() ? "" : "|") + std::string(c);
            return s;
        }
    }
    return "";
}

json parse_text(Kind kind, const std::string& text) {
    if (kind == Kind::Switch) {
        if (text == "true") return true;
        if (text == "false") return false;
        return text;  // refused by check_and_put, which shows it
    }
    if (kind == Kind::Choice) return text;
    if (kind == Kind::IntegerList) {
        // "1,106", or "none": each item as an integer, refused by check_and_put (which shows the text) if it is not.
        json list = json::array();
        if (text == "none") return list;
        size_t start = 0;
        while (true) {
            const size_t comma = text.find(',', start);
            const json item = parse_text(Kind::Integer, text.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
            if (!item.is_number()) return text;
            list.push_back(item);
            if (comma == std::string::npos) return list;
            start = comma + 1;
        }
    }
    char* end = nullptr;
    const double x = std::strtod(text.c_str(), &end);
    if (text.empty() || *end != '\0') return text;
    if (kind == Kind::Integer && x == std::floor(x) && std::fabs(x) <= kMaxSafeInteger) return static_cast<int64_t>(x);
    return x;
}

std::string shown(const json& v) { return v.is_number() ? format_number(v.get<double>()) : v.dump(); }

std::string shortest_text(float x) {
    char text[32];
    for (int digits = 1; digits <= 9; ++digits) {
        std::snprintf(text, sizeof text, "%.*g", digits, static_cast<double>(x));
        if (std::strtof(text, nullptr) == x) break;
    }
    return text;
}

double shortest(float x) { return std::isfinite(x) ? std::strtod(shortest_text(x).c_str(), nullptr) : static_cast<double>(x); }

std::string listed(const json& v) {
    if (v.is_string()) return v.get<std::string>();
    if (v.is_array()) {  // an integer list as a command line writes it: 1,106, or none
        std::string out;
        for (const json& x : v) out += (out.empty() ? "" : ",") + x.dump();
        return out.empty() ? "none" : out;
    }
    if (!v.is_number_float()) return v.dump();
    return shortest_text(static_cast<float>(v.get<double>()));
}

}  // namespace schema

}  // namespace attn
