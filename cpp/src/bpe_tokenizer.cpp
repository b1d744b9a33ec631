// The byte-level BPE encoder and decoder: a text cut into pieces (GPT-2's pattern, or a tokenizer.json's
// pre-tokenizer), each piece's bytes merged by rank (Sennrich et al. 2016; GPT-2's encoder.py), added tokens found
// first, the post-processor's special tokens around. Reading the files is bpe_tokenizer_files.cpp.
#include "attn/bpe_tokenizer.hpp"

#include "added_vocabulary.hpp"
#include "attn/tensor.hpp"
#include "attn/tokenizer.hpp"
#include "bpe_tables.hpp"
#include "byte_alphabet.hpp"
#include "post_processor.hpp"
#include "tokenizer_pipeline.hpp"
#include "unicode_classes.hpp"
#include "utf8.hpp"

#include <algorithm>
#include <cstdint>
#include <queue>
#include <string_view>

namespace attn {

namespace {

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
}  // namespace

void BPETokenizer::add_merge(int32_t left, int32_t right, int32_t merged, int32_t rank) {
    // A pair listed twice keeps its last rank, as the tokenizers library's map built from the list does (and
    // Python's dict of merges.txt in GPT2Tokenizer).
    tables_->merges.set(pair_key(left, right), {rank, merged});
}

int32_t BPETokenizer::id_of(std::string_view bytes) const {
    if (!spelled_text_.empty()) {
        // The index holds the vocabulary as its file spells it: the bytes are looked up in that alphabet.
        thread_local std::string spelled;
        spelled.clear();
        for (const char b : bytes) utf8_append(spelled, alphabet().of_byte[static_cast<unsigned char>(b)]);
        return spelled_id(spelled);
    }
    const uint32_t i = tables_->ids.find(bytes, token_text_.data());
    return i == StringIndex::kNone ? -1 : static_cast<int32_t>(i);
}

int32_t BPETokenizer::spelled_id(std::string_view spelled) const {
    const uint32_t i = tables_->ids.find(spelled, spelled_text_.empty() ? token_text_.data() : spelled_text_.data());
    return i == StringIndex::kNone ? -1 : static_cast<int32_t>(i);
}

bool BPETokenizer::add_id(int32_t id) {
    const auto [begin, size] = token_at_[static_cast<size_t>(id)];
    return tables_->ids.insert(static_cast<uint32_t>(id), begin, size, token_text_.data());
}

void BPETokenizer::set_token(int32_t id, std::string_view bytes) {
    if (token_text_.size() + bytes.size() > UINT32_MAX) throw FormatError("BPETokenizer: the tokens hold more than 4 GiB of text");
    token_at_[static_cast<size_t>(id)] = {static_cast<uint32_t>(token_text_.size()), static_cast<uint32_t>(bytes.size())};
    token_text_.append(bytes);
}

// Checks the vocabulary is complete (ids 0..V-1, every byte a token).
void BPETokenizer::finish(const std::string& where) {
    if (token_at_.empty()) throw FormatError("BPETokenizer: " + where + ": the vocabulary is empty");
    for (int b = 0; b < 256; ++b) {
        const char byte = static_cast<char>(b);
        const int32_t id = id_of(std::string_view(&byte, 1));
        if (id < 0) {
            throw FormatError("BPETokenizer: " + where + ": the vocabulary has no token for the byte " + std::to_string(b) + " (not a byte-level BPE)");
        }
        byte_ids_[static_cast<size_t>(b)] = id;
    }
}
std::optional<int64_t> BPETokenizer::token_id(const std::string& token) const {
    for (const AddedToken& a : added_->tokens()) {
        if (a.content == token) return a.id;
    }
    const int32_t id = id_of(token);
    return id < 0 ? std::nullopt : std::optional<int64_t>(id);
}

bool BPETokenizer::is_special(int64_t id) const {
    return id >= 0 && id < vocab_size() && special_[static_cast<size_t>(id)];
}

// Merges a piece's bytes, lowest-ranked pair first and of equal ranks the leftmost, until no listed pair is left.
// The symbols are a linked list over the piece's bytes (a symbol is named by the byte it starts at, which it keeps
// as it grows) and the pairs wait in a priority queue by (rank, start): each merge costs O(log n), where rescanning
// the piece and erasing from a vector made a piece of 64 KB take 33 s. A queued pair that a merge beside it made
// obsolete is recognised when it comes out (its symbols' pair no longer has that rank) and dropped: a rank names
// one pair, and the pair at a start only grows, so it cannot come back.
void BPETokenizer::encode_piece(const char* piece, size_t n, std::vector<int64_t>& out) const {
    if (ignore_merges_) {
        if (const int32_t whole = id_of(std::string_view(piece, n)); whole >= 0) {
            out.push_back(whole);  // a piece that is a token is that token
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
            if (const int32_t id = id_of(std::string_view(piece + k, step)); id >= 0) {
                first.push_back(id);
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
    using Merge = MergeTable::Merge;
    const auto merge_at = [&](uint32_t left) -> const Merge* {
        const uint32_t right = symbols[left].next;
        if (gone[left] || right == kNone) return nullptr;
        return tables_->merges.find(pair_key(symbols[left].id, symbols[right].id));
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

// The tokenizers library's order (tokenizer/mod.rs, encode_single_sequence): the added tokens matched in the text as
// given; each stretch between them normalized, and the added tokens marked normalized matched in that; each stretch
// left pre-tokenized into the pieces the model encodes. Without a tokenizer.json (GPT-2's own files) a stretch is
// cut by GPT-2's pattern.
template <typename Piece, typename Token>
void BPETokenizer::for_each_piece(const std::string& text, Piece&& piece, Token&& token) const {
    std::vector<std::string> pieces;
    const auto pre_tokenize_into = [&](const std::string& s, bool first) {
        pieces.clear();
        pipeline_->pre_tokenize(s, pieces, first);
        for (const std::string& p : pieces) piece(p.data(), p.size());
    };
    for (const AddedVocabulary::Split& raw : added_->split_raw(text)) {
        if (raw.token >= 0) {
            token(added_->tokens()[static_cast<size_t>(raw.token)]);
            continue;
        }
        if (!pipeline_) {
            const auto* s = reinterpret_cast<const unsigned char*>(text.data());
            for (size_t i = raw.begin; i < raw.end;) {
                const size_t len = gpt2_piece_at(s, raw.end, i);
                piece(text.data() + i, len);
                i += len;
            }
            continue;
        }
        // "first": the stretch starts the text, for Metaspace's prepend_scheme "first".
        const std::string normalized = pipeline_->normalize(text.substr(raw.begin, raw.end - raw.begin));
        if (!added_->has_normalized()) {
            pre_tokenize_into(normalized, raw.begin == 0);
            continue;
        }
        for (const AddedVocabulary::Split& sub : added_->split_normalized(normalized)) {
            if (sub.token >= 0) token(added_->tokens()[static_cast<size_t>(sub.token)]);
            else pre_tokenize_into(normalized.substr(sub.begin, sub.end - sub.begin), raw.begin == 0 && sub.begin == 0);
        }
    }
}

std::vector<int64_t> BPETokenizer::encode(const std::string& text, bool add_special_tokens) const {
    check_text_size(text, "BPETokenizer.encode");
    std::vector<int64_t> ids;
    for_each_piece(
        text, [&](const char* piece, size_t n) { encode_piece(piece, n, ids); }, [&](const AddedToken& t) { ids.push_back(t.id); });
    return add_special_tokens && post_ ? post_->apply(ids) : ids;
}

std::vector<std::string> BPETokenizer::pre_tokenize(const std::string& text) const {
    check_text_size(text, "BPETokenizer.preTokenize");
    std::vector<std::string> pieces;
    for_each_piece(
        text, [&](const char* piece, size_t n) { pieces.emplace_back(piece, n); }, [&](const AddedToken& t) { pieces.push_back(t.content); });
    return pieces;
}

namespace {
// transformers' PreTrainedTokenizerBase.clean_up_tokenization: the spaces a word-level tokenizer left before
// punctuation and English contractions, removed in this order, each everywhere.
std::string clean_up_tokenization(std::string text) {
    static constexpr std::pair<std::string_view, std::string_view> kReplaced[] = {
        {" .", "."}, {" ?", "?"}, {" !", "!"}, {" ,", ","}, {" ' ", "'"},
        {" n't", "n't"}, {" 'm", "'m"}, {" 's", "'s"}, {" 've", "'ve"}, {" 're", "'re"}};
    for (const auto& [from, to] : kReplaced) {
        if (text.find(from) == std::string::npos) continue;
        std::string out;
        out.reserve(text.size());
        size_t at = 0;
        for (size_t hit; (hit = text.find(from, at)) != std::string::npos; at = hit + from.size()) {
            out.append(text, at, hit - at).append(to);
        }
        out.append(text, at, std::string::npos);
        text = std::move(out);
    }
    return text;
}
}  // namespace

std::string BPETokenizer::decode(const std::vector<int64_t>& ids, bool skip_special_tokens,
                                 std::optional<bool> clean_up_tokenization_spaces) const {
    std::string text = decode_tokens(ids, skip_special_tokens);
    if (clean_up_tokenization_spaces.value_or(clean_up_tokenization_spaces_)) return clean_up_tokenization(std::move(text));
    return text;  // (moved out, where the conditional's two kinds of value made a copy)
}

std::string BPETokenizer::decode_tokens(const std::vector<int64_t>& ids, bool skip_special_tokens) const {
    std::vector<std::string> tokens;
    tokens.reserve(ids.size());
    for (size_t i = 0; i < ids.size(); ++i) {
        if (ids[i] < 0 || ids[i] >= vocab_size()) {
            throw Error("BPETokenizer.decode: expected ids in [0, " + std::to_string(vocab_size()) + "), got " +
                        std::to_string(ids[i]) + " at index " + std::to_string(i));
        }
        if (skip_special_tokens && special_[static_cast<size_t>(ids[i])]) continue;
        tokens.emplace_back(token_bytes(ids[i]));
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
    out.reserve(token_at_.size());
    for (int64_t id = 0; id < vocab_size(); ++id) {
        const std::string_view b = token_bytes(id);
        std::string text;
        const auto* s = reinterpret_cast<const unsigned char*>(b.data());
        for (size_t i = 0; i < b.size();) {
            const Char c = char_at(s, b.size(), i);
            if (c.len == 1 && s[i] >= 0x80) text += "\xEF\xBF\xBD";  // U+FFFD
            else text.append(b.substr(i, c.len));
            i += c.len;
        }
        out.push_back(std::move(text));
    }
    return out;
}

}  // namespace attn
