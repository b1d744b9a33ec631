// libFuzzer target: a byte-level BPE read from a tokenizer.json that the input itself describes, then a text
// encoded with it and compared with a slow, obviously-correct encoder written here.
//
// The input is read as: a count of special tokens (0-3) and each one's bytes (0-7 of them, from a small alphabet
// so that they overlap and nest: "<|a", "a|>"; an empty one must be refused); a count of merges (0-31),
// each two indexes into the vocabulary built so far (its 256 bytes, then each merge's result); the rest is the
// text. Whatever the tokenizer, loading it either succeeds or throws attn::Error; once loaded, the text must encode
// to the ids of the slow encoder (special tokens leftmost-longest, then pieces merged by rescanning for the
// lowest rank), and decode back to itself. A violation aborts; AddressSanitizer and UBSan catch the rest.
#include "attn/bpe_tokenizer.hpp"
#include "attn/error.hpp"
#include "attn/tokenizer.hpp"
#include "../cpp/fixtures.hpp"  // vocab.json's spelling of bytes

#include <nlohmann/json.hpp>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace {
using fixtures::spelled;

// GPT-2's vocab.json marks its special tokens by their spelling: <|...|>.
bool looks_special(const std::string& bytes) {
    return bytes.size() > 4 && bytes.rfind("<|", 0) == 0 && bytes.compare(bytes.size() - 2, 2, "|>") == 0;
}

struct Reader {
    const uint8_t* data;
    size_t size, at = 0;
    uint8_t next() { return at < size ? data[at++] : 0; }
};

struct Slow {
    std::map<std::string, int64_t> ids;                          // bytes -> id
    std::map<std::pair<std::string, std::string>, size_t> ranks;  // pair -> its last rank
    std::vector<std::pair<std::string, int64_t>> specials;

    std::vector<int64_t> piece(const std::string& p) const {
        if (const auto whole = ids.find(p); whole != ids.end()) return {whole->second};
        std::vector<std::string> parts;
        for (char c : p) parts.emplace_back(1, c);
        for (;;) {
            size_t best = parts.size(), best_rank = SIZE_MAX;
            for (size_t k = 0; k + 1 < parts.size(); ++k) {
                const auto r = ranks.find({parts[k], parts[k + 1]});
                if (r != ranks.end() && r->second < best_rank) best = k, best_rank = r->second;
            }
            if (best == parts.size()) break;
            parts[best] += parts[best + 1];
            parts.erase(parts.begin() + static_cast<std::ptrdiff_t>(best) + 1);
        }
        std::vector<int64_t> out;
        for (const std::string& part : parts) out.push_back(ids.at(part));
        return out;
    }

    std::vector<int64_t> encode(const attn::BPETokenizer& t, const std::string& text) const {
        std::vector<int64_t> out;
        size_t at = 0;
        const auto plain = [&](size_t end) {
            for (const std::string& p : t.pre_tokenize(text.substr(at, end - at))) {
                for (int64_t id : piece(p)) out.push_back(id);
            }
        };
        for (size_t start = 0; start < text.size(); ++start) {
            const std::pair<std::string, int64_t>* found = nullptr;
            for (const auto& s : specials) {
                if (text.compare(start, s.first.size(), s.first) == 0 && (!found || s.first.size() > found->first.size())) found = &s;
            }
            if (!found || start < at) continue;
            plain(start);
            out.push_back(found->second);
            at = start + found->first.size();
        }
        plain(text.size());
        return out;
    }
};
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    Reader in{data, size};
    Slow slow;
    std::vector<std::string> vocab;
    for (int b = 0; b < 256; ++b) vocab.emplace_back(1, static_cast<char>(b));
    nlohmann::json added = nlohmann::json::array();
    std::vector<std::string> special_texts;
    for (int k = in.next() % 4; k > 0; --k) {
        std::string s;
        for (int n = in.next() % 8; n > 0; --n) s += "<|a>x"[in.next() % 5];
        special_texts.push_back(s);
    }
    nlohmann::json merges = nlohmann::json::array();
    for (int k = in.next() % 32; k > 0; --k) {
        const std::string left = vocab[in.next() % vocab.size()], right = vocab[in.next() % vocab.size()];
        merges.push_back(spelled(left) + " " + spelled(right));
        // A pair listed twice keeps its last rank, as the tokenizers library's map of the list does.
        slow.ranks.insert_or_assign(std::make_pair(left, right), merges.size() - 1);
        bool known = false;
        for (const std::string& v : vocab) known = known || v == left + right;
        if (!known) vocab.push_back(left + right);
    }
    // A special token is a vocabulary token as in a real file: the one of its bytes if the merges made it, else
    // one more (an empty one has no entry: it must be refused before its id is looked at).
    std::vector<int64_t> special_ids;
    for (const std::string& text : special_texts) {
        if (text.empty()) {
            special_ids.push_back(0);
            continue;
        }
        size_t id = 0;
        while (id < vocab.size() && vocab[id] != text) ++id;
        if (id == vocab.size()) vocab.push_back(text);
        special_ids.push_back(static_cast<int64_t>(id));
    }
    nlohmann::json vocab_json = nlohmann::json::object();
    for (size_t id = 0; id < vocab.size(); ++id) {
        vocab_json[spelled(vocab[id])] = id;
        slow.ids.emplace(vocab[id], static_cast<int64_t>(id));
        if (looks_special(vocab[id])) slow.specials.emplace_back(vocab[id], static_cast<int64_t>(id));
    }
    for (size_t k = 0; k < special_texts.size(); ++k) {
        added.push_back({{"id", special_ids[k]}, {"content", special_texts[k]}, {"special", true}});
    }
    const nlohmann::json file = {{"model", {{"type", "BPE"}, {"vocab", vocab_json}, {"merges", merges}}},
                                 {"pre_tokenizer", {{"type", "ByteLevel"}, {"add_prefix_space", false}}},
                                 {"added_tokens", added}};
    const std::string text(reinterpret_cast<const char*>(data + in.at), size - in.at);
    try {
        const attn::BPETokenizer t = attn::BPETokenizer::from_tokenizer_json(file.dump());
        for (size_t k = 0; k < special_texts.size(); ++k) slow.specials.emplace_back(special_texts[k], special_ids[k]);
        if (t.encode(text) != slow.encode(t, text)) std::abort();
        if (t.decode(t.encode(text)) != text) std::abort();
    } catch (const attn::Error& e) {
        // The one thing wrong with such a file: an empty special token.
        bool empty = false;
        for (const std::string& text : special_texts) empty = empty || text.empty();
        if (!empty) std::abort();
    }
    return 0;
}
