#include "attn/bpe_tokenizer.hpp"

#include "added_vocabulary.hpp"
#include "flat_hash.hpp"
#include "attn/tensor.hpp"
#include "attn/tokenizer.hpp"
#include "json_limits.hpp"
#include "post_processor.hpp"
#include "tokenizer_config.hpp"
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
// The 256 code points it uses are all below U+0144, so a table of those gives each one's byte.
struct ByteAlphabet {
    static constexpr char32_t kEnd = 0x144;
    std::array<char32_t, 256> of_byte{};
    std::array<int16_t, kEnd> to_byte{};  // -1: not a code point of the alphabet
    ByteAlphabet() {
        to_byte.fill(-1);
        char32_t next = 256;
        for (int b = 0; b < 256; ++b) {
            const bool printable = (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE && b <= 0xFF);
            of_byte[static_cast<size_t>(b)] = printable ? static_cast<char32_t>(b) : next++;
            to_byte[of_byte[static_cast<size_t>(b)]] = static_cast<int16_t>(b);
        }
    }
};
const ByteAlphabet& alphabet() {
    static const ByteAlphabet a;
    return a;
}

// A token as vocab.json spells it, back to its bytes (once per token of a vocabulary: 262,144 for Gemma 3), or
// nothing when it holds a character that stands for no byte.
std::optional<std::string> spelled_bytes(std::string_view spelled) {
    std::string out;
    out.reserve(spelled.size());
    const auto* s = reinterpret_cast<const unsigned char*>(spelled.data());
    for (size_t i = 0; i < spelled.size();) {
        int len = 0;
        const char32_t c = utf8_decode_at(s, spelled.size(), i, len);
        const int byte = len > 0 && c < ByteAlphabet::kEnd ? alphabet().to_byte[c] : -1;
        if (byte < 0) return std::nullopt;
        out += static_cast<char>(byte);
        i += static_cast<size_t>(len);
    }
    return out;
}
std::string token_to_bytes(const std::string& spelled, const std::string& where) {
    if (std::optional<std::string> bytes = spelled_bytes(spelled)) return std::move(*bytes);
    throw FormatError("BPETokenizer: " + where + ": the token \"" + spelled.substr(0, 40) + "\" holds a character that is not one of the 256 that stand for bytes");
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

int32_t to_id(uint64_t id, const std::string& where) {
    if (id >= static_cast<uint64_t>(kMaxTokenizerVocabulary)) {
        throw FormatError("BPETokenizer: " + where + " must be an id in [0, " + std::to_string(kMaxTokenizerVocabulary) + "), got " + std::to_string(id));
    }
    return static_cast<int32_t>(id);
}
int32_t to_id(const json& id, const std::string& where) {
    if (!id.is_number_unsigned()) {
        throw FormatError("BPETokenizer: " + where + " must be an id in [0, " + std::to_string(kMaxTokenizerVocabulary) + "), got " + id.dump().substr(0, 40));
    }
    return to_id(id.get<uint64_t>(), where);
}

// added_tokens' entries, as the Rust crate reads them (AddedToken's defaults for a flag the entry leaves out:
// normalized true, the others false).
std::vector<AddedToken> added_tokens_of(const json& j) {
    std::vector<AddedToken> out;
    if (!j.contains("added_tokens") || j["added_tokens"].is_null()) return out;
    const json& list = j["added_tokens"];
    if (!list.is_array()) throw FormatError("BPETokenizer: tokenizer.json: added_tokens is " + list.dump().substr(0, 40) + ", expected an array");
    for (size_t i = 0; i < list.size(); ++i) {
        const json& a = list[i];
        const std::string where = "tokenizer.json: added_tokens[" + std::to_string(i) + "]";
        if (!a.is_object() || !a.contains("content") || !a["content"].is_string()) {
            throw FormatError("BPETokenizer: " + where + " is " + a.dump().substr(0, 60) + ", expected {\"id\": …, \"content\": \"…\", …}");
        }
        AddedToken t;
        t.content = a["content"].get<std::string>();
        t.id = to_id(a.value("id", json()), where + ".id");
        const auto flag = [&](const char* key, bool fallback) {
            const json v = a.value(key, json(fallback));
            if (!v.is_boolean()) throw FormatError("BPETokenizer: " + where + "." + key + " is " + v.dump().substr(0, 40) + ", expected true or false");
            return v.get<bool>();
        };
        t.single_word = flag("single_word", false);
        t.lstrip = flag("lstrip", false);
        t.rstrip = flag("rstrip", false);
        t.normalized = flag("normalized", true);
        t.special = flag("special", false);
        out.push_back(std::move(t));
    }
    return out;
}
}  // namespace

struct BPETables {
    StringIndex ids;      // the model's vocabulary: the ids of tokens, keyed by their bytes (token_bytes(id))
    MergeTable merges;    // (left id << 32 | right id) -> rank, merged id
};

namespace {
uint64_t pair_key(int32_t left, int32_t right) { return (static_cast<uint64_t>(static_cast<uint32_t>(left)) << 32) | static_cast<uint32_t>(right); }
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

void BPETokenizer::read_config(const std::string& tokenizer_config_json) {
    const TokenizerConfig c = read_tokenizer_config(tokenizer_config_json);
    bos_token_ = c.bos_token;
    eos_token_ = c.eos_token;
    pad_token_ = c.pad_token;
    unk_token_ = c.unk_token;
    if (!c.rebuilds_post_processor()) return;
    // LlamaTokenizerFast.update_post_processor: "bos $A eos", each by its flag (add_bos_token true, add_eos_token
    // false unless the file says), an error when a flag is on and its token is not named.
    std::vector<int64_t> around[2];
    const std::optional<std::string>* names[2] = {&bos_token_, &eos_token_};
    const bool on[2] = {c.add_bos_token.value_or(true), c.add_eos_token.value_or(false)};
    for (int k = 0; k < 2; ++k) {
        if (!on[k]) continue;
        const char* key = k == 0 ? "bos_token" : "eos_token";
        if (!*names[k]) {
            throw FormatError(std::string("BPETokenizer: tokenizer_config.json: add_") + key + " is true but no " + key + " is named");
        }
        const std::optional<int64_t> id = token_id(**names[k]);
        if (!id) {
            throw FormatError(std::string("BPETokenizer: tokenizer_config.json: ") + key + " is \"" + (*names[k])->substr(0, 40) +
                              "\", which is not a token of the tokenizer");
        }
        around[k].push_back(*id);
    }
    post_ = std::make_shared<PostProcessor>(PostProcessor::bos_and_eos(std::move(around[0]), std::move(around[1])));
}

BPETokenizer BPETokenizer::from_files(const std::string& vocab_json, const std::string& merges_txt, const std::string& tokenizer_config_json) {
    BPETokenizer t;
    t.tables_ = std::make_shared<BPETables>();
    const json vocab = parse_bounded(vocab_json, "BPETokenizer: vocab.json");
    if (vocab.is_discarded()) throw FormatError("BPETokenizer: vocab.json is not valid JSON");
    if (!vocab.is_object()) throw FormatError("BPETokenizer: vocab.json: expected a JSON object {\"token\": id}, got " + std::string(vocab.type_name()));
    if (static_cast<int64_t>(vocab.size()) > kMaxVocabulary) {
        throw FormatError("BPETokenizer: vocab.json: a vocabulary holds at most " + std::to_string(kMaxVocabulary) + " tokens, got " + std::to_string(vocab.size()));
    }
    t.token_at_.assign(vocab.size(), {0, 0});
    t.tables_->ids.reserve(vocab.size());
    std::vector<bool> seen(vocab.size(), false);
    std::vector<AddedToken> special;
    for (const auto& [spelled, id_j] : vocab.items()) {
        const std::string where = "vocab.json: the id of \"" + spelled.substr(0, 40) + "\"";
        const int32_t id = to_id(id_j, where);
        if (static_cast<size_t>(id) >= vocab.size() || seen[static_cast<size_t>(id)]) {
            throw FormatError("BPETokenizer: " + where + " is " + std::to_string(id) + ": the ids must be 0 to " + std::to_string(vocab.size() - 1) + ", each once");
        }
        seen[static_cast<size_t>(id)] = true;
        t.set_token(id, token_to_bytes(spelled, "vocab.json"));
        if (!t.add_id(id)) throw FormatError("BPETokenizer: vocab.json: two tokens stand for the same bytes \"" + spelled.substr(0, 40) + "\"");
        if (spelled.size() > 4 && spelled.rfind("<|", 0) == 0 && spelled.compare(spelled.size() - 2, 2, "|>") == 0) {
            AddedToken s;
            s.content = spelled;
            s.id = id;
            s.special = true;
            special.push_back(std::move(s));
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
            pair[k] = t.id_of(token_to_bytes(halves[k], where));
            if (pair[k] < 0) throw FormatError("BPETokenizer: " + where + ": \"" + halves[k].substr(0, 40) + "\" is not in vocab.json");
        }
        const int32_t merged = t.id_of(std::string(t.token_bytes(pair[0])).append(t.token_bytes(pair[1])));
        if (merged < 0) throw FormatError("BPETokenizer: " + where + ": the merged token is not in the vocabulary");
        t.add_merge(pair[0], pair[1], merged, rank++);
    }
    t.finish("vocab.json");
    t.special_.assign(t.token_at_.size(), false);
    for (const AddedToken& s : special) t.special_[static_cast<size_t>(s.id)] = true;
    t.added_ = std::make_shared<AddedVocabulary>(std::move(special), nullptr, "BPETokenizer: vocab.json");
    t.read_config(tokenizer_config_json);
    return t;
}

BPETokenizer BPETokenizer::from_tokenizer_json(const std::string& text, const std::string& tokenizer_config_json) {
    return from_tokenizer_json(read_tokenizer_json(text, "BPETokenizer: tokenizer.json"), tokenizer_config_json);
}

BPETokenizer BPETokenizer::from_tokenizer_json(const TokenizerJson& parsed, const std::string& tokenizer_config_json) {
    const json& j = parsed.value;
    const auto fail = [](const std::string& what) { throw FormatError("BPETokenizer: tokenizer.json: " + what); };
    const auto need = [&](const json& parent, const char* key, const char* where) -> const json& {
        if (!parent.is_object() || !parent.contains(key)) fail(std::string(where) + " has no \"" + key + "\"");
        return parent[key];
    };
    const json& model = need(j, "model", "the file");
    const json& type = need(model, "type", "model");
    if (type != "BPE") fail("model.type is " + type.dump().substr(0, 40) + ", expected \"BPE\"");
    for (const char* key : {"dropout", "continuing_subword_prefix", "end_of_word_suffix"}) {
        const json v = model.value(key, json());
        if (!v.is_null() && v != json(0.0) && v != json("")) fail("model." + std::string(key) + " is " + v.dump().substr(0, 40) + ", which this library's BPE does not do (expected null)");
    }
    if (!parsed.has_vocab) {
        if (model.contains("vocab")) fail("model.vocab must be an object {\"token\": id}");
        fail("model has no \"vocab\"");
    }
    if (!parsed.has_merges) {
        if (model.contains("merges")) fail("model.merges must be an array");
        fail("model has no \"merges\"");
    }
    auto pipeline = std::make_shared<TokenizerPipeline>(TokenizerPipeline::from_json(j));
    std::vector<AddedToken> added = added_tokens_of(j);

    // The vocabulary: model.vocab's ids, and added_tokens' beyond them (Llama 3 lists its 256 special tokens there
    // only); an id neither names stays an empty token, as cl100k_base's unused ids are.
    int64_t size = 0;
    for (const auto& [piece, id] : parsed.vocab) {
        if (id >= static_cast<uint64_t>(kMaxTokenizerVocabulary)) to_id(id, "tokenizer.json: the id of \"" + std::string(parsed.view(piece).substr(0, 40)) + "\"");
        size = std::max<int64_t>(size, static_cast<int64_t>(id) + 1);
    }
    for (const AddedToken& a : added) size = std::max<int64_t>(size, a.id + 1);
    BPETokenizer t;
    t.tables_ = std::make_shared<BPETables>();
    t.byte_level_ = pipeline->byte_level;
    t.token_at_.assign(static_cast<size_t>(size), {0, 0});
    // (the vocabulary's strings come first in the reader's text, the merges' after them)
    t.token_text_.reserve(parsed.vocab.empty() ? 0 : size_t{parsed.vocab.back().first.begin} + parsed.vocab.back().first.size);
    t.tables_->ids.reserve(parsed.vocab.size());
    std::vector<bool> seen(static_cast<size_t>(size), false);
    // One index of the vocabulary, keyed as the file spells it (a byte-level vocabulary in GPT-2's alphabet, a text
    // one as its text), so that the merges, which name tokens the same way, cost three lookups each and no
    // conversion: spellings concatenate as the bytes they stand for do (the alphabet is one character per byte),
    // so a merged token is found by its halves' spellings. A byte-level tokenizer keeps the spellings
    // (spelled_text_), and id_of spells a text's bytes to look them up.
    std::string& keys = t.byte_level_ ? t.spelled_text_ : t.token_text_;
    for (const auto& [at, id_u] : parsed.vocab) {
        const std::string_view spelled_as = parsed.view(at);
        const auto id = static_cast<int32_t>(id_u);
        if (seen[static_cast<size_t>(id)]) fail("model.vocab gives the id " + std::to_string(id) + " twice (\"" + std::string(spelled_as.substr(0, 40)) + "\")");
        seen[static_cast<size_t>(id)] = true;
        // A byte-level token spelled otherwise (DeepSeek-V3 lists its special tokens in model.vocab:
        // "<｜begin▁of▁sentence｜>") is no sequence of bytes a piece can be: it decodes as its own text, as the
        // tokenizers library's ByteLevel decoder writes such a token, and only an added token's match gives it.
        const std::optional<std::string> bytes = t.byte_level_ ? spelled_bytes(spelled_as) : std::nullopt;
        t.set_token(id, bytes ? std::string_view(*bytes) : spelled_as);
        const auto begin = static_cast<uint32_t>(keys.size());
        if (t.byte_level_) keys.append(spelled_as);  // (a text vocabulary's keys are its tokens, just set)
        else if (keys.size() > UINT32_MAX) fail("the tokens hold more than 4 GiB of text");
        const uint32_t key_begin = t.byte_level_ ? begin : t.token_at_[static_cast<size_t>(id)].first;
        if (!t.tables_->ids.insert(static_cast<uint32_t>(id), key_begin, static_cast<uint32_t>(spelled_as.size()), keys.data())) {
            fail("two tokens of model.vocab stand for the same bytes \"" + std::string(spelled_as.substr(0, 40)) + "\"");
        }
    }
    if (t.spelled_text_.size() > UINT32_MAX) fail("the tokens hold more than 4 GiB of text");
    t.tables_->merges.reserve(parsed.merges.size());
    std::string joined;
    for (size_t r = 0; r < parsed.merges.size(); ++r) {
        const std::string_view left = parsed.view(parsed.merges[r].first), right = parsed.view(parsed.merges[r].second);
        int32_t pair[2];
        const std::string_view halves[2] = {left, right};
        for (int k = 0; k < 2; ++k) {
            pair[k] = t.spelled_id(halves[k]);
            if (pair[k] < 0) {
                throw FormatError("BPETokenizer: tokenizer.json: model.merges[" + std::to_string(r) + "]: \"" + std::string(halves[k].substr(0, 40)) + "\" is not in model.vocab");
            }
        }
        joined.assign(left).append(right);
        const int32_t merged = t.spelled_id(joined);
        if (merged < 0) fail("model.merges[" + std::to_string(r) + "]: the merged token is not in the vocabulary");
        t.add_merge(pair[0], pair[1], merged, static_cast<int32_t>(r));
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
            const int32_t id = t.id_of(name);
            if (id < 0) fail("model.byte_fallback is true, but the vocabulary has no token " + std::string(name));
            t.fallback_ids_[static_cast<size_t>(b)] = id;
        }
    }
    const json unk = model.value("unk_token", json());
    if (!unk.is_null()) {
        t.unk_ = unk.is_string() ? t.spelled_id(unk.get<std::string>()) : -1;
        if (t.unk_ < 0) fail("model.unk_token is " + unk.dump().substr(0, 40) + ", which is not a token of model.vocab");
    }
    // Every added token, special or not, is found in the text first and is one token (the tokenizers library's
    // AddedVocabulary); one past the model's vocabulary decodes as what it matches.
    std::function<std::string(const std::string&)> normalize;
    if (!pipeline->normalizers.empty()) normalize = [pipeline](const std::string& s) { return pipeline->normalize(s); };
    auto vocabulary = std::make_shared<AddedVocabulary>(std::move(added), normalize, "BPETokenizer: tokenizer.json");
    t.special_.assign(static_cast<size_t>(size), false);
    for (size_t k = 0; k < vocabulary->tokens().size(); ++k) {
        const AddedToken& a = vocabulary->tokens()[k];
        if (!seen[static_cast<size_t>(a.id)]) t.set_token(a.id, vocabulary->decoded(k));
        t.special_[static_cast<size_t>(a.id)] = a.special;
    }
    t.added_ = std::move(vocabulary);
    t.post_ = std::make_shared<PostProcessor>(PostProcessor::from_json(j.value("post_processor", json())));
    t.read_config(tokenizer_config_json);
    return t;
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

std::string BPETokenizer::decode(const std::vector<int64_t>& ids, bool skip_special_tokens) const {
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
