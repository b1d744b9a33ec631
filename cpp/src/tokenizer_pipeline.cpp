#include "tokenizer_pipeline.hpp"

#include "attn/tensor.hpp"
#include "unicode_classes.hpp"
#include "unicode_normalization.hpp"
#include "utf8.hpp"

#include <algorithm>
#include <cctype>
#include <optional>

namespace attn {

size_t gpt2_piece_at(const unsigned char* s, size_t n, size_t i);  // bpe_tokenizer.cpp: GPT-2's pattern

namespace {
using json = nlohmann::json;

[[noreturn]] void fail(const std::string& what) { throw FormatError("BPETokenizer: tokenizer.json: " + what); }

// The code points of a text with the byte each starts at (and one past the end): a byte that is not UTF-8 stands
// as U+FFFD, one byte long, so that any bytes split and rejoin unchanged.
struct Decoded {
    std::u32string cps;
    std::vector<size_t> at;  // (cps.size() + 1)
};
Decoded decode_lenient(const std::string& text) {
    Decoded d;
    const auto* s = reinterpret_cast<const unsigned char*>(text.data());
    for (size_t i = 0; i < text.size();) {
        int len = 0;
        const char32_t c = utf8_decode_at(s, text.size(), i, len);
        d.cps.push_back(len ? c : 0xFFFD);
        d.at.push_back(i);
        i += len ? static_cast<size_t>(len) : 1;
    }
    d.at.push_back(text.size());
    return d;
}

// [begin, end) byte spans of a text, each a match of a delimiter or the text between two.
struct Span {
    size_t begin, end;
    bool is_match;
};
std::vector<Span> with_gaps(const std::vector<std::pair<size_t, size_t>>& matches, size_t size) {
    std::vector<Span> out;
    size_t at = 0;
    for (const auto& [b, e] : matches) {
        if (b > at) out.push_back({at, b, false});
        out.push_back({b, e, true});
        at = e;
    }
    if (at < size) out.push_back({at, size, false});
    return out;
}

// The tokenizers library's SplitDelimiterBehavior, as split.rs folds the spans.
std::vector<Span> apply_behavior(std::vector<Span> spans, const std::string& behavior) {
    std::vector<Span> acc;
    if (behavior == "Isolated") return spans;
    if (behavior == "Removed") {
        for (const Span& s : spans) {
            if (!s.is_match) acc.push_back(s);
        }
        return acc;
    }
    bool previous_match = false;
    if (behavior == "MergedWithPrevious" || behavior == "Contiguous") {
        const bool contiguous = behavior == "Contiguous";
        for (const Span& s : spans) {
            const bool merge = contiguous ? s.is_match == previous_match : s.is_match && !previous_match;
            if (merge && !acc.empty()) acc.back().end = s.end;
            else acc.push_back({s.begin, s.end, false});
            previous_match = s.is_match;
        }
        return acc;
    }
    // MergedWithNext: the same fold from the end.
    for (auto it = spans.rbegin(); it != spans.rend(); ++it) {
        if (it->is_match && !previous_match && !acc.empty()) acc.back().begin = it->begin;
        else acc.push_back({it->begin, it->end, false});
        previous_match = it->is_match;
    }
    return {acc.rbegin(), acc.rend()};
}

std::vector<std::pair<size_t, size_t>> string_matches(const std::string& text, const std::string& pattern) {
    std::vector<std::pair<size_t, size_t>> out;
    if (pattern.empty()) return out;
    for (size_t at = text.find(pattern); at != std::string::npos; at = text.find(pattern, at + pattern.size())) {
        out.emplace_back(at, at + pattern.size());
    }
    return out;
}

std::string replace_all(const std::string& text, const std::string& from, const std::string& to) {
    std::string out;
    size_t at = 0;
    for (const auto& [b, e] : string_matches(text, from)) {
        out.append(text, at, b - at);
        out += to;
        at = e;
    }
    return out.append(text, at, std::string::npos);
}

const std::string kMetaspace = "\xE2\x96\x81";  // ▁ U+2581, SentencePiece's space
}  // namespace

struct TokenizerPipeline::Step {
    std::string type;
    std::string text, content;          // Prepend's text; Replace's and Split's string pattern and content
    std::optional<Regex> regex;         // Replace's and Split's regex pattern
    std::string behavior = "Isolated";  // Split
    bool invert = false;
    bool add_prefix_space = false, use_regex = true;  // ByteLevel
    bool individual_digits = false;                   // Digits
    std::string replacement = kMetaspace, prepend_scheme = "always";  // Metaspace
    bool split = true;
    int64_t start = 0, stop = 0;        // Strip

    // Byte spans of the pattern's matches in text (Split, Replace).
    std::vector<std::pair<size_t, size_t>> matches(const std::string& s) const {
        if (!regex) return string_matches(s, text);
        const Decoded d = decode_lenient(s);
        std::vector<std::pair<size_t, size_t>> out;
        for (const auto& [b, e] : regex->find_all(d.cps)) out.emplace_back(d.at[b], d.at[e]);
        return out;
    }
};

namespace {
using Step = TokenizerPipeline::Step;

std::string string_field(const json& j, const char* key, const std::string& where, const std::string& fallback = "") {
    if (!j.contains(key) || j[key].is_null()) return fallback;
    if (!j[key].is_string()) fail(where + "." + key + " is " + j[key].dump().substr(0, 60) + ", expected a string");
    return j[key].get<std::string>();
}
bool bool_field(const json& j, const char* key, const std::string& where, bool fallback) {
    if (!j.contains(key) || j[key].is_null()) return fallback;
    if (!j[key].is_boolean()) fail(where + "." + key + " is " + j[key].dump().substr(0, 60) + ", expected true or false");
    return j[key].get<bool>();
}

// A pattern object {"String": s} or {"Regex": r}.
void read_pattern(const json& j, Step& s, const std::string& where) {
    const json p = j.value("pattern", json());
    if (p.is_object() && p.size() == 1 && p.contains("String") && p["String"].is_string()) {
        s.text = p["String"].get<std::string>();
    } else if (p.is_object() && p.size() == 1 && p.contains("Regex") && p["Regex"].is_string()) {
        s.regex.emplace(p["Regex"].get<std::string>(), "BPETokenizer: tokenizer.json: " + where + ".pattern.Regex");
    } else {
        fail(where + ".pattern is " + p.dump().substr(0, 60) + ", expected {\"String\": …} or {\"Regex\": …}");
    }
}

// One component, or a Sequence's components in order, appended to out.
void read_steps(const json& j, const char* part, const std::string& where, std::vector<std::shared_ptr<const Step>>& out) {
    if (j.is_null()) return;
    if (!j.is_object() || !j.contains("type") || !j["type"].is_string()) fail(where + " is " + j.dump().substr(0, 60) + ", expected an object with a \"type\"");
    const std::string type = j["type"].get<std::string>();
    if (type == "Sequence") {
        const char* key = std::string(part) == "normalizer" ? "normalizers" : std::string(part) == "pre_tokenizer" ? "pretokenizers" : "decoders";
        const json list = j.value(key, json());
        if (!list.is_array()) fail(where + "." + key + " is " + list.dump().substr(0, 60) + ", expected an array");
        for (size_t i = 0; i < list.size(); ++i) read_steps(list[i], part, where + "." + key + "[" + std::to_string(i) + "]", out);
        return;
    }
    auto s = std::make_shared<Step>();
    s->type = type;
    const std::string p(part);
    const auto unknown = [&](const char* known) {
        fail(where + ".type is \"" + type + "\"; this library's " + p + "s are " + known);
    };
    if (p == "normalizer") {
        if (type == "Prepend") {
            s->text = string_field(j, "prepend", where);
        } else if (type == "Replace") {
            read_pattern(j, *s, where);
            s->content = string_field(j, "content", where);
        } else if (type != "NFC" && type != "NFD") {
            unknown("Sequence, NFC, NFD, Prepend and Replace");
        }
    } else if (p == "pre_tokenizer") {
        if (type == "ByteLevel") {
            s->add_prefix_space = bool_field(j, "add_prefix_space", where, false);
            s->use_regex = bool_field(j, "use_regex", where, true);
        } else if (type == "Split") {
            read_pattern(j, *s, where);
            s->behavior = string_field(j, "behavior", where, "Isolated");
            static const char* const kBehaviors[] = {"Isolated", "Removed", "MergedWithPrevious", "MergedWithNext", "Contiguous"};
            if (std::find(std::begin(kBehaviors), std::end(kBehaviors), s->behavior) == std::end(kBehaviors)) {
                fail(where + ".behavior is \"" + s->behavior + "\", expected Isolated, Removed, MergedWithPrevious, MergedWithNext or Contiguous");
            }
            s->invert = bool_field(j, "invert", where, false);
        } else if (type == "Digits") {
            s->individual_digits = bool_field(j, "individual_digits", where, false);
        } else if (type == "Metaspace") {
            s->replacement = string_field(j, "replacement", where, kMetaspace);
            // Older files say add_prefix_space; newer ones prepend_scheme.
            s->prepend_scheme = string_field(j, "prepend_scheme", where, bool_field(j, "add_prefix_space", where, true) ? "always" : "never");
            if (s->prepend_scheme != "always" && s->prepend_scheme != "first" && s->prepend_scheme != "never") {
                fail(where + ".prepend_scheme is \"" + s->prepend_scheme + "\", expected always, first or never");
            }
            s->split = bool_field(j, "split", where, true);
        } else {
            unknown("Sequence, ByteLevel, Split, Digits and Metaspace");
        }
    } else {
        if (type == "Replace") {
            read_pattern(j, *s, where);
            if (s->regex) fail(where + ".pattern is a Regex; this library's Replace decoder takes a String");
            s->content = string_field(j, "content", where);
        } else if (type == "Strip") {
            s->content = string_field(j, "content", where, " ");
            for (const char* key : {"start", "stop"}) {
                const json v = j.value(key, json(0));
                if (!v.is_number_unsigned() || v.get<uint64_t>() > 1000) fail(where + "." + key + " is " + v.dump().substr(0, 40) + ", expected a count");
                (std::string(key) == "start" ? s->start : s->stop) = v.get<int64_t>();
            }
        } else if (type == "Metaspace") {
            s->replacement = string_field(j, "replacement", where, kMetaspace);
            s->prepend_scheme = string_field(j, "prepend_scheme", where, bool_field(j, "add_prefix_space", where, true) ? "always" : "never");
        } else if (type != "ByteLevel" && type != "ByteFallback" && type != "Fuse") {
            unknown("Sequence, ByteLevel, Replace, ByteFallback, Fuse, Strip and Metaspace");
        }
    }
    out.push_back(std::move(s));
}
}  // namespace

TokenizerPipeline TokenizerPipeline::from_json(const json& j) {
    TokenizerPipeline p;
    read_steps(j.value("normalizer", json()), "normalizer", "normalizer", p.normalizers);
    read_steps(j.value("pre_tokenizer", json()), "pre_tokenizer", "pre_tokenizer", p.pre_tokenizers);
    read_steps(j.value("decoder", json()), "decoder", "decoder", p.decoders);
    p.has_decoder = j.contains("decoder") && !j["decoder"].is_null();
    for (const auto& s : p.pre_tokenizers) p.byte_level = p.byte_level || s->type == "ByteLevel";
    return p;
}

std::string TokenizerPipeline::normalize(const std::string& text) const {
    std::string out = text;
    for (const auto& s : normalizers) {
        if (s->type == "NFC") {
            out = nfc(out);
        } else if (s->type == "NFD") {
            out = nfd(out);
        } else if (s->type == "Prepend") {
            if (!out.empty()) out = s->text + out;
        } else if (s->regex) {  // Replace
            std::string replaced;
            size_t at = 0;
            for (const auto& [b, e] : s->matches(out)) {
                replaced.append(out, at, b - at);
                replaced += s->content;
                at = e;
            }
            out = replaced.append(out, at, std::string::npos);
        } else {
            out = replace_all(out, s->text, s->content);
        }
    }
    return out;
}

void TokenizerPipeline::pre_tokenize(const std::string& text, std::vector<std::string>& out, bool at_start) const {
    std::vector<std::string> pieces{text};
    std::vector<bool> first{at_start};  // does each piece start the text (Metaspace's "first")
    for (const auto& s : pre_tokenizers) {
        std::vector<std::string> next;
        std::vector<bool> next_first;
        for (size_t k = 0; k < pieces.size(); ++k) {
            std::string piece = pieces[k];
            const auto emit = [&](const std::vector<Span>& spans) {
                for (const Span& sp : spans) {
                    if (sp.end == sp.begin) continue;
                    next.push_back(piece.substr(sp.begin, sp.end - sp.begin));
                    next_first.push_back(first[k] && sp.begin == 0);
                }
            };
            if (s->type == "ByteLevel") {
                if (s->add_prefix_space && piece.rfind(' ', 0) != 0) piece = " " + piece;
                if (!s->use_regex) {
                    emit({{0, piece.size(), false}});
                    continue;
                }
                std::vector<Span> spans;
                const auto* b = reinterpret_cast<const unsigned char*>(piece.data());
                for (size_t i = 0; i < piece.size();) {
                    const size_t len = gpt2_piece_at(b, piece.size(), i);
                    spans.push_back({i, i + len, false});
                    i += len;
                }
                emit(spans);
            } else if (s->type == "Split") {
                std::vector<Span> spans = with_gaps(s->matches(piece), piece.size());
                if (s->invert) {
                    for (Span& sp : spans) sp.is_match = !sp.is_match;
                }
                emit(apply_behavior(std::move(spans), s->behavior));
            } else if (s->type == "Digits") {
                const Decoded d = decode_lenient(piece);
                std::vector<std::pair<size_t, size_t>> digits;
                for (size_t i = 0; i < d.cps.size(); ++i) {
                    if (unicode::is_number(d.cps[i])) digits.emplace_back(d.at[i], d.at[i + 1]);
                }
                emit(apply_behavior(with_gaps(digits, piece.size()), s->individual_digits ? "Isolated" : "Contiguous"));
            } else {  // Metaspace
                piece = replace_all(piece, " ", s->replacement);
                const bool prepend = s->prepend_scheme == "always" || (s->prepend_scheme == "first" && first[k]);
                if (prepend && piece.rfind(s->replacement, 0) != 0) piece = s->replacement + piece;
                if (!s->split) {
                    emit({{0, piece.size(), false}});
                    continue;
                }
                emit(apply_behavior(with_gaps(string_matches(piece, s->replacement), piece.size()), "MergedWithNext"));
            }
        }
        pieces = std::move(next);
        first = std::move(next_first);
    }
    for (std::string& p : pieces) {
        if (!p.empty()) out.push_back(std::move(p));
    }
}

std::string TokenizerPipeline::decode(std::vector<std::string> tokens) const {
    if (!has_decoder) {  // the tokenizers library joins the tokens with spaces when a file has no decoder
        std::string out;
        for (size_t i = 0; i < tokens.size(); ++i) out += (i ? " " : "") + tokens[i];
        return out;
    }
    for (const auto& s : decoders) {
        if (s->type == "ByteLevel") continue;  // byte-level tokens are kept as their bytes already
        if (s->type == "Replace") {
            for (std::string& t : tokens) t = replace_all(t, s->text, s->content);
        } else if (s->type == "ByteFallback") {
            // "<0x41>" is the byte 0x41; a run of them is the bytes they spell.
            for (std::string& t : tokens) {
                if (t.size() == 6 && t.compare(0, 3, "<0x") == 0 && t[5] == '>' && std::isxdigit(static_cast<unsigned char>(t[3])) &&
                    std::isxdigit(static_cast<unsigned char>(t[4]))) {
                    t = std::string(1, static_cast<char>(std::stoi(t.substr(3, 2), nullptr, 16)));
                }
            }
        } else if (s->type == "Fuse") {
            std::string all;
            for (const std::string& t : tokens) all += t;
            tokens = {all};
        } else if (s->type == "Strip") {
            for (std::string& t : tokens) {
                for (int64_t k = 0; k < s->start && t.rfind(s->content, 0) == 0 && !s->content.empty(); ++k) t.erase(0, s->content.size());
                for (int64_t k = 0; k < s->stop && !s->content.empty() && t.size() >= s->content.size() &&
                                    t.compare(t.size() - s->content.size(), s->content.size(), s->content) == 0; ++k) {
                    t.erase(t.size() - s->content.size());
                }
            }
        } else {  // Metaspace
            for (size_t i = 0; i < tokens.size(); ++i) {
                tokens[i] = replace_all(tokens[i], s->replacement, " ");
                if (i == 0 && s->prepend_scheme != "never" && tokens[i].rfind(' ', 0) == 0) tokens[i].erase(0, 1);
            }
        }
    }
    std::string out;
    for (const std::string& t : tokens) out += t;
    return out;
}

}  // namespace attn
