#include "tokenizer_json.hpp"

#include "attn/error.hpp"
#include "attn/tokenizer.hpp"  // utf8_append
#include "json_limits.hpp"
#include "utf8.hpp"

#include <cstddef>
#include <iterator>
#include <set>

namespace attn {

namespace {
using json = nlohmann::json;

// Where nlohmann's lexer is in the text. It reads one character at a time through an iterator (CursorIterator),
// and the reader moves the same cursor: inside model.vocab and model.merges it scans the entries itself and leaves
// the cursor where the lexer is to go on.
struct Cursor {
    const char* at;
    const char* end;
};
class CursorIterator {
public:
    using iterator_category = std::input_iterator_tag;
    using value_type = char;
    using difference_type = std::ptrdiff_t;
    using pointer = const char*;
    using reference = const char&;
    CursorIterator(Cursor* c, bool is_end) : c_(c), is_end_(is_end) {}
    reference operator*() const { return *c_->at; }
    CursorIterator& operator++() {
        ++c_->at;
        return *this;
    }
    bool operator==(const CursorIterator& o) const { return done() == o.done(); }
    bool operator!=(const CursorIterator& o) const { return done() != o.done(); }

private:
    bool done() const { return is_end_ || c_->at == c_->end; }
    Cursor* c_;
    bool is_end_;
};

// ---- The entries of model.vocab and model.merges, scanned without the lexer ----
// Each function reads one plain form and gives up (nullptr) on anything else, which the lexer then reads: an
// entry is taken only whole, so what is refused, and how it is named, stays the lexer's and the checks' below.

const char* skip_space(const char* p, const char* end) {
    while (p < end && (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t')) ++p;
    return p;
}

int hex_digit(char c) {
    return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}
// \uXXXX at p (the backslash), its value in `unit`, or nullptr.
const char* scan_u_escape(const char* p, const char* end, char32_t& unit) {
    if (end - p < 6 || p[1] != 'u') return nullptr;
    unit = 0;
    for (int k = 2; k < 6; ++k) {
        const int d = hex_digit(p[k]);
        if (d < 0) return nullptr;
        unit = unit << 4 | static_cast<char32_t>(d);
    }
    return p + 6;
}

// A JSON string whose opening quote is at p: its text appended to `out` (escapes decoded, UTF-8 checked as the
// lexer checks it), and where it ends.
const char* scan_string(const char* p, const char* end, std::string& out) {
    if (p >= end || *p != '"') return nullptr;
    ++p;
    for (;;) {
        const char* run = p;
        while (p < end && static_cast<unsigned char>(*p) >= 0x20 && *p != '"' && *p != '\\') {
            if (static_cast<unsigned char>(*p) < 0x80) {
                ++p;
                continue;
            }
            int len = 0;
            utf8_decode_at(reinterpret_cast<const unsigned char*>(p), static_cast<size_t>(end - p), 0, len);
            if (len == 0) return nullptr;
            p += len;
        }
        out.append(run, static_cast<size_t>(p - run));
        if (p >= end || static_cast<unsigned char>(*p) < 0x20) return nullptr;
        if (*p == '"') return p + 1;
        // A backslash.
        if (p + 1 >= end) return nullptr;
        const char simple = p[1] == '"' ? '"' : p[1] == '\\' ? '\\' : p[1] == '/' ? '/' : p[1] == 'b' ? '\b' : p[1] == 'f' ? '\f'
                          : p[1] == 'n' ? '\n' : p[1] == 'r' ? '\r' : p[1] == 't' ? '\t' : 0;
        if (simple) {
            out += simple;
            p += 2;
            continue;
        }
        char32_t c = 0;
        if (!(p = scan_u_escape(p, end, c))) return nullptr;
        if (c >= 0xDC00 && c <= 0xDFFF) return nullptr;
        if (c >= 0xD800 && c <= 0xDBFF) {  // a high surrogate: its low half must follow
            char32_t low = 0;
            if (p >= end || *p != '\\' || !(p = scan_u_escape(p, end, low)) || low < 0xDC00 || low > 0xDFFF) return nullptr;
            c = 0x10000 + ((c - 0xD800) << 10) + (low - 0xDC00);
        }
        utf8_append(out, c);
    }
}

// Whether p is inside the text and at c.
bool at_char(const char* p, const char* end, char c) { return p && p < end && *p == c; }

// A whole number >= 0 (at most 18 digits, no fraction or exponent) at p.
const char* scan_id(const char* p, const char* end, uint64_t& id) {
    const char* start = p;
    id = 0;
    while (p < end && *p >= '0' && *p <= '9' && p - start < 19) id = id * 10 + static_cast<uint64_t>(*p++ - '0');
    if (p == start || p - start > 18 || (*start == '0' && p - start > 1)) return nullptr;
    if (p < end && (*p == '.' || *p == 'e' || *p == 'E' || (*p >= '0' && *p <= '9'))) return nullptr;
    return p;
}

// Builds TokenizerJson from SAX events. Where it is in the file is a stack of open containers, each marked with
// what it is (the root, the root's "model", another); model.vocab and model.merges are never opened as containers:
// their events go to the flat lists instead (state Vocab, Merges, and MergePair inside one ["a", "b"]).
class Reader final : public json::json_sax_t {
public:
    Reader(TokenizerJson& out, int64_t limit, Cursor& cursor) : out_(out), limit_(limit), cursor_(cursor) {}

    std::string error;  // why the pass stopped, when a check (not the syntax) stopped it

    bool null() override { return scalar(json(nullptr)); }
    bool boolean(bool b) override { return scalar(json(b)); }
    bool number_integer(number_integer_t n) override {
        if (state_ == State::Vocab) return vocab_id_error(json(n).dump());
        return scalar(json(n));
    }
    bool number_unsigned(number_unsigned_t n) override {
        if (state_ == State::Vocab) {
            if (!counted()) return false;
            out_.vocab.emplace_back(key_piece_, n);
            return true;
        }
        return scalar(json(n));
    }
    bool number_float(number_float_t x, const string_t& spelled) override {
        if (state_ == State::Vocab) return vocab_id_error(spelled);
        return scalar(json(x));
    }
    bool string(string_t& s) override {
        if (state_ == State::Merges) {
            if (!counted()) return false;
            const size_t space = s.find(' ');
            if (space == std::string::npos) return merge_error("\"" + s.substr(0, 40) + "\"");
            const Piece whole = keep(s);
            out_.merges.push_back({{whole.begin, static_cast<uint32_t>(space)},
                                   {whole.begin + static_cast<uint32_t>(space) + 1, whole.size - static_cast<uint32_t>(space) - 1}});
            return true;
        }
        if (state_ == State::MergePair) {
            if (!counted()) return false;
            if (++pair_size_ <= 2) pair_[pair_size_ - 1] = keep(s);
            return true;
        }
        if (state_ == State::Vocab) return vocab_id_error(json(s).dump());
        return scalar(json(std::move(s)));
    }
    bool binary(binary_t&) override { return scalar(json()); }

    bool start_object(std::size_t) override {
        if (!counted() || !deeper()) return false;
        if (state_ == State::Vocab) return vocab_id_error("an object");
        if (state_ != State::Dom) return merge_error("an object");
        if (is_model_key("vocab")) {
            state_ = State::Vocab;
            out_.has_vocab = true;
            scan_vocab();
            return true;
        }
        const Kind kind = stack_.empty() ? Kind::Root : is_root_key("model") ? Kind::Model : Kind::Other;
        open(json::object(), kind);
        keys_.emplace_back();
        return true;
    }
    bool key(string_t& k) override {
        if (!counted()) return false;
        if (state_ == State::Vocab) {
            key_piece_ = keep(k);
            return true;
        }
        if (!keys_.back().insert(k).second) {
            error = "holds the key \"" + k.substr(0, 60) + "\" twice in one object";
            return false;
        }
        key_ = std::move(k);
        return true;
    }
    bool end_object() override {
        --depth_;
        if (state_ == State::Vocab) {
            state_ = State::Dom;
            return true;
        }
        keys_.pop_back();
        stack_.pop_back();
        return true;
    }
    bool start_array(std::size_t) override {
        if (!counted() || !deeper()) return false;
        if (state_ == State::Vocab) return vocab_id_error("an array");
        if (state_ == State::MergePair) return merge_error("a nested array");
        if (state_ == State::Merges) {
            state_ = State::MergePair;
            pair_size_ = 0;
            return true;
        }
        if (is_model_key("merges")) {
            state_ = State::Merges;
            out_.has_merges = true;
            scan_merges();
            return true;
        }
        open(json::array(), Kind::Other);
        return true;
    }
    bool end_array() override {
        --depth_;
        if (state_ == State::MergePair) {
            if (pair_size_ != 2) return merge_error("an array of " + std::to_string(pair_size_) + " strings");
            out_.merges.emplace_back(pair_[0], pair_[1]);
            state_ = State::Merges;
            return true;
        }
        if (state_ == State::Merges) {
            state_ = State::Dom;
            return true;
        }
        stack_.pop_back();
        return true;
    }
    bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) override { return false; }

private:
    using Piece = TokenizerJson::Piece;
    enum class State { Dom, Vocab, Merges, MergePair };
    enum class Kind { Root, Model, Other };
    struct Open {
        json* value;
        Kind kind;
    };

    // Reading model.vocab's "piece": id entries past the lexer, from just inside its "{": nearly all of a real
    // file's 9-33 MB is model.vocab and model.merges, and nlohmann's lexer, a character at a time through its
    // input adapter with a std::string per value, took half the time Llama 3's file took to read. Each entry is
    // taken when it is whole and another entry or the closing brace follows; the cursor is left on the first entry
    // not taken (or the brace), so the lexer reads the rest, and names whatever is wrong, as before.
    void scan_vocab() {
        const char* p = skip_space(cursor_.at, cursor_.end);
        const char* taken = cursor_.at;
        for (;;) {
            const size_t mark = out_.text.size();
            uint64_t id = 0;
            const char* q = scan_string(p, cursor_.end, out_.text);
            if (q) q = skip_space(q, cursor_.end);
            q = at_char(q, cursor_.end, ':') ? scan_id(skip_space(q + 1, cursor_.end), cursor_.end, id) : nullptr;
            if (q) q = skip_space(q, cursor_.end);
            const char* next = at_char(q, cursor_.end, ',') ? skip_space(q + 1, cursor_.end) : nullptr;
            if (!q || values_ + 2 > limit_ || !(at_char(q, cursor_.end, '}') || at_char(next, cursor_.end, '"'))) {
                out_.text.resize(mark);
                break;
            }
            check_text_size();
            values_ += 2;  // a key and its value, as the lexer's events count them
            out_.vocab.emplace_back(Piece{static_cast<uint32_t>(mark), static_cast<uint32_t>(out_.text.size() - mark)}, id);
            if (*q == '}') {
                taken = q;
                break;
            }
            p = taken = next;
        }
        cursor_.at = taken;
    }
    // model.merges' entries past the lexer, from just inside its "[", as scan_vocab: "left right" or ["left", "right"].
    void scan_merges() {
        const char* p = skip_space(cursor_.at, cursor_.end);
        const char* taken = cursor_.at;
        for (;;) {
            const size_t mark = out_.text.size();
            const char* q = nullptr;
            int values = 0;
            std::pair<Piece, Piece> merge{};
            if (at_char(p, cursor_.end, '"')) {
                q = scan_string(p, cursor_.end, out_.text);
                const size_t space = q ? out_.text.find(' ', mark) : std::string::npos;
                if (space == std::string::npos) q = nullptr;
                merge = {{static_cast<uint32_t>(mark), static_cast<uint32_t>(space - mark)},
                         {static_cast<uint32_t>(space + 1), static_cast<uint32_t>(out_.text.size() - space - 1)}};
                values = 1;
            } else if (at_char(p, cursor_.end, '[') && depth_ < kMaxJsonDepth) {
                q = scan_string(skip_space(p + 1, cursor_.end), cursor_.end, out_.text);
                const size_t middle = out_.text.size();
                if (q) q = skip_space(q, cursor_.end);
                q = at_char(q, cursor_.end, ',') ? scan_string(skip_space(q + 1, cursor_.end), cursor_.end, out_.text) : nullptr;
                if (q) q = skip_space(q, cursor_.end);
                q = at_char(q, cursor_.end, ']') ? q + 1 : nullptr;
                merge = {{static_cast<uint32_t>(mark), static_cast<uint32_t>(middle - mark)},
                         {static_cast<uint32_t>(middle), static_cast<uint32_t>(out_.text.size() - middle)}};
                values = 3;  // the array and its two strings
            }
            if (q) q = skip_space(q, cursor_.end);
            const char* next = at_char(q, cursor_.end, ',') ? skip_space(q + 1, cursor_.end) : nullptr;
            if (!q || values_ + values > limit_ || !(at_char(q, cursor_.end, ']') || at_char(next, cursor_.end, '"') || at_char(next, cursor_.end, '['))) {
                out_.text.resize(mark);
                break;
            }
            check_text_size();
            values_ += values;
            out_.merges.push_back(merge);
            if (*q == ']') {
                taken = q;
                break;
            }
            p = taken = next;
        }
        cursor_.at = taken;
    }
    void check_text_size() const {
        if (out_.text.size() > UINT32_MAX) throw FormatError("tokenizer.json's tokens and merges hold more than 4 GiB of text");
    }

    // A string of the lists, appended to the text they share.
    Piece keep(const std::string& s) {
        if (out_.text.size() + s.size() > UINT32_MAX) throw FormatError("tokenizer.json's tokens and merges hold more than 4 GiB of text");
        const Piece p{static_cast<uint32_t>(out_.text.size()), static_cast<uint32_t>(s.size())};
        out_.text += s;
        return p;
    }
    // nlohmann's SAX parser keeps its own stack on the heap, so nesting costs this pass nothing; it is bounded as
    // every JSON the library reads is (json_limits.hpp).
    bool deeper() {
        if (++depth_ <= kMaxJsonDepth) return true;
        error = "nests deeper than " + std::to_string(kMaxJsonDepth) + " levels of arrays and objects (not a file this library writes)";
        return false;
    }
    bool counted() {
        if (++values_ <= limit_) return true;
        error = "holds more than " + std::to_string(limit_) + " values (arrays, objects, keys and scalars)";
        return false;
    }
    bool is_root_key(const char* k) const { return stack_.size() == 1 && stack_.back().kind == Kind::Root && key_ == k; }
    bool is_model_key(const char* k) const { return !stack_.empty() && stack_.back().kind == Kind::Model && key_ == k; }

    // A value where the tree is being built: the root, a member under the pending key, or an array's next element.
    json* put(json&& v) {
        if (stack_.empty()) {
            out_.value = std::move(v);
            return &out_.value;
        }
        json& parent = *stack_.back().value;
        if (parent.is_object()) return &(parent[key_] = std::move(v));
        parent.push_back(std::move(v));
        return &parent.back();
    }
    void open(json&& v, Kind kind) { stack_.push_back({put(std::move(v)), kind}); }
    bool scalar(json&& v) {
        if (!counted()) return false;
        if (state_ == State::Merges || state_ == State::MergePair) return merge_error(v.dump().substr(0, 40));
        put(std::move(v));
        return true;
    }
    bool vocab_id_error(const std::string& got) {
        error = "model.vocab: the id of \"" + std::string(out_.view(key_piece_).substr(0, 40)) + "\" must be a whole number >= 0, got " + got.substr(0, 40);
        return false;
    }
    bool merge_error(const std::string& got) {
        error = "model.merges[" + std::to_string(out_.merges.size()) + "] is " + got +
                ", expected \"left right\" or [\"left\", \"right\"]";
        return false;
    }

    TokenizerJson& out_;
    int64_t limit_;
    Cursor& cursor_;
    int64_t values_ = 0;
    State state_ = State::Dom;
    std::vector<Open> stack_;
    std::vector<std::set<std::string>> keys_;  // the keys of each open object of the tree
    std::string key_;                          // the key of the value to come
    Piece key_piece_{0, 0};                    // in model.vocab: the token of the id to come
    Piece pair_[2]{};                          // the strings of a merge written as a pair
    int pair_size_ = 0;
    int depth_ = 0;
};
}  // namespace

TokenizerJson read_tokenizer_json(const std::string& text, const std::string& what) {
    TokenizerJson out;
    out.text.reserve(text.size());  // the lists' strings are parts of the file: never more than it, never copied again
    Cursor cursor{text.data(), text.data() + text.size()};
    Reader reader(out, kMaxTokenizerJsonValues, cursor);
    const bool ok = json::sax_parse(CursorIterator(&cursor, false), CursorIterator(&cursor, true), &reader, json::input_format_t::json, true);
    // "… holds …" of the whole file, "…: model.vocab: …" of a part.
    if (!reader.error.empty()) throw FormatError(what + (reader.error.rfind("model.", 0) == 0 ? ": " : " ") + reader.error);
    if (!ok) throw FormatError(what + " is not valid JSON");
    return out;
}

}  // namespace attn
