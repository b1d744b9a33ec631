#include "added_vocabulary.hpp"

#include "attn/error.hpp"
#include "unicode_classes.hpp"
#include "utf8.hpp"

#include <algorithm>
#include <unordered_map>

namespace attn {

namespace {
// The code point that ends just before byte `end` of s (0 when none), and where it starts.
char32_t code_point_before(const std::string& s, size_t end, size_t& start) {
    start = end;
    if (end == 0) return 0;
    size_t i = end - 1;
    while (i > 0 && end - i < 4 && (static_cast<unsigned char>(s[i]) & 0xC0) == 0x80) --i;
    int len = 0;
    const char32_t c = utf8_decode_at(reinterpret_cast<const unsigned char*>(s.data()), end, i, len);
    if (len == 0 || i + static_cast<size_t>(len) != end) {  // not UTF-8: one byte of "other"
        start = end - 1;
        return 0xFFFD;
    }
    start = i;
    return c;
}
char32_t code_point_at(const std::string& s, size_t i, size_t& next) {
    int len = 0;
    const char32_t c = utf8_decode_at(reinterpret_cast<const unsigned char*>(s.data()), s.size(), i, len);
    next = i + (len ? static_cast<size_t>(len) : 1);
    return len ? c : 0xFFFD;
}

// Rust regex's \w: [\p{Alphabetic}\p{M}\p{Nd}\p{Pc}\p{Join_Control}]. Alphabetic is the letters and Nl with
// Other_Alphabetic, whose code points are marks (M, here anyway) but for the circled and squared Latin letters (So).
bool is_word(char32_t c) {
    using namespace unicode;
    const Category g = category(c);
    if (g <= Lo || g == Mn || g == Mc || g == Me || g == Nd || g == Nl || g == Pc) return true;
    return c == 0x200C || c == 0x200D || (c >= 0x24B6 && c <= 0x24E9) || (c >= 0x1F130 && c <= 0x1F149) ||
           (c >= 0x1F150 && c <= 0x1F169) || (c >= 0x1F170 && c <= 0x1F189);
}
}  // namespace

AddedVocabulary::AddedVocabulary(std::vector<AddedToken> tokens, const std::function<std::string(const std::string&)>& normalize,
                                 const std::string& where) {
    std::unordered_map<std::string, int32_t> id_of;  // content -> id: a token listed twice is kept once
    std::vector<std::pair<std::string, int32_t>> raw, normalized;
    for (AddedToken& t : tokens) {
        if (t.content.empty()) throw FormatError(where + ": the added token of id " + std::to_string(t.id) + " is empty (it would match everywhere)");
        const auto [it, inserted] = id_of.emplace(t.content, t.id);
        if (!inserted) {
            if (it->second != t.id) {
                throw FormatError(where + ": the added token \"" + t.content.substr(0, 40) + "\" has two ids, " + std::to_string(it->second) +
                                  " and " + std::to_string(t.id));
            }
            continue;
        }
        const size_t index = tokens_.size();
        std::string pattern = t.normalized && normalize ? normalize(t.content) : t.content;
        (t.normalized ? normalized_tokens_ : raw_tokens_).push_back(index);
        (t.normalized ? normalized : raw).emplace_back(pattern, t.id);
        decoded_.push_back(std::move(pattern));
        tokens_.push_back(std::move(t));
    }
    raw_ = SpecialTokens(std::move(raw), where);
    normalized_ = SpecialTokens(std::move(normalized), where);
}

// find_matches of added_vocabulary.rs: the automaton's leftmost-longest matches in order, each kept or dropped
// (single_word) and widened (lstrip, rstrip), with the text between them.
std::vector<AddedVocabulary::Split> AddedVocabulary::split(const std::string& text, const SpecialTokens& trie,
                                                           const std::vector<size_t>& which) const {
    std::vector<Split> out;
    size_t at = 0;  // the end of the last token's span (Rust's start_offset)
    for (const auto& [match_start, index] : trie.find_all(text)) {
        const size_t token = which[static_cast<size_t>(index)];
        const AddedToken& t = tokens_[token];
        size_t start = match_start, stop = match_start + trie.tokens()[static_cast<size_t>(index)].first.size();
        size_t before = 0, after = 0;
        if (t.single_word) {
            const bool word_before = start > 0 && is_word(code_point_before(text, start, before));
            const bool word_after = stop < text.size() && is_word(code_point_at(text, stop, after));
            if (word_before || word_after) continue;
        }
        if (t.lstrip) {
            size_t s = start;
            while (s > 0) {
                const char32_t c = code_point_before(text, s, before);
                if (!unicode::is_white_space(c)) break;
                s = before;
            }
            start = std::max(s, at);
        }
        start = std::min(start, stop);  // a token of whitespace after an rstrip that took it (Rust would panic)
        if (t.rstrip) {
            while (stop < text.size()) {
                const char32_t c = code_point_at(text, stop, after);
                if (!unicode::is_white_space(c)) break;
                stop = after;
            }
        }
        if (at < start) out.push_back({at, start, -1});
        out.push_back({start, stop, static_cast<int32_t>(token)});
        at = stop;
    }
    if (at < text.size()) out.push_back({at, text.size(), -1});
    return out;
}

}  // namespace attn
