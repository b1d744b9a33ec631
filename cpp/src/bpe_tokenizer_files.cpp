// Reading a byte-level BPE tokenizer from its files: GPT-2's vocab.json + merges.txt, or a tokenizer.json (with its
// pre-tokenizer, normalizers, added tokens and post-processor), and tokenizer_config.json's special tokens. What
// each reader checks, and the errors it names, are here; encoding is bpe_tokenizer.cpp.
#include "attn/bpe_tokenizer.hpp"

#include "added_vocabulary.hpp"
#include "attn/tensor.hpp"
#include "attn/tokenizer.hpp"
#include "bpe_tables.hpp"
#include "byte_alphabet.hpp"
#include "json_limits.hpp"
#include "post_processor.hpp"
#include "tokenizer_config.hpp"
#include "tokenizer_json.hpp"
#include "tokenizer_pipeline.hpp"

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <string_view>

#include <nlohmann/json.hpp>

namespace attn {

namespace {
using json = nlohmann::json;

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

void BPETokenizer::read_config(const std::string& tokenizer_config_json) {
    const TokenizerConfig c = read_tokenizer_config(tokenizer_config_json);
    bos_token_ = c.bos_token;
    eos_token_ = c.eos_token;
    pad_token_ = c.pad_token;
    unk_token_ = c.unk_token;
    clean_up_tokenization_spaces_ = c.clean_up_tokenization_spaces.value_or(false);
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

// model.merges into the merge table: each merge's halves and the token they make found in the vocabulary, by rank.
// Reading Llama 3's file that is 840,000 lookups and 280,147 insertions in tables of 4 and 8 MiB, each a trip to
// memory (two, counting the page tables, in a virtual machine), and it took most of the time the file took. So:
// - The token a merge makes is first sought where it nearly always is. The tokenizers library writes the merges
//   in the order training made them and gives tokens ids in the same order, so a merge makes the token the merge
//   before it made, or the next id: every merge of GPT-2's, Llama 2's, Llama 3's, Qwen3's and DeepSeek-V3's files,
//   and all but 0.3 % of Gemma 3's. That guess is a look at the neighbouring key, not a probe of the index; a miss
//   falls back to the index, sought by the two halves' bytes, never joined into a string of their own.
// - The halves go in batches, every slot of a batch looked at first (WebAssembly has no prefetch instruction; plain
//   loads of addresses already known keep as many trips in flight), then each looked up with its slot at hand.
void BPETokenizer::add_merges(BPETokenizer& t, const TokenizerJson& parsed, const std::vector<std::pair<uint32_t, uint32_t>>& key_at) {
    constexpr size_t kBatch = 64;
    const StringIndex& ids = t.tables_->ids;
    const char* arena = t.spelled_text_.empty() ? t.token_text_.data() : t.spelled_text_.data();
    // Whether token id's key is `left` then `right`.
    const auto is_joined = [&](int64_t id, std::string_view left, std::string_view right) {
        if (id < 0 || id >= static_cast<int64_t>(key_at.size())) return false;
        const auto [begin, size] = key_at[static_cast<size_t>(id)];
        if (size != left.size() + right.size()) return false;
        const char* at = arena + begin;
        for (const char c : left) if (*at++ != c) return false;
        for (const char c : right) if (*at++ != c) return false;
        return true;
    };
    std::array<std::array<uint64_t, 2>, kBatch> hashes;  // (left, right) of each merge of the batch
    std::array<std::array<int32_t, 3>, kBatch> merges;   // (left id, right id, merged id)
    uint32_t looked = 0;  // what the first looks read, kept so that the compiler keeps the loads
    int32_t made = -1;    // the token the merge before made
    for (size_t first = 0; first < parsed.merges.size(); first += kBatch) {
        const size_t n = std::min(kBatch, parsed.merges.size() - first);
        for (size_t k = 0; k < n; ++k) {
            hashes[k] = {hash_bytes(parsed.view(parsed.merges[first + k].first)), hash_bytes(parsed.view(parsed.merges[first + k].second))};
        }
        // (Loops of their own, a few instructions a load: the processor reorders within a window of a few hundred
        // instructions, so only a tight loop has dozens of loads in flight.)
        for (size_t k = 0; k < n; ++k) looked += ids.touch(hashes[k][0]) + ids.touch(hashes[k][1]);
        for (size_t k = 0; k < n; ++k) {
            const size_t r = first + k;
            const std::string_view halves[2] = {parsed.view(parsed.merges[r].first), parsed.view(parsed.merges[r].second)};
            std::array<int32_t, 3>& merge = merges[k];
            for (int h = 0; h < 2; ++h) {
                const uint32_t i = ids.find(halves[h], {}, hashes[k][static_cast<size_t>(h)], arena);
                if (i == StringIndex::kNone) {
                    throw FormatError("BPETokenizer: tokenizer.json: model.merges[" + std::to_string(r) + "]: \"" +
                                      std::string(halves[h].substr(0, 40)) + "\" is not in model.vocab");
                }
                merge[static_cast<size_t>(h)] = static_cast<int32_t>(i);
            }
            if (is_joined(made, halves[0], halves[1])) {
                merge[2] = made;
            } else if (is_joined(int64_t{made} + 1, halves[0], halves[1])) {
                merge[2] = ++made;
            } else {
                const uint32_t i = ids.find(halves[0], halves[1], StringHash().add(halves[0]).add(halves[1]).value(), arena);
                if (i == StringIndex::kNone) throw FormatError("BPETokenizer: tokenizer.json: model.merges[" + std::to_string(r) + "]: the merged token is not in the vocabulary");
                merge[2] = made = static_cast<int32_t>(i);
            }
        }
        for (size_t k = 0; k < n; ++k) looked += static_cast<uint32_t>(t.tables_->merges.touch(pair_key(merges[k][0], merges[k][1])));
        for (size_t k = 0; k < n; ++k) t.add_merge(merges[k][0], merges[k][1], merges[k][2], static_cast<int32_t>(first + k));
    }
    volatile uint32_t kept = looked;
    (void)kept;
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
    if (t.byte_level_) t.spelled_text_.reserve(t.token_text_.capacity());
    std::string bytes;
    std::vector<std::pair<uint32_t, uint32_t>> key_at(static_cast<size_t>(size), {0, UINT32_MAX});  // (V) each token's key in `keys`
    for (const auto& [at, id_u] : parsed.vocab) {
        const std::string_view spelled_as = parsed.view(at);
        const auto id = static_cast<int32_t>(id_u);
        if (seen[static_cast<size_t>(id)]) fail("model.vocab gives the id " + std::to_string(id) + " twice (\"" + std::string(spelled_as.substr(0, 40)) + "\")");
        seen[static_cast<size_t>(id)] = true;
        // A byte-level token spelled otherwise (DeepSeek-V3 lists its special tokens in model.vocab:
        // "<｜begin▁of▁sentence｜>") is no sequence of bytes a piece can be: it decodes as its own text, as the
        // tokenizers library's ByteLevel decoder writes such a token, and only an added token's match gives it.
        t.set_token(id, t.byte_level_ && spelled_bytes(spelled_as, bytes) ? std::string_view(bytes) : spelled_as);
        const auto begin = static_cast<uint32_t>(keys.size());
        if (t.byte_level_) keys.append(spelled_as);  // (a text vocabulary's keys are its tokens, just set)
        else if (keys.size() > UINT32_MAX) fail("the tokens hold more than 4 GiB of text");
        const uint32_t key_begin = t.byte_level_ ? begin : t.token_at_[static_cast<size_t>(id)].first;
        key_at[static_cast<size_t>(id)] = {key_begin, static_cast<uint32_t>(spelled_as.size())};
        if (!t.tables_->ids.insert(static_cast<uint32_t>(id), key_begin, static_cast<uint32_t>(spelled_as.size()), keys.data())) {
            fail("two tokens of model.vocab stand for the same bytes \"" + std::string(spelled_as.substr(0, 40)) + "\"");
        }
    }
    if (t.spelled_text_.size() > UINT32_MAX) fail("the tokens hold more than 4 GiB of text");
    t.tables_->merges.reserve(parsed.merges.size());
    add_merges(t, parsed, key_at);
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

}  // namespace attn
