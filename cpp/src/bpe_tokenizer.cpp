#include "attn/bpe_tokenizer.hpp"

#include "attn/tensor.hpp"
#include "attn/tokenizer.hpp"
#include "json_limits.hpp"
#include "tokenizer_json.hpp"
#include "tokenizer_pipeline.hpp"
#include "unicode_classes.hpp"
#include "utf8.hpp"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <queue>
#include <string_view>

#include <nlohmann/json.hpp>

namespace attn {

namespace {
using json = nlohmann::json;

// encoder.py's bytes_to_unicode: the printable bytes stand for themselves, the others (control characters, the
// space, …) for the code points from U+0100 on, in byte order, so that vocab.json and merges.txt are readable text.
struct ByteAlphabet {
    std::array<char32_t, 256> of_byte{};
    std::unordered_map<char32_t, unsigned char> to_byte;
    ByteAlphabet() {
        char32_t next = 256;
        for (int b = 0; b < 256; ++b) {
            const bool printable = (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE && b <= 0xFF);
            of_byte[static_cast<size_t>(b)] = printable ? static_cast<char32_t>(b) : next++;
            to_byte[of_byte[static_cast<size_t>(b)]] = static_cast<unsigned char>(b);
        }
    }
};
const ByteAlphabet& alphabet() {
    static const ByteAlphabet a;
    return a;
}

// A token as vocab.json spells it, back to its bytes.
std::string token_to_bytes(const std::string& spelled, const std::string& where) {
    std::string out;
    for (char32_t c : utf8_decode(spelled, ("BPETokenizer: " + where).c_str())) {
        const auto it = alphabet().to_byte.find(c);
        if (it == alphabet().to_byte.end()) {
            throw FormatError("BPETokenizer: " + where + ": the token \"" + spelled.substr(0, 40) + "\" holds a character that is not one of the 256 that stand for bytes");
        }
        out += static_cast<char>(it->second);
    }
    return out;
}

// The code point at byte i and its length; a byte that does not start valid UTF-8 is one piece of "other" text.
enum class Class { Letter, Number, Space, Other };
struct Char {
    Class cls;
    bool is_space_char;  // U+0020, the optional space of " ?\p{L}+"
    size_t len;
};
Char char_at(const unsigned char* s, size_t n, size_t i) {
    const unsigned char b = s[i];
    if (b < 0x80) {
        const Class cls = (b >= 'a' && b <= 'z') || (b >= 'A' && b <= 'Z') ? Class::Letter
                          : (b >= '0' && b <= '9')                         ? Class::Number
                          : (b == ' ' || (b >= 0x09 && b <= 0x0D))         ? Class::Space
                                                                           : Class::Other;
        return {cls, b == ' ', 1};
    }
    int len = 0;
    const char32_t c = utf8_decode_at(s, n, i, len);
    if (len == 0) return {Class::Other, false, 1};
    const Class cls = unicode::is_letter(c) ? Class::Letter
                      : unicode::is_number(c) ? Class::Number
                      : unicode::is_space(c)  ? Class::Space
                                              : Class::Other;
    return {cls, false, static_cast<size_t>(len)};
}

}  // namespace

// The length of the piece GPT-2's pattern matches at byte i: its alternatives in order (see the header). Also
// ByteLevel's pattern in a tokenizer.json (tokenizer_pipeline.cpp).
size_t gpt2_piece_at(const unsigned char* s, size_t n, size_t i) {
    if (s[i] == '\'' && i + 1 < n) {  // 's 't 're 've 'm 'll 'd
        const char a = static_cast<char>(s[i + 1]), b = i + 2 < n ? static_cast<char>(s[i + 2]) : '\0';
        if (a == 's' || a == 't' || a == 'm' || a == 'd') return 2;
        if ((a == 'r' && b == 'e') || (a == 'v' && b == 'e') || (a == 'l' && b == 'l')) return 3;
    }
    const Char first = char_at(s, n, i);
    // " ?\p{L}+", " ?\p{N}+", " ?[^\s\p{L}\p{N}]+": a run of one class, with the space before it.
    size_t j = i;
    Class run = first.cls;
    if (first.is_space_char && i + 1 < n) {
        const Class next = char_at(s, n, i + 1).cls;
        if (next != Class::Space) {
            j = i + 1;
            run = next;
        }
    }
    if (run != Class::Space) {
        while (j < n) {
            const Char c = char_at(s, n, j);
            if (c.cls != run) break;
            j += c.len;
        }
        return j - i;
    }
    // "\s+(?!\S)|\s+": a run of whitespace; when a non-space follows, its last character is left to start the
    // next piece (" world" keeps its space), unless the run is that one character.
    size_t end = i, last = i;
    while (end < n) {
        const Char c = char_at(s, n, end);
        if (c.cls != Class::Space) break;
        last = end;
        end += c.len;
    }
    if (end < n && last > i) return last - i;
    return end - i;
}

namespace {
// A text to encode is at most kMaxElements bytes (256 MiB): its pieces are indexed by 32-bit starts, and encoding
// costs ~28 bytes a byte of the longest piece while it runs.
void check_text_size(const std::string& text, const char* fn) {
    if (text.size() > static_cast<size_t>(kMaxElements)) {
        throw Error(std::string(fn) + ": expected a text of at most " + std::to_string(kMaxElements) + " bytes, got " + std::to_string(text.size()));
    }
}

int32_t to_id(const json& id, const std::string& where) {
    if (!id.is_number_unsigned() || id.get<uint64_t>() >= static_cast<uint64_t>(kMaxVocabulary)) {
        throw FormatError("BPETokenizer: " + where + " must be an id in [0, " + std::to_string(kMaxVocabulary) + "), got " + id.dump().substr(0, 40));
    }
    return static_cast<int32_t>(id.get<uint64_t>());
}
}  // namespace

void BPETokenizer::add_merge(int32_t left, int32_t right, int32_t rank, const std::string& where) {
    const auto merged = ids_.find(bytes_[static_cast<size_t>(left)] + bytes_[static_cast<size_t>(right)]);
    if (merged == ids_.end()) throw FormatError("BPETokenizer: " + where + ": the merged token is not in the vocabulary");
    // A pair listed twice keeps its first (lowest) rank, as a dict built from merges.txt would.
    merges_.emplace((static_cast<uint64_t>(left) << 32) | static_cast<uint32_t>(right), Merge{rank, merged->second});
}

// Checks the vocabulary is complete (ids 0..V-1, every byte a token) and finds the special tokens.
void BPETokenizer::finish(const std::string& where) {
    if (bytes_.empty()) throw FormatError("BPETokenizer: " + where + ": the vocabulary is empty");
    for (int b = 0; b < 256; ++b) {
        const auto it = ids_.find(std::string(1, static_cast<char>(b)));
        if (it == ids_.end()) {
            throw FormatError("BPETokenizer: " + where + ": the vocabulary has no token for the byte " + std::to_string(b) + " (not a byte-level BPE)");
        }
        byte_ids_[static_cast<size_t>(b)] = it->second;
    }
}

BPETokenizer BPETokenizer::from_files(const std::string& vocab_json, const std::string& merges_txt) {
    BPETokenizer t;
    const json vocab = parse_bounded(vocab_json, "BPETokenizer: vocab.json");
    if (vocab.is_discarded()) throw FormatError("BPETokenizer: vocab.json is not valid JSON");
    if (!vocab.is_object()) throw FormatError("BPETokenizer: vocab.json: expected a JSON object {\"token\": id}, got " + std::string(vocab.type_name()));
    if (static_cast<int64_t>(vocab.size()) > kMaxVocabulary) {
        throw FormatError("BPETokenizer: vocab.json: a vocabulary holds at most " + std::to_string(kMaxVocabulary) + " tokens, got " + std::to_string(vocab.size()));
    }
    t.bytes_.assign(vocab.size(), std::string());
    std::vector<bool> seen(vocab.size(), false);
    std::vector<std::pair<std::string, int32_t>> special;
    for (const auto& [spelled, id_j] : vocab.items()) {
        const std::string where = "vocab.json: the id of \"" + spelled.substr(0, 40) + "\"";
        const int32_t id = to_id(id_j, where);
        if (static_cast<size_t>(id) >= vocab.size() || seen[static_cast<size_t>(id)]) {
            throw FormatError("BPETokenizer: " + where + " is " + std::to_string(id) + ": the ids must be 0 to " + std::to_string(vocab.size() - 1) + ", each once");
        }
        seen[static_cast<size_t>(id)] = true;
        std::string bytes = token_to_bytes(spelled, "vocab.json");
        if (!t.ids_.emplace(bytes, id).second) throw FormatError("BPETokenizer: vocab.json: two tokens stand for the same bytes \"" + spelled.substr(0, 40) + "\"");
        t.bytes_[static_cast<size_t>(id)] = std::move(bytes);
        if (spelled.size() > 4 && spelled.rfind("<|", 0) == 0 && spelled.compare(spelled.size() - 2, 2, "|>") == 0) {
            special.emplace_back(spelled, id);
        }
    }
    int32_t rank = 0;
    size_t line_no = 0;
    for (size_t at = 0; at < merges_txt.size();) {
        size_t end = merges_txt.find('\n', at);
        if (end == std::string::npos) end = merges_txt.size();
        std::string line = merges_txt.substr(at, end - at);
        at = end + 1;
        ++line_no;
        if (!line.empty() && line.back() == '\r') line.pop_back();
        if (line.empty() || (line_no == 1 && line.rfind("#version", 0) == 0)) continue;
        const std::string where = "merges.txt line " + std::to_string(line_no);
        const size_t space = line.find(' ');
        if (space == std::string::npos || space == 0 || space + 1 == line.size() || line.find(' ', space + 1) != std::string::npos) {
            throw FormatError("BPETokenizer: " + where + ": expected two tokens separated by one space, got \"" + line.substr(0, 40) + "\"");
        }
        int32_t pair[2];
        const std::string halves[2] = {line.substr(0, space), line.substr(space + 1)};
        for (int k = 0; k < 2; ++k) {
            const auto it = t.ids_.find(token_to_bytes(halves[k], where));
            if (it == t.ids_.end()) throw FormatError("BPETokenizer: " + where + ": \"" + halves[k].substr(0, 40) + "\" is not in vocab.json");
            pair[k] = it->second;
        }
        t.add_merge(pair[0], pair[1], rank++, where);
    }
    t.finish("vocab.json");
    t.special_ = SpecialTokens(std::move(special), "BPETokenizer: vocab.json");
    return t;
}

BPETokenizer BPETokenizer::from_tokenizer_json(const std::string& text) {
    return from_tokenizer_json(TokenizerJson{parse_bounded(text, "BPETokenizer: tokenizer.json", kMaxTokenizerJsonValues)});
}

BPETokenizer BPETokenizer::from_tokenizer_json(const TokenizerJson& parsed) {
    const json& j = parsed.value;
    const auto fail = [](const std::string& what) { throw FormatError("BPETokenizer: tokenizer.json: " + what); };
    const auto need = [&](const json& parent, const char* key, const char* where) -> const json& {
        if (!parent.is_object() || !parent.contains(key)) fail(std::string(where) + " has no \"" + key + "\"");
        return parent[key];
    };
    if (j.is_discarded()) throw FormatError("BPETokenizer: tokenizer.json is not valid JSON");
    const json& model = need(j, "model", "the file");
    const json& type = need(model, "type", "model");
    if (type != "BPE") fail("model.type is " + type.dump().substr(0, 40) + ", expected \"BPE\"");
    for (const char* key : {"dropout", "continuing_subword_prefix", "end_of_word_suffix"}) {
        const json v = model.value(key, json());
        if (!v.is_null() && v != json(0.0) && v != json("")) fail("model." + std::string(key) + " is " + v.dump().substr(0, 40) + ", which this library's BPE does not do (expected null)");
    }
    auto pipeline = std::make_shared<TokenizerPipeline>(TokenizerPipeline::from_json(j));
    const json& vocab = need(model, "vocab", "model");
    if (!vocab.is_object()) fail("model.vocab must be an object {\"token\": id}");
    // Merges as GPT-2's merges.txt spells them; a pair whose halves hold spaces (possible in a text vocabulary)
    // is kept as a pair.
    std::vector<std::pair<std::string, std::string>> merges;
    for (const json& m : need(model, "merges", "model")) {
        if (m.is_string()) {
            const std::string line = m.get<std::string>();
            const size_t space = line.find(' ');
            if (space == std::string::npos) fail("model.merges holds \"" + line.substr(0, 40) + "\", expected \"left right\"");
            merges.emplace_back(line.substr(0, space), line.substr(space + 1));
        } else if (m.is_array() && m.size() == 2 && m[0].is_string() && m[1].is_string()) {
            merges.emplace_back(m[0].get<std::string>(), m[1].get<std::string>());
        } else {
            fail("model.merges holds " + m.dump().substr(0, 40) + ", expected \"left right\" or [\"left\", \"right\"]");
        }
    }
    // The vocabulary: model.vocab's ids, and added_tokens' beyond them (Llama 3 lists its 256 special tokens there
    // only); an id neither names stays an empty token, as cl100k_base's unused ids are.
    const json added = j.contains("added_tokens") && j["added_tokens"].is_array() ? j["added_tokens"] : json::array();
    int64_t size = 0;
    for (const auto& [spelled, id_j] : vocab.items()) size = std::max<int64_t>(size, to_id(id_j, "tokenizer.json: the id of \"" + spelled.substr(0, 40) + "\"") + 1);
    for (const json& a : added) {
        if (a.is_object() && a.contains("id")) size = std::max<int64_t>(size, to_id(a["id"], "tokenizer.json: an added token's id") + 1);
    }
    if (size > kMaxVocabulary) fail("a vocabulary holds at most " + std::to_string(kMaxVocabulary) + " tokens, got ids up to " + std::to_string(size - 1));
    BPETokenizer t;
    t.byte_level_ = pipeline->byte_level;
    t.bytes_.assign(static_cast<size_t>(size), std::string());
    std::vector<bool> seen(static_cast<size_t>(size), false);
    for (const auto& [spelled, id_j] : vocab.items()) {
        const auto id = static_cast<size_t>(id_j.get<int64_t>());
        if (seen[id]) fail("model.vocab gives the id " + std::to_string(id) + " twice (\"" + spelled.substr(0, 40) + "\")");
        seen[id] = true;
        // A byte-level vocabulary spells bytes in GPT-2's alphabet; a text one is its strings.
        std::string bytes = t.byte_level_ ? token_to_bytes(spelled, "tokenizer.json") : spelled;
        if (!t.ids_.emplace(bytes, static_cast<int32_t>(id)).second) fail("two tokens of model.vocab stand for the same bytes \"" + spelled.substr(0, 40) + "\"");
        t.bytes_[id] = std::move(bytes);
    }
    for (size_t r = 0; r < merges.size(); ++r) {
        const std::string where = "tokenizer.json: model.merges[" + std::to_string(r) + "]";
        int32_t pair[2];
        const std::string* halves[2] = {&merges[r].first, &merges[r].second};
        for (int k = 0; k < 2; ++k) {
            const auto it = t.ids_.find(t.byte_level_ ? token_to_bytes(*halves[k], where) : *halves[k]);
            if (it == t.ids_.end()) throw FormatError("BPETokenizer: " + where + ": \"" + halves[k]->substr(0, 40) + "\" is not in model.vocab");
            pair[k] = it->second;
        }
        t.add_merge(pair[0], pair[1], static_cast<int32_t>(r), where);
    }
    if (t.byte_level_) t.finish("tokenizer.json");
    t.pipeline_ = pipeline;
    const auto flag = [&](const char* key) {
        const json v = model.value(key, json(false));
        if (!v.is_boolean()) fail("model." + std::string(key) + " is " + v.dump().substr(0, 40) + ", expected true or false");
        return v.get<bool>();
    };
    t.ignore_merges_ = flag("ignore_merges");
    t.fuse_unk_ = flag("fuse_unk");
    t.byte_fallback_ = flag("byte_fallback");
    if (t.byte_fallback_) {
        for (int b = 0; b < 256; ++b) {
            char name[8];
            std::snprintf(name, sizeof name, "<0x%02X>", b);
            const auto it = t.ids_.find(name);
            if (it == t.ids_.end()) fail("model.byte_fallback is true, but the vocabulary has no token " + std::string(name));
            t.fallback_ids_[static_cast<size_t>(b)] = it->second;
        }
    }
    const json unk = model.value("unk_token", json());
    if (!unk.is_null()) {
        if (!unk.is_string() || !t.ids_.count(unk.get<std::string>())) fail("model.unk_token is " + unk.dump().substr(0, 40) + ", which is not a token of model.vocab");
        t.unk_ = t.ids_.at(unk.get<std::string>());
    }
    // Every added token, special or not, is found in the text first and is one token (the tokenizers library's
    // AddedVocabulary).
    std::vector<std::pair<std::string, int32_t>> special;
    for (const json& a : added) {
        if (!a.is_object() || !a.contains("content") || !a["content"].is_string()) continue;
        const std::string content = a["content"].get<std::string>();
        if (content.empty()) fail("added_tokens' token of id " + a.value("id", json()).dump().substr(0, 20) + " is empty (it would match everywhere)");
        const int32_t id = to_id(a.value("id", json()), "tokenizer.json: added_tokens' id of \"" + content.substr(0, 40) + "\"");
        const auto same = std::find_if(special.begin(), special.end(), [&](const auto& s) { return s.first == content; });
        if (same == special.end()) special.emplace_back(content, id);
        else if (same->second != id) {
            fail("the special token \"" + content.substr(0, 40) + "\" has two ids, " + std::to_string(same->second) + " and " + std::to_string(id));
        }
        if (!seen[static_cast<size_t>(id)]) t.bytes_[static_cast<size_t>(id)] = content;  // decoded as its text
    }
    t.special_ = SpecialTokens(std::move(special), "BPETokenizer: tokenizer.json");
    return t;
}

// Calls f(begin, length, special id or -1) for the text between special tokens and for each special token.
template <typename F>
void BPETokenizer::for_each_segment(const std::string& text, F&& f) const {
    size_t at = 0;
    for (const auto& [start, index] : special_.find_all(text)) {
        const auto& [token, id] = special_.tokens()[static_cast<size_t>(index)];
        if (start > at) f(at, start - at, -1);
        f(start, token.size(), id);
        at = start + token.size();
    }
    if (at < text.size()) f(at, text.size() - at, -1);
}

// Merges a piece's bytes, lowest-ranked pair first and of equal ranks the leftmost, until no listed pair is left.
// The symbols are a linked list over the piece's bytes (a symbol is named by the byte it starts at, which it keeps
// as it grows) and the pairs wait in a priority queue by (rank, start): each merge costs O(log n), where rescanning
// the piece and erasing from a vector made a piece of 64 KB take 33 s. A queued pair that a merge beside it made
// obsolete is recognised when it comes out (its symbols' pair no longer has that rank) and dropped: a rank names
// one pair, and the pair at a start only grows, so it cannot come back.
void BPETokenizer::encode_piece(const char* piece, size_t n, std::vector<int64_t>& out) const {
    if (ignore_merges_) {
        if (const auto whole = ids_.find(std::string(piece, n)); whole != ids_.end()) {
            out.push_back(whole->second);  // a piece that is a token is that token
            return;
        }
    }
    // The first symbols: a byte each (byte-level), or a character each, a character outside the vocabulary as its
    // bytes' fallback tokens or as the unknown token (a text vocabulary).
    std::vector<int32_t> first;
    first.reserve(n);
    if (byte_level_) {
        for (size_t k = 0; k < n; ++k) first.push_back(byte_ids_[static_cast<unsigned char>(piece[k])]);
    } else {
        const auto* s = reinterpret_cast<const unsigned char*>(piece);
        bool after_unk = false;
        for (size_t k = 0; k < n;) {
            int len = 0;
            utf8_decode_at(s, n, k, len);
            const size_t step = len ? static_cast<size_t>(len) : 1;
            const auto it = ids_.find(std::string(piece + k, step));
            if (it != ids_.end()) {
                first.push_back(it->second);
                after_unk = false;
            } else if (byte_fallback_) {
                for (size_t b = 0; b < step; ++b) first.push_back(fallback_ids_[s[k + b]]);
                after_unk = false;
            } else if (unk_ >= 0 && !(fuse_unk_ && after_unk)) {
                first.push_back(unk_);
                after_unk = true;
            }
            k += step;
        }
    }
    const size_t m = first.size();
    if (m == 0) return;
    constexpr uint32_t kNone = UINT32_MAX;
    struct Symbol {
        int32_t id;
        uint32_t prev, next;  // the neighbouring symbols' indices, or kNone
    };
    std::vector<Symbol> symbols(m);  // (m) indexed by first symbol; a merged-away symbol is marked gone
    for (size_t k = 0; k < m; ++k) {
        symbols[k] = {first[k], k == 0 ? kNone : static_cast<uint32_t>(k - 1), k + 1 == m ? kNone : static_cast<uint32_t>(k + 1)};
    }
    std::vector<bool> gone(m, false);  // (m) symbols merged into the one before them
    const auto merge_at = [&](uint32_t left) -> const Merge* {
        const uint32_t right = symbols[left].next;
        if (gone[left] || right == kNone) return nullptr;
        const auto it = merges_.find((static_cast<uint64_t>(symbols[left].id) << 32) | static_cast<uint32_t>(symbols[right].id));
        return it == merges_.end() ? nullptr : &it->second;
    };
    using Pair = std::pair<int32_t, uint32_t>;  // (rank, index of the left symbol): the smallest comes out first
    std::priority_queue<Pair, std::vector<Pair>, std::greater<Pair>> queue;
    for (uint32_t k = 0; k + 1 < m; ++k) {
        if (const Merge* mg = merge_at(k)) queue.emplace(mg->rank, k);
    }
    while (!queue.empty()) {
        const auto [rank, left] = queue.top();
        queue.pop();
        const Merge* mg = merge_at(left);
        if (mg == nullptr || mg->rank != rank) continue;  // obsolete
        const uint32_t right = symbols[left].next;
        symbols[left].id = mg->merged;
        symbols[left].next = symbols[right].next;
        if (symbols[right].next != kNone) symbols[symbols[right].next].prev = left;
        gone[right] = true;
        if (const Merge* after = merge_at(left)) queue.emplace(after->rank, left);
        if (const uint32_t before = symbols[left].prev; before != kNone) {
            if (const Merge* b = merge_at(before)) queue.emplace(b->rank, before);
        }
    }
    for (uint32_t k = 0; k != kNone; k = symbols[k].next) out.push_back(symbols[k].id);
}

template <typename F>
void BPETokenizer::for_each_piece(const std::string& text, size_t begin, size_t length, F&& f) const {
    if (!pipeline_) {
        const auto* s = reinterpret_cast<const unsigned char*>(text.data());
        for (size_t i = begin, end = begin + length; i < end;) {
            const size_t len = gpt2_piece_at(s, end, i);
            f(text.data() + i, len);
            i += len;
        }
        return;
    }
    std::vector<std::string> pieces;
    pipeline_->pre_tokenize(pipeline_->normalize(text.substr(begin, length)), pieces, begin == 0);
    for (const std::string& p : pieces) f(p.data(), p.size());
}

std::vector<int64_t> BPETokenizer::encode(const std::string& text) const {
    check_text_size(text, "BPETokenizer.encode");
    std::vector<int64_t> ids;
    for_each_segment(text, [&](size_t begin, size_t length, int32_t special) {
        if (special >= 0) {
            ids.push_back(special);
            return;
        }
        for_each_piece(text, begin, length, [&](const char* piece, size_t n) { encode_piece(piece, n, ids); });
    });
    return ids;
}

std::vector<std::string> BPETokenizer::pre_tokenize(const std::string& text) const {
    check_text_size(text, "BPETokenizer.preTokenize");
    std::vector<std::string> pieces;
    for_each_segment(text, [&](size_t begin, size_t length, int32_t special) {
        if (special >= 0) {
            pieces.push_back(text.substr(begin, length));
            return;
        }
        for_each_piece(text, begin, length, [&](const char* piece, size_t n) { pieces.emplace_back(piece, n); });
    });
    return pieces;
}

std::string BPETokenizer::decode(const std::vector<int64_t>& ids) const {
    std::vector<std::string> tokens;
    for (size_t i = 0; i < ids.size(); ++i) {
        if (ids[i] < 0 || ids[i] >= vocab_size()) {
            throw Error("BPETokenizer.decode: expected ids in [0, " + std::to_string(vocab_size()) + "), got " +
                        std::to_string(ids[i]) + " at index " + std::to_string(i));
        }
        tokens.push_back(bytes_[static_cast<size_t>(ids[i])]);
    }
    // Byte-level tokens are their bytes; a text vocabulary's go through the file's decoder (▁ back to spaces,
    // <0x..> back to bytes).
    if (!pipeline_ || byte_level_) {
        std::string out;
        for (const std::string& t : tokens) out += t;
        return out;
    }
    return pipeline_->decode(std::move(tokens));
}

std::vector<std::string> BPETokenizer::pieces() const {
    std::vector<std::string> out;
    out.reserve(bytes_.size());
    for (const std::string& b : bytes_) {
        std::string text;
        const auto* s = reinterpret_cast<const unsigned char*>(b.data());
        for (size_t i = 0; i < b.size();) {
            const Char c = char_at(s, b.size(), i);
            if (c.len == 1 && s[i] >= 0x80) text += "\xEF\xBF\xBD";  // U+FFFD
            else text.append(b, i, c.len);
            i += c.len;
        }
        out.push_back(std::move(text));
    }
    return out;
}

}  // namespace attn
