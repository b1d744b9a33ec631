#include "attn/tokenizer.hpp"

#include "attn/tensor.hpp"

#include <algorithm>
#include <cstdio>
#include <set>
#include <string_view>

#include "json_limits.hpp"
#include "utf8.hpp"

#include <nlohmann/json.hpp>

namespace attn {

namespace {
[[noreturn, gnu::noinline, gnu::cold]] void throw_invalid_utf8(const char* fn, size_t i) {
    throw Error(std::string(fn) + ": invalid UTF-8 at byte " + std::to_string(i));
}

// The code point that starts at byte i of s (n bytes), and its length in bytes; Error on invalid UTF-8.
// Inlined into the loops over a text, its error thrown from a function of its own: in the threaded WebAssembly
// build, whose C++ exceptions are Emscripten's JS-based ones, every call that may throw inside a frame with
// something to destroy goes out through a JS trampoline, and a call per character made building a word
// vocabulary take twice as long there (39 ms against 20 on the 1.1 MB agreement corpus).
inline char32_t decode_at(const unsigned char* s, size_t n, size_t i, int& len, const char* fn) {
    const char32_t c = utf8_decode_at(s, n, i, len);
    if (len == 0) throw_invalid_utf8(fn, i);
    return c;
}
}  // namespace

std::vector<char32_t> utf8_decode(const std::string& text, const char* fn) {
    std::vector<char32_t> out;
    const auto* s = reinterpret_cast<const unsigned char*>(text.data());
    for (size_t i = 0; i < text.size();) {
        int len = 0;
        out.push_back(decode_at(s, text.size(), i, len, fn));
        i += static_cast<size_t>(len);
    }
    return out;
}

void utf8_append(std::string& out, char32_t c) {
    if (c < 0x80) {
        out += static_cast<char>(c);
    } else if (c < 0x800) {
        out += static_cast<char>(0xC0 | (c >> 6));
        out += static_cast<char>(0x80 | (c & 0x3F));
    } else if (c < 0x10000) {
        out += static_cast<char>(0xE0 | (c >> 12));
        out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (c & 0x3F));
    } else {
        out += static_cast<char>(0xF0 | (c >> 18));
        out += static_cast<char>(0x80 | ((c >> 12) & 0x3F));
        out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (c & 0x3F));
    }
}

const char* tokenizer_kind_name(TokenizerKind kind) { return kind == TokenizerKind::Char ? "char" : "word"; }

TokenizerKind parse_tokenizer_kind(const std::string& name, const char* fn) {
    if (name == "char") return TokenizerKind::Char;
    if (name == "word") return TokenizerKind::Word;
    throw Error(std::string(fn) + ": expected the tokenizer \"char\" or \"word\", got \"" + name + "\"");
}

namespace {
const char* class_name(TokenizerKind kind) { return kind == TokenizerKind::Char ? "CharTokenizer" : "WordTokenizer"; }
const char* unit_name(TokenizerKind kind) { return kind == TokenizerKind::Char ? "characters" : "words"; }

bool is_space(char32_t c) { return c == ' ' || c == '\n' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }
// Letters and digits make words. Outside ASCII every character from U+00C0 on
// counts as a letter except the ranges of punctuation and symbols, so that
// "façade" and "naïve" stay one word and "—" does not join two.
bool is_word_char(char32_t c) {
    if (c < 0x80) return (c >= '0' && c <= '9') || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z');
    if (c < 0xC0 || c == 0xD7 || c == 0xF7) return false;
    return !(c >= 0x2000 && c <= 0x2BFF) && !(c >= 0x3000 && c <= 0x303F);
}
}  // namespace

namespace {
// Calls f(piece) for each piece of the text in order, every piece a view into
// `text` (a piece is a run of bytes: one character, or a word with the space
// before it): nothing is copied, so splitting a corpus costs no memory of its own
// (a std::string per character made training text cost ~85× its size).
template <typename F>
void for_each_piece(TokenizerKind kind, const std::string& text, const char* fn, F&& f) {
    const auto* s = reinterpret_cast<const unsigned char*>(text.data());
    const size_t n = text.size();
    int len = 0;
    for (size_t i = 0; i < n;) {
        const size_t start = i;
        char32_t c = decode_at(s, n, i, len, fn);
        i += static_cast<size_t>(len);
        if (kind == TokenizerKind::Word && c == ' ' && i < n) {
            int next_len = 0;
            const char32_t next = decode_at(s, n, i, next_len, fn);
            if (!is_space(next)) {  // the space belongs to the word after it
                c = next;
                i += static_cast<size_t>(next_len);
            }
        }
        if (kind == TokenizerKind::Word && is_word_char(c)) {
            while (i < n) {
                const char32_t next = decode_at(s, n, i, len, fn);
                if (!is_word_char(next)) break;
                i += static_cast<size_t>(len);
            }
        }
        f(std::string_view(text.data() + start, i - start));
    }
}
}  // namespace

std::vector<std::string> split_pieces(TokenizerKind kind, const std::string& text, const char* fn) {
    std::vector<std::string> out;
    for_each_piece(kind, text, fn, [&](std::string_view piece) { out.emplace_back(piece); });
    return out;
}

Tokenizer::Tokenizer(TokenizerKind kind, const std::string& text) : kind_(kind) {
    std::set<std::string_view> unique;  // views into text: a piece is copied once, into the vocabulary
    for_each_piece(kind, text, class_name(kind), [&](std::string_view piece) {
        if (unique.insert(piece).second && static_cast<int64_t>(unique.size()) > kMaxVocabulary) {
            throw Error(std::string(class_name(kind)) + ": the text has more than " + std::to_string(kMaxVocabulary) +
                        " distinct " + unit_name(kind) + ", the library's limit for a vocabulary" +
                        (kind == TokenizerKind::Word ? "; use character tokens" : ""));
        }
    });
    if (unique.empty()) {
        throw Error(std::string(class_name(kind)) + ": expected a non-empty text to build the vocabulary from, got \"\"");
    }
    pieces_.assign(unique.begin(), unique.end());  // sorted
}

Tokenizer Tokenizer::from_vocabulary(TokenizerKind kind, const std::string& vocabulary, const char* fn) {
    std::vector<std::string> pieces;
    if (kind == TokenizerKind::Char) {
        pieces = split_pieces(kind, vocabulary, fn);
    } else {
        const nlohmann::json j = parse_bounded(vocabulary, std::string(fn) + ": the vocabulary");
        if (!j.is_array()) throw Error(std::string(fn) + ": a word vocabulary must be a JSON array of strings");
        for (const nlohmann::json& p : j) {
            if (!p.is_string()) throw Error(std::string(fn) + ": a word vocabulary must be a JSON array of strings");
            const std::string piece = p.get<std::string>();
            if (split_pieces(kind, piece, fn).size() != 1) {
                throw Error(std::string(fn) + ": \"" + piece + "\" is not a single word piece");
            }
            pieces.push_back(piece);
        }
    }
    if (pieces.empty()) throw Error(std::string(fn) + ": expected a non-empty vocabulary");
    if (static_cast<int64_t>(pieces.size()) > kMaxVocabulary) {
        throw Error(std::string(fn) + ": a vocabulary holds at most " + std::to_string(kMaxVocabulary) + " pieces, got " +
                    std::to_string(pieces.size()));
    }
    for (size_t i = 1; i < pieces.size(); ++i) {
        if (!(pieces[i - 1] < pieces[i])) {
            throw Error(std::string(fn) + ": a vocabulary must list distinct " + unit_name(kind) + " in sorted order");
        }
    }
    return Tokenizer(kind, std::move(pieces));
}

std::vector<int64_t> Tokenizer::encode(const std::string& text) const { return encode_as<int64_t>(text); }
std::vector<int32_t> Tokenizer::encode_corpus(const std::string& text) const { return encode_as<int32_t>(text); }

template <typename Id>
std::vector<Id> Tokenizer::encode_as(const std::string& text) const {
    const std::string fn = std::string(class_name(kind_)) + ".encode";
    // Counted first, so that the ids are allocated once at their size (growing a vector doubles it, and while it
    // moves both copies are held).
    size_t count = 0;
    for_each_piece(kind_, text, fn.c_str(), [&](std::string_view) { ++count; });
    std::vector<Id> ids;
    ids.reserve(count);
    for_each_piece(kind_, text, fn.c_str(), [&](std::string_view piece) {
        const auto it = std::lower_bound(pieces_.begin(), pieces_.end(), piece,
                                         [](const std::string& a, std::string_view b) { return std::string_view(a) < b; });
        if (it == pieces_.end() || std::string_view(*it) != piece) {
            std::string what = "word '" + std::string(piece) + "'";
            if (kind_ == TokenizerKind::Char) {
                char code[16];
                std::snprintf(code, sizeof code, "U+%04X", static_cast<unsigned>(utf8_decode(std::string(piece), fn.c_str())[0]));
                what = "character '" + std::string(piece) + "' (" + code + ")";
            }
            throw Error(fn + ": " + what + " at position " + std::to_string(ids.size()) + " is not in the vocabulary of " +
                        std::to_string(pieces_.size()) + " " + unit_name(kind_));
        }
        ids.push_back(static_cast<Id>(it - pieces_.begin()));
    });
    return ids;
}

std::string Tokenizer::decode(const std::vector<int64_t>& ids) const {
    std::string out;
    for (size_t i = 0; i < ids.size(); ++i) {
        if (ids[i] < 0 || ids[i] >= vocab_size()) {
            throw Error(std::string(class_name(kind_)) + ".decode: expected ids in [0, " + std::to_string(vocab_size()) +
                        "), got " + std::to_string(ids[i]) + " at index " + std::to_string(i));
        }
        out += pieces_[static_cast<size_t>(ids[i])];
    }
    return out;
}

std::string Tokenizer::vocabulary() const {
    if (kind_ == TokenizerKind::Word) return nlohmann::json(pieces_).dump();
    std::string out;
    for (const std::string& p : pieces_) out += p;
    return out;
}

}  // namespace attn
