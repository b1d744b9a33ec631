#include "attn/tokenizer.hpp"

#include "attn/tensor.hpp"

#include <algorithm>
#include <cstdio>

#include "json_limits.hpp"

#include <nlohmann/json.hpp>

namespace attn {

std::vector<char32_t> utf8_decode(const std::string& text, const char* fn) {
    std::vector<char32_t> out;
    out.reserve(text.size());
    const auto* s = reinterpret_cast<const unsigned char*>(text.data());
    const size_t n = text.size();
    for (size_t i = 0; i < n;) {
        const unsigned char b = s[i];
        int len = b < 0x80 ? 1 : (b >> 5) == 0x6 ? 2 : (b >> 4) == 0xE ? 3 : (b >> 3) == 0x1E ? 4 : 0;
        char32_t c = len == 1 ? b : len == 2 ? (b & 0x1F) : len == 3 ? (b & 0x0F) : (b & 0x07);
        bool ok = len > 0 && i + static_cast<size_t>(len) <= n;
        for (int k = 1; ok && k < len; ++k) {
            ok = (s[i + static_cast<size_t>(k)] & 0xC0) == 0x80;
            c = (c << 6) | (s[i + static_cast<size_t>(k)] & 0x3F);
        }
        // Reject overlong forms, surrogates and values past U+10FFFF.
        static constexpr char32_t kMin[5] = {0, 0, 0x80, 0x800, 0x10000};
        if (!ok || c < kMin[len] || (c >= 0xD800 && c <= 0xDFFF) || c > 0x10FFFF) {
            throw Error(std::string(fn) + ": invalid UTF-8 at byte " + std::to_string(i));
        }
        out.push_back(c);
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

std::vector<std::string> split_pieces(TokenizerKind kind, const std::string& text, const char* fn) {
    const std::vector<char32_t> cs = utf8_decode(text, fn);
    std::vector<std::string> out;
    const size_t n = cs.size();
    for (size_t i = 0; i < n;) {
        std::string piece;
        if (kind == TokenizerKind::Word && cs[i] == ' ' && i + 1 < n && !is_space(cs[i + 1])) {
            piece = " ";  // the space belongs to the word after it
            ++i;
        }
        utf8_append(piece, cs[i]);
        if (kind == TokenizerKind::Word && is_word_char(cs[i])) {
            while (i + 1 < n && is_word_char(cs[i + 1])) utf8_append(piece, cs[++i]);
        }
        ++i;
        out.push_back(std::move(piece));
    }
    return out;
}

Tokenizer::Tokenizer(TokenizerKind kind, const std::string& text)
    : kind_(kind), pieces_(split_pieces(kind, text, class_name(kind))) {
    if (pieces_.empty()) {
        throw Error(std::string(class_name(kind)) + ": expected a non-empty text to build the vocabulary from, got \"\"");
    }
    std::sort(pieces_.begin(), pieces_.end());
    pieces_.erase(std::unique(pieces_.begin(), pieces_.end()), pieces_.end());
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
    for (size_t i = 1; i < pieces.size(); ++i) {
        if (!(pieces[i - 1] < pieces[i])) {
            throw Error(std::string(fn) + ": a vocabulary must list distinct " + unit_name(kind) + " in sorted order");
        }
    }
    return Tokenizer(kind, std::move(pieces));
}

std::vector<int64_t> Tokenizer::encode(const std::string& text) const {
    const std::string fn = std::string(class_name(kind_)) + ".encode";
    const std::vector<std::string> pieces = split_pieces(kind_, text, fn.c_str());
    std::vector<int64_t> ids;
    ids.reserve(pieces.size());
    for (size_t i = 0; i < pieces.size(); ++i) {
        const auto it = std::lower_bound(pieces_.begin(), pieces_.end(), pieces[i]);
        if (it == pieces_.end() || *it != pieces[i]) {
            std::string what = "word '" + pieces[i] + "'";
            if (kind_ == TokenizerKind::Char) {
                char code[16];
                std::snprintf(code, sizeof code, "U+%04X", static_cast<unsigned>(utf8_decode(pieces[i], fn.c_str())[0]));
                what = "character '" + pieces[i] + "' (" + code + ")";
            }
            throw Error(fn + ": " + what + " at position " + std::to_string(i) + " is not in the vocabulary of " +
                        std::to_string(pieces_.size()) + " " + unit_name(kind_));
        }
        ids.push_back(it - pieces_.begin());
    }
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
