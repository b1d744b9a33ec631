#include "tokenizer_json.hpp"

#include "attn/error.hpp"
#include "json_limits.hpp"

#include <set>

namespace attn {

namespace {
using json = nlohmann::json;

// Builds TokenizerJson from SAX events. Where it is in the file is a stack of open containers, each marked with
// what it is (the root, the root's "model", another); model.vocab and model.merges are never opened as containers:
// their events go to the flat lists instead (state Vocab, Merges, and MergePair inside one ["a", "b"]).
class Reader final : public json::json_sax_t {
public:
    Reader(TokenizerJson& out, int64_t limit) : out_(out), limit_(limit) {}

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
    Reader reader(out, kMaxTokenizerJsonValues);
    const bool ok = json::sax_parse(text, &reader, json::input_format_t::json, true);
    // "… holds …" of the whole file, "…: model.vocab: …" of a part.
    if (!reader.error.empty()) throw FormatError(what + (reader.error.rfind("model.", 0) == 0 ? ": " : " ") + reader.error);
    if (!ok) throw FormatError(what + " is not valid JSON");
    return out;
}

}  // namespace attn
