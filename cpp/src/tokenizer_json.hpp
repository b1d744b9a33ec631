// A tokenizer.json read once, in one pass, handed to the readers that need its parts: pretrained_tokenizer looks at
// model.type to choose the tokenizer, and BPETokenizer::from_tokenizer_json reads the rest.
//
// Why a pass of its own rather than parse_bounded: nearly all of a real file is model.vocab and model.merges (Llama
// 3's 9 MB: 128,000 tokens and 280,147 merges; Gemma 3's 33 MB: 262,144 and 514,906). As a JSON tree every token
// is a node of an ordered map and every merge an array of two string nodes; building that tree, after a first pass
// that only counted values, took most of the ~1 s that loading Llama 3's file took. Here a SAX pass (nlohmann's
// parser is iterative, so nesting costs no stack) streams the vocabulary and the merges straight into two flat
// lists and builds a tree only of the rest (the pipeline, the added tokens, the post-processor), while it counts
// values, refuses a key twice in one object and nesting deeper than kMaxJsonDepth as parse_bounded does.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace attn {

struct TokenizerJson {
    // The file, without model.vocab and model.merges when they are read into the lists below (model.vocab when it
    // is an object, model.merges when it is an array; in any other form they stay here, for an error to name).
    nlohmann::json value;
    // The strings of the lists, back to back: a piece of text each, so that reading Gemma 3's 262,144 tokens and
    // 514,906 merges allocates three growing buffers rather than 1.3 million strings.
    struct Piece {
        uint32_t begin, size;  // bytes of `text`
    };
    std::string text;
    std::string_view view(Piece p) const { return std::string_view(text).substr(p.begin, p.size); }

    bool has_vocab = false;
    std::vector<std::pair<Piece, uint64_t>> vocab;  // (V) model.vocab's {"piece": id}, in file order
    bool has_merges = false;
    std::vector<std::pair<Piece, Piece>> merges;   // (M) by rank: "left right" split at its first space, or a pair
};

// Reads a tokenizer.json. Throws FormatError naming `what` ("BPETokenizer: tokenizer.json") for a text that is not
// JSON, that nests deeper than kMaxJsonDepth or holds more than kMaxTokenizerJsonValues values or a key twice in
// one object, for an id of model.vocab that is not a whole number ≥ 0, and for a merge of neither form.
// model.vocab's keys are not checked for repeats here: its readers build a map of them anyway and name a repeat.
TokenizerJson read_tokenizer_json(const std::string& text, const std::string& what);

}  // namespace attn
