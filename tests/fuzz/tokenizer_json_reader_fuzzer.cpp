// libFuzzer target: tokenizer.json's reader (cpp/src/tokenizer_json.cpp) against nlohmann's own parser. The reader
// scans model.vocab's and model.merges' entries itself, past nlohmann's lexer, for speed; here the input is the text
// after `"vocab": ` in a file, and whatever the reader takes must be what nlohmann's DOM parser reads from the same
// text: the same pieces and ids (a piece listed twice: its last id, as the DOM keeps), the same merges in order.
// Whatever the reader calls "not valid JSON" the DOM parser must refuse too. A violation aborts.
#include "../../cpp/src/tokenizer_json.hpp"
#include "attn/error.hpp"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <cstdlib>
#include <map>
#include <string>
#include <utility>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    using json = nlohmann::json;
    const std::string text = R"({"model": {"type": "BPE", "vocab": )" + std::string(reinterpret_cast<const char*>(data), size) + "}}";
    const json dom = json::parse(text, nullptr, false);
    attn::TokenizerJson read;
    try {
        read = attn::read_tokenizer_json(text, "tokenizer.json");
    } catch (const attn::Error& e) {
        if (std::string(e.what()) == "tokenizer.json is not valid JSON" && !dom.is_discarded()) std::abort();
        return 0;
    }
    if (dom.is_discarded()) std::abort();
    const json& model = dom["model"];
    if (read.has_vocab) {
        std::map<std::string, uint64_t> vocab;
        for (const auto& [piece, id] : read.vocab) vocab[std::string(read.view(piece))] = id;
        if (!model["vocab"].is_object() || model["vocab"].size() != vocab.size()) std::abort();
        for (const auto& [piece, id] : vocab) {
            if (!model["vocab"].contains(piece) || model["vocab"][piece] != id) std::abort();
        }
    }
    if (read.has_merges) {
        const json& merges = model["merges"];
        if (!merges.is_array() || merges.size() != read.merges.size()) std::abort();
        for (size_t r = 0; r < merges.size(); ++r) {
            std::pair<std::string, std::string> expected;
            if (merges[r].is_string()) {
                const std::string s = merges[r].get<std::string>();
                const size_t space = s.find(' ');
                if (space == std::string::npos) std::abort();
                expected = {s.substr(0, space), s.substr(space + 1)};
            } else {
                if (!merges[r].is_array() || merges[r].size() != 2) std::abort();
                expected = {merges[r][0].get<std::string>(), merges[r][1].get<std::string>()};
            }
            if (expected != std::pair<std::string, std::string>(read.view(read.merges[r].first), read.view(read.merges[r].second))) std::abort();
        }
    }
    return 0;
}
