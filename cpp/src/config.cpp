// Every field of GPTConfig and TrainConfig, once: its name, kind, limits and
// what it means. JSON, command-line flags and messages are derived from the
// two tables below.
#include "attn/config.hpp"

#include "attn/tensor.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <functional>

namespace attn {

namespace {
using nlohmann::json;

constexpr double kMaxSafeInteger = 9007199254740991.0;  // seeds cross JS as numbers

enum class Kind { Integer, Number, Switch, Choice };

template <typename Config>
struct Field {
    const char* name;  // nanoGPT's spelling
    Kind kind;
    double min, max;                   // Integer, Number: the allowed range
    bool open_min;                     // Number: min itself excluded (learning_rate > 0)
    bool open_max;                     // Number: max itself excluded (dropout < 1)
    std::vector<const char*> choices;  // Choice: the enum's values by name, in order
    const char* help;
    std::function<json(const Config&)> get;
    std::function<void(Config&, const json&)> put;  // the value passed check()
};

// A field of integers, numbers, switches or named choices.
#define ATTN_INTEGER(NAME, MEMBER, MIN, MAX, HELP)                                                          \
    {NAME, Kind::Integer, MIN, MAX, false, false, {}, HELP, [](const C& c) -> json { return c.MEMBER; },   \
     [](C& c, const json& v) { c.MEMBER = v.get<decltype(c.MEMBER)>(); }}
#define ATTN_NUMBER(NAME, MEMBER, MIN, MAX, OPEN_MIN, OPEN_MAX, HELP)                                       \
    {NAME, Kind::Number, MIN, MAX, OPEN_MIN, OPEN_MAX, {}, HELP, [](const C& c) -> json { return c.MEMBER; }, \
     [](C& c, const json& v) { c.MEMBER = static_cast<float>(v.get<double>()); }}
#define ATTN_SWITCH(NAME, MEMBER, HELP)                                                                      \
    {NAME, Kind::Switch, 0, 0, false, false, {}, HELP, [](const C& c) -> json { return c.MEMBER; },          \
     [](C& c, const json& v) { c.MEMBER = v.get<bool>(); }}
#define ATTN_CHOICE(NAME, MEMBER, NAMES, HELP)                                                              \
    {NAME, Kind::Choice, 0, 0, false, false, NAMES, HELP,                                                     \
     [](const C& c) -> json { return NAMES[static_cast<size_t>(c.MEMBER)]; },                                \
     [](C& c, const json& v) {                                                                               \
         const auto at = std::find_if(NAMES.begin(), NAMES.end(), [&](const char* n) { return v == n; });     \
         c.MEMBER = static_cast<decltype(c.MEMBER)>(at - NAMES.begin());                                     \
     }}

// The names of each enum's values, in the enum's order.
const std::vector<const char*> kNorms = {"post", "pre"};
const std::vector<const char*> kActivations = {"relu", "gelu"};
const std::vector<const char*> kInits = {"pytorch", "gpt2"};
const std::vector<const char*> kTokenizers = {"char", "word"};

const std::vector<Field<GPTConfig>>& gpt_fields() {
    using C = GPTConfig;
    static const std::vector<Field<C>> table = {
        ATTN_INTEGER("vocab_size", vocab_size, 1, 1 << 24, "tokens in the vocabulary"),
        ATTN_INTEGER("n_embd", n_embd, 1, 1 << 16, "width of the residual stream (d_model)"),
        ATTN_INTEGER("n_head", n_head, 1, 1 << 12, "attention heads per layer"),
        ATTN_INTEGER("n_layer", n_layer, 1, 1 << 10, "transformer blocks"),
        ATTN_INTEGER("n_inner", n_inner, 1, 1 << 20, "feed-forward width (nanoGPT: 4 · n_embd)"),
        ATTN_INTEGER("block_size", block_size, 1, 1 << 20, "longest context in tokens"),
        ATTN_CHOICE("norm", norm, kNorms, "LN(x + sublayer(x)) as notebook 001, or x + sublayer(LN(x)) as nanoGPT"),
        ATTN_CHOICE("activation", activation, kActivations, "the feed-forward non-linearity"),
        ATTN_SWITCH("attention_bias", attention_bias, "biases in the q/k/v and output projections"),
        ATTN_SWITCH("bias", bias, "biases in the feed-forward layers and LayerNorms"),
        ATTN_SWITCH("head_bias", head_bias, "a bias in the vocabulary projection"),
        ATTN_SWITCH("tie_embeddings", tie_embeddings, "lm_head shares the token embedding"),
        ATTN_CHOICE("init", init, kInits, "PyTorch's module defaults, or nanoGPT's normal(0, 0.02)"),
        ATTN_NUMBER("dropout", dropout, 0, 1, false, true, "dropout probability in training"),
        ATTN_INTEGER("seed", seed, 0, kMaxSafeInteger, "initial weights = torch.manual_seed(seed); Model(config)"),
    };
    return table;
}

const std::vector<Field<TrainConfig>>& train_fields() {
    using C = TrainConfig;
    static const std::vector<Field<C>> table = {
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
    };
    return table;
}
#undef ATTN_INTEGER
#undef ATTN_NUMBER
#undef ATTN_SWITCH
#undef ATTN_CHOICE

// ---- names ----

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

template <typename Config>
const Field<Config>* find_field(const std::vector<Field<Config>>& table, const std::string& name, Naming naming) {
    for (const auto& f : table)
        if (spelled(f.name, naming) == name) return &f;
    return nullptr;
}

template <typename Config>
[[noreturn]] void unknown_field(const std::vector<Field<Config>>& table, const std::string& name, Naming naming,
                                const char* fn) {
    std::vector<std::string> known;
    for (const auto& f : table) known.push_back(spelled(f.name, naming));
    const std::string near = nearest_name(name, known);
    throw Error(std::string(fn) + ": unknown " + (naming == Naming::Flag ? "flag " : "config field ") + "\"" + name +
                "\"" + (near.empty() ? "" : "; did you mean \"" + near + "\"?"));
}

std::string limits(double min, double max, bool open_min, bool open_max) {
    if (max >= kMaxSafeInteger) return (open_min ? "> " : ">= ") + format_number(min);
    return std::string(open_min ? "in (" : "in [") + format_number(min) + ", " + format_number(max) + (open_max ? ")" : "]");
}

std::string kind_of(Kind kind, const std::vector<const char*>& choices) {
    switch (kind) {
        case Kind::Integer: return "integer";
        case Kind::Number: return "number";
        case Kind::Switch: return "true|false";
        case Kind::Choice: {
            std::string s;
            for (const char* c : choices) s += (s.empty() ? "" : "|") + std::string(c);
            return s;
        }
    }
    return "";
}

// Checks `v` against the field and stores it; the message names the field as the caller does.
template <typename Config>
void check_and_put(const Field<Config>& f, Config& c, const json& v, Naming naming, const char* fn) {
    const std::string name = spelled(f.name, naming);
    auto fail = [&](const std::string& expected) {
        // JSON has no Infinity or NaN: a number is written as the library writes numbers.
        const std::string given = v.is_number() ? format_number(v.get<double>()) : v.dump();
        throw Error(std::string(fn) + ": expected " + name + " to be " + expected + ", got " + given);
    };
    switch (f.kind) {
        case Kind::Integer:
            if (!v.is_number() || !std::isfinite(v.get<double>()) || v.get<double>() != std::floor(v.get<double>()) ||
                v.get<double>() < f.min || v.get<double>() > f.max) {
                fail("an integer " + limits(f.min, f.max, false, false));
            }
            f.put(c, json(static_cast<int64_t>(v.get<double>())));
            return;
        case Kind::Number: {
            const double x = v.is_number() ? v.get<double>() : NAN;
            if (!std::isfinite(x) || x < f.min || x > f.max || (f.open_min && x == f.min) || (f.open_max && x == f.max)) {
                fail("a number " + limits(f.min, f.max, f.open_min, f.open_max));
            }
            f.put(c, v);
            return;
        }
        case Kind::Switch:
            if (!v.is_boolean()) fail("true or false");
            f.put(c, v);
            return;
        case Kind::Choice: {
            const bool known = v.is_string() && std::any_of(f.choices.begin(), f.choices.end(),
                                                             [&](const char* s) { return v.get<std::string>() == s; });
            if (!known) fail("one of " + kind_of(f.kind, f.choices));
            f.put(c, v);
            return;
        }
    }
}

template <typename Config>
std::string write(const std::vector<Field<Config>>& table, const Config& c, Naming naming) {
    json out = json::object();
    for (const auto& f : table) out[spelled(f.name, naming)] = f.get(c);
    return out.dump();
}

template <typename Config>
Config read(const std::vector<Field<Config>>& table, const std::string& text, Naming naming, const char* fn, Config c) {
    const json j = json::parse(text, nullptr, false);
    if (j.is_discarded() || !j.is_object()) throw Error(std::string(fn) + ": expected a config as a JSON object");
    for (const auto& [key, value] : j.items()) {
        const Field<Config>* f = find_field(table, key, naming);
        if (!f) unknown_field(table, key, naming, fn);
        check_and_put(*f, c, value, naming, fn);
    }
    c.validate(fn, naming);
    return c;
}

// A command line's text for a field, as the JSON value check_and_put expects.
json parse_text(Kind kind, const std::string& text) {
    if (kind == Kind::Switch) {
        if (text == "true") return true;
        if (text == "false") return false;
        return text;  // refused by check_and_put, which shows it
    }
    if (kind == Kind::Choice) return text;
    char* end = nullptr;
    const double x = std::strtod(text.c_str(), &end);
    if (text.empty() || *end != '\0') return text;
    if (kind == Kind::Integer && x == std::floor(x) && std::fabs(x) <= kMaxSafeInteger) return static_cast<int64_t>(x);
    return x;
}

template <typename Config>
void set_text(const std::vector<Field<Config>>& table, Config& c, const std::string& name, const std::string& value,
              Naming naming, const char* fn) {
    const Field<Config>* f = find_field(table, name, naming);
    if (!f) unknown_field(table, name, naming, fn);
    check_and_put(*f, c, parse_text(f->kind, value), naming, fn);
}

template <typename Config>
std::vector<FieldInfo> list(const std::vector<Field<Config>>& table, const Config& c, Naming naming) {
    std::vector<FieldInfo> out;
    for (const auto& f : table) {
        const json v = f.get(c);
        out.push_back({spelled(f.name, naming), kind_of(f.kind, f.choices), v.is_string() ? v.get<std::string>() : v.dump(), f.help});
    }
    return out;
}
}  // namespace

// ---- GPTConfig ----

GPTConfig GPTConfig::notebook001(int64_t vocab_size, int64_t d_model, int64_t num_heads, int64_t d_ff,
                                 int64_t max_seq_length) {
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

void GPTConfig::validate(const char* fn, Naming naming) const {
    // Every field within its limits (a config built in C++ skips the JSON reader).
    GPTConfig copy = *this;
    for (const auto& f : gpt_fields()) check_and_put(f, copy, f.get(*this), naming, fn);
    const auto name = [&](const char* n) { return spelled(n, naming); };
    if (n_embd % n_head != 0) {
        throw Error(std::string(fn) + ": " + name("n_embd") + " must be divisible by " + name("n_head") + ", got " +
                    name("n_embd") + "=" + std::to_string(n_embd) + " and " + name("n_head") + "=" + std::to_string(n_head));
    }
    // Rough parameter budget, checked before anything is allocated.
    const double params = static_cast<double>(vocab_size + block_size) * static_cast<double>(n_embd) +
                          static_cast<double>(n_layer) * (4.0 * n_embd * n_embd + 2.0 * n_embd * n_inner) +
                          static_cast<double>(vocab_size) * static_cast<double>(n_embd);
    if (params > static_cast<double>(kMaxElements)) {
        throw Error(std::string(fn) + ": a model of about " + format_number(params) +
                    " parameters exceeds the library's limit of " + std::to_string(kMaxElements));
    }
}

// ---- TrainConfig ----

void TrainConfig::validate(const char* fn, Naming naming) const {
    TrainConfig copy = *this;
    for (const auto& f : train_fields()) check_and_put(f, copy, f.get(*this), naming, fn);
    if (lr.decay_lr && lr.lr_decay_iters <= lr.warmup_iters) {
        throw Error(std::string(fn) + ": expected " + spelled("lr_decay_iters", naming) + " > " +
                    spelled("warmup_iters", naming) + ", got " + std::to_string(lr.lr_decay_iters) + " and " +
                    std::to_string(lr.warmup_iters));
    }
}

// ---- the schema ----

std::string to_json(const GPTConfig& c, Naming naming) { return write(gpt_fields(), c, naming); }
std::string to_json(const TrainConfig& c, Naming naming) { return write(train_fields(), c, naming); }

GPTConfig gpt_config_from_json(const std::string& text, Naming naming, const char* fn, const GPTConfig& base) {
    return read(gpt_fields(), text, naming, fn, base);
}
TrainConfig train_config_from_json(const std::string& text, Naming naming, const char* fn, const TrainConfig& base) {
    return read(train_fields(), text, naming, fn, base);
}

void set_field(GPTConfig& c, const std::string& name, const std::string& value, Naming naming, const char* fn) {
    set_text(gpt_fields(), c, name, value, naming, fn);
}
void set_field(TrainConfig& c, const std::string& name, const std::string& value, Naming naming, const char* fn) {
    set_text(train_fields(), c, name, value, naming, fn);
}

std::vector<FieldInfo> fields(const GPTConfig& c, Naming naming) { return list(gpt_fields(), c, naming); }
std::vector<FieldInfo> fields(const TrainConfig& c, Naming naming) { return list(train_fields(), c, naming); }

std::string nearest_name(const std::string& name, const std::vector<std::string>& known) {
    // Levenshtein distance; a name within a third of its length (at least 2 edits) is "near".
    auto distance = [](const std::string& a, const std::string& b) {
        std::vector<size_t> row(b.size() + 1);
        for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
        for (size_t i = 1; i <= a.size(); ++i) {
            size_t diagonal = row[0];
            row[0] = i;
            for (size_t j = 1; j <= b.size(); ++j) {
                const size_t up = row[j];
                row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
                diagonal = up;
            }
        }
        return row[b.size()];
    };
    std::string best;
    size_t best_distance = std::max<size_t>(2, name.size() / 3) + 1;
    for (const std::string& k : known) {
        const size_t d = distance(name, k);
        if (d < best_distance) {
            best = k;
            best_distance = d;
        }
    }
    return best;
}

}  // namespace attn
