// The machinery behind every table of named settings: a field's name, kind,
// limits and help, once, from which JSON reading and writing, command-line
// flags, help texts and every message about a field are derived. config.cpp
// holds the tables of GPTConfig and TrainConfig, generate.cpp the table of
// GenerateOptions. Internal: the public side is each table's functions
// (config.hpp, generate.hpp).
#pragma once

#include "attn/config.hpp"
#include "attn/tensor.hpp"
#include "json_limits.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

namespace attn::schema {

using nlohmann::json;

constexpr double kMaxSafeInteger = 9007199254740991.0;  // seeds cross JS as numbers

enum class Kind { Integer, Number, Switch, Choice, IntegerList };

template <typename Config>
struct Field {
    const char* name;  // nanoGPT's spelling
    Kind kind;
    double min, max;                   // Integer, Number: the allowed range (IntegerList: of each integer)
    bool open_min;                     // Number: min itself excluded (learning_rate > 0)
    bool open_max;                     // Number: max itself excluded (dropout < 1)
    std::vector<const char*> choices;  // Choice: the enum's values by name, in order
    const char* help;
    std::function<json(const Config&)> get;
    std::function<void(Config&, const json&)> put;  // the value passed check_and_put()
    bool nullable = false;                          // null is a value too (an unset seed)
};

// A table and what its entries are called in messages ("config field", "option").
template <typename Config>
struct Table {
    const char* noun;
    std::vector<Field<Config>> fields;
};

// Fields of integers, numbers, switches or named choices; C is the table's struct.
// (Only the .cpp files of the tables include this internal header.)
#define ATTN_INTEGER(NAME, MEMBER, MIN, MAX, HELP)                                                          \
    {NAME, schema::Kind::Integer, MIN, MAX, false, false, {}, HELP,                                          \
     [](const C& c) -> schema::json { return c.MEMBER; },                                                    \
     [](C& c, const schema::json& v) { c.MEMBER = v.get<decltype(c.MEMBER)>(); }}
#define ATTN_NUMBER(NAME, MEMBER, MIN, MAX, OPEN_MIN, OPEN_MAX, HELP)                                       \
    {NAME, schema::Kind::Number, MIN, MAX, OPEN_MIN, OPEN_MAX, {}, HELP,                                      \
     [](const C& c) -> schema::json { return schema::shortest(c.MEMBER); },                                  \
     [](C& c, const schema::json& v) { c.MEMBER = static_cast<decltype(c.MEMBER)>(v.get<double>()); }}
#define ATTN_SWITCH(NAME, MEMBER, HELP)                                                                      \
    {NAME, schema::Kind::Switch, 0, 0, false, false, {}, HELP,                                               \
     [](const C& c) -> schema::json { return c.MEMBER; },                                                    \
     [](C& c, const schema::json& v) { c.MEMBER = v.get<bool>(); }}
#define ATTN_CHOICE(NAME, MEMBER, NAMES, HELP)                                                              \
    {NAME, schema::Kind::Choice, 0, 0, false, false, NAMES, HELP,                                             \
     [](const C& c) -> schema::json { return NAMES[static_cast<size_t>(c.MEMBER)]; },                        \
     [](C& c, const schema::json& v) {                                                                       \
         const auto at = std::find_if(NAMES.begin(), NAMES.end(), [&](const char* n) { return v == n; });     \
         c.MEMBER = static_cast<decltype(c.MEMBER)>(at - NAMES.begin());                                     \
     }}
// A list of integers (std::vector<int64_t>), each in [MIN, MAX]: a JSON array, or one number for a list of one;
// on a command line, comma-separated ("1,106"), "none" for the empty list.
#define ATTN_INTEGER_LIST(NAME, MEMBER, MIN, MAX, HELP)                                                     \
    {NAME, schema::Kind::IntegerList, MIN, MAX, false, false, {}, HELP,                                      \
     [](const C& c) -> schema::json { return c.MEMBER; },                                                    \
     [](C& c, const schema::json& v) { c.MEMBER = v.get<std::vector<int64_t>>(); }}
// An integer that may be unset (std::optional): null in JSON.
#define ATTN_OPTIONAL_INTEGER(NAME, MEMBER, MIN, MAX, HELP)                                                 \
    {NAME, schema::Kind::Integer, MIN, MAX, false, false, {}, HELP,                                          \
     [](const C& c) -> schema::json { return c.MEMBER ? schema::json(*c.MEMBER) : schema::json(nullptr); },  \
     [](C& c, const schema::json& v) {                                                                       \
         if (v.is_null()) c.MEMBER.reset();                                                                  \
         else c.MEMBER = v.get<typename decltype(c.MEMBER)::value_type>();                                   \
     },                                                                                                      \
     true}

// `name` (nanoGPT's snake_case) as `naming` spells it: n_embd, nEmbd, --n-embd.
std::string spelled(const std::string& name, Naming naming);
// " in [0, 1)", " >= 0", ... (with its leading space), or "" for no limit
std::string limits(double min, double max, bool open_min, bool open_max);
// "integer", "number", "true|false", "pre|post", ...
std::string kind_of(Kind kind, const std::vector<const char*>& choices);
// A command line's text for a field, as the JSON value check_and_put expects.
json parse_text(Kind kind, const std::string& text);
// The JSON value as a message shows it (JSON has no Infinity or NaN: a number
// is written as the library writes numbers).
std::string shown(const json& v);
// A float as written out (JSON, JS): the double of the fewest decimal digits that read back as the same float, so
// that 1e-5 reads 0.00001 and not 0.000009999999747378752, and still converts back to the same float.
double shortest(float x);
inline double shortest(double x) { return x; }  // a double field (top_p) is written as it is
std::string shortest_text(float x);  // its text: "0.00001"
// A field's value as help lists it: a float field with the fewest digits that
// read back as the same float (0.8, not 0.800000011920929).
std::string listed(const json& v);

template <typename Config>
const Field<Config>* find_field(const Table<Config>& table, const std::string& name, Naming naming) {
    for (const auto& f : table.fields)
        if (spelled(f.name, naming) == name) return &f;
    return nullptr;
}

template <typename Config>
[[noreturn]] void unknown_field(const Table<Config>& table, const std::string& name, Naming naming, const char* fn) {
    std::vector<std::string> known;
    for (const auto& f : table.fields) known.push_back(spelled(f.name, naming));
    const std::string near = nearest_name(name, known);
    std::string all;
    for (const std::string& k : known) all += (all.empty() ? "" : ", ") + k;
    throw Error(std::string(fn) + ": unknown " + (naming == Naming::Flag ? "flag" : table.noun) + " \"" + name + "\"" +
                (near.empty() ? "; expected one of " + all : "; did you mean \"" + near + "\"?"));
}

// Checks `v` against the field and stores it; the message names the field as the caller does.
template <typename Config>
void check_and_put(const Field<Config>& f, Config& c, const json& v, Naming naming, const char* fn) {
    const std::string name = spelled(f.name, naming);
    auto fail = [&](const std::string& expected) {
        throw Error(std::string(fn) + ": expected " + name + " to be " + expected + ", got " + shown(v));
    };
    if (f.nullable && v.is_null()) {
        f.put(c, v);
        return;
    }
    const std::string or_null = f.nullable ? " (or null)" : "";
    switch (f.kind) {
        case Kind::Integer:
            if (!v.is_number() || !std::isfinite(v.get<double>()) || v.get<double>() != std::floor(v.get<double>()) ||
                v.get<double>() < f.min || v.get<double>() > f.max) {
                fail("an integer" + limits(f.min, f.max, false, false) + or_null);
            }
            f.put(c, json(static_cast<int64_t>(v.get<double>())));
            return;
        case Kind::Number: {
            const double x = v.is_number() ? v.get<double>() : NAN;
            if (!std::isfinite(x) || x < f.min || x > f.max || (f.open_min && x == f.min) || (f.open_max && x == f.max)) {
                fail("a number" + limits(f.min, f.max, f.open_min, f.open_max));
            }
            f.put(c, v);
            return;
        }
        case Kind::Switch:
            if (!v.is_boolean()) fail("true or false");
            f.put(c, v);
            return;
        case Kind::IntegerList: {
            const auto integer = [&](const json& x) {
                return x.is_number() && std::isfinite(x.get<double>()) && x.get<double>() == std::floor(x.get<double>()) &&
                       x.get<double>() >= f.min && x.get<double>() <= f.max;
            };
            const std::string expected = "an integer" + limits(f.min, f.max, false, false) + " or a list of them";
            if (v.is_array()) {
                std::vector<int64_t> list;
                for (const json& x : v) {
                    if (!integer(x)) fail(expected);
                    list.push_back(static_cast<int64_t>(x.get<double>()));
                }
                f.put(c, json(list));
            } else {
                if (!integer(v)) fail(expected);
                f.put(c, json(std::vector<int64_t>{static_cast<int64_t>(v.get<double>())}));
            }
            return;
        }
        case Kind::Choice: {
            const bool known = v.is_string() && std::any_of(f.choices.begin(), f.choices.end(),
                                                             [&](const char* s) { return v.get<std::string>() == s; });
            if (!known) fail("one of " + kind_of(f.kind, f.choices));
            f.put(c, v);
            return;
        }
    }
}

// Every field of `c` within its limits (a value built in C++ skips the JSON reader).
template <typename Config>
void check_all(const Table<Config>& table, const Config& c, Naming naming, const char* fn) {
    Config copy = c;
    for (const auto& f : table.fields) check_and_put(f, copy, f.get(c), naming, fn);
}

template <typename Config>
std::string write(const Table<Config>& table, const Config& c, Naming naming) {
    json out = json::object();
    for (const auto& f : table.fields) out[spelled(f.name, naming)] = f.get(c);
    return out.dump();
}

// Any subset of the fields over `c`; unknown names, wrong types and values
// outside a field's limits refused. The caller validates the whole.
template <typename Config>
Config read(const Table<Config>& table, const std::string& text, Naming naming, const char* fn, Config c) {
    const json j = parse_bounded(text, std::string(fn) + ": the " + (std::string(table.noun) == "option" ? "options" : "config"));
    if (j.is_discarded() || !j.is_object()) {
        throw Error(std::string(fn) + ": expected " + (std::string(table.noun) == "option" ? "options" : "a config") +
                    " as a JSON object");
    }
    for (const auto& [key, value] : j.items()) {
        const Field<Config>* f = find_field(table, key, naming);
        if (!f) unknown_field(table, key, naming, fn);
        check_and_put(*f, c, value, naming, fn);
    }
    return c;
}

template <typename Config>
void set_text(const Table<Config>& table, Config& c, const std::string& name, const std::string& value, Naming naming,
              const char* fn) {
    const Field<Config>* f = find_field(table, name, naming);
    if (!f) unknown_field(table, name, naming, fn);
    check_and_put(*f, c, f->nullable && value == "null" ? json(nullptr) : parse_text(f->kind, value), naming, fn);
}

template <typename Config>
std::vector<FieldInfo> list(const Table<Config>& table, const Config& c, Naming naming) {
    std::vector<FieldInfo> out;
    for (const auto& f : table.fields) {
        const json v = f.get(c);
        out.push_back({spelled(f.name, naming), kind_of(f.kind, f.choices), listed(v), f.help});
    }
    return out;
}

}  // namespace attn::schema
