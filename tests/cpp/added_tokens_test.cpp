// What a tokenizer.json adds around its BPE, held to the tokenizers library (the Rust crate transformers runs):
// added tokens and their flags (the cases of added_vocabulary.rs's own tests, test_single_word_is_correct,
// test_single_word_is_unicode_correct and test_lstrip_unicode_space, on a tokenizer of bytes), post-processors,
// tokenizer_config.json's special tokens and BOS/EOS, decoding without special tokens, and the merges' ranks.
#include "attn/bpe_tokenizer.hpp"
#include "fixtures.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <string>
#include <vector>

using attn::BPETokenizer;
using fixtures::error_of;
using fixtures::spelled;
using json = nlohmann::json;

namespace {
// A byte-level tokenizer.json: every byte a token (its id the byte), `extra` tokens after them with `merges`.
json bytes_file(const std::vector<std::string>& extra = {}, const std::vector<std::string>& merges = {}) {
    json vocab = json::object();
    for (int b = 0; b < 256; ++b) vocab[spelled(std::string(1, static_cast<char>(b)))] = b;
    for (size_t k = 0; k < extra.size(); ++k) vocab[extra[k]] = 256 + k;
    return {{"model", {{"type", "BPE"}, {"vocab", vocab}, {"merges", merges}}},
            {"pre_tokenizer", {{"type", "ByteLevel"}, {"add_prefix_space", false}, {"use_regex", false}}},
            {"added_tokens", json::array()}};
}

json added(int id, const std::string& content, bool lstrip, bool rstrip, bool single_word, bool normalized = false, bool special = true) {
    return {{"id", id}, {"content", content}, {"lstrip", lstrip}, {"rstrip", rstrip}, {"single_word", single_word},
            {"normalized", normalized}, {"special", special}};
}

// A text's ids where <m> stands for the added token 300 and every other character is its byte.
std::vector<int64_t> ids_of(const std::string& pattern) {
    std::vector<int64_t> out;
    for (size_t i = 0; i < pattern.size();) {
        if (pattern.compare(i, 3, "<m>") == 0) {
            out.push_back(300);
            i += 3;
        } else {
            out.push_back(static_cast<unsigned char>(pattern[i++]));
        }
    }
    return out;
}
}  // namespace

TEST(AddedTokens, SingleWordMatchesOnlyWholeWords) {
    json file = bytes_file();
    file["added_tokens"] = json::array({added(300, "<mask>", false, false, true)});
    const BPETokenizer t = BPETokenizer::from_tokenizer_json(file.dump());
    // test_single_word_is_correct: at the start, between spaces and at the end; not after "A", not before "ony".
    EXPECT_EQ(t.encode("<mask> My name <mask> A<mask> <mask>ony <mask>"), ids_of("<m> My name <m> A<mask> <mask>ony <m>"));
    // test_single_word_is_unicode_correct: punctuation and a dash are no word; a combining mark (U+0330) is.
    EXPECT_EQ(t.encode("<mask>, <mask>- \xE2\x97\x8C\xCC\xB0<mask>"), ids_of("<m>, <m>- \xE2\x97\x8C\xCC\xB0<mask>"));
}

TEST(AddedTokens, LstripAndRstripTakeTheWhitespaceBesideAMatch) {
    json file = bytes_file();
    file["added_tokens"] = json::array({added(300, "<mask>", true, true, true)});
    const BPETokenizer t = BPETokenizer::from_tokenizer_json(file.dump());
    // test_lstrip_unicode_space: " <mask> " and "\t<mask>\t" are the token; U+2000 is White_Space too, and the
    // whitespace the token before took is not taken again.
    EXPECT_EQ(t.encode("Hi <mask> there\t<mask>\t<mask>\xE2\x80\x80"), ids_of("Hi<m>there<m><m>"));
    // Each flag alone: 'a <s> b' keeps the space on the side whose flag is off.
    for (const auto& [l, r, expected] : {std::tuple{true, false, "a<m> b"}, std::tuple{false, true, "a <m>b"}, std::tuple{false, false, "a <m> b"}}) {
        file["added_tokens"] = json::array({added(300, "<s>", l, r, false)});
        EXPECT_EQ(BPETokenizer::from_tokenizer_json(file.dump()).encode("a <s> b"), ids_of(expected)) << "lstrip " << l << " rstrip " << r;
    }
}

TEST(AddedTokens, NormalizedTokensAreMatchedInTheNormalizedText) {
    json file = bytes_file();
    file["normalizer"] = {{"type", "Replace"}, {"pattern", {{"String", " "}}}, {"content", "_"}};
    // "a b" marked normalized matches the text's "a b" once it reads "a_b"; "c d" not marked matches only "c d" as
    // given, which the normalizer then never sees.
    file["added_tokens"] = json::array({added(300, "a b", false, false, false, true, false), added(301, "c d", false, false, false, false, false)});
    const BPETokenizer t = BPETokenizer::from_tokenizer_json(file.dump());
    EXPECT_EQ(t.encode("x a b c d"), (std::vector<int64_t>{'x', '_', 300, '_', 301}));
    EXPECT_EQ(t.encode("a_b"), (std::vector<int64_t>{300}));  // the normalized form is what it matches
    // Decoding writes a normalized token as the normalizer wrote it (the crate's normalized_cache).
    EXPECT_EQ(t.decode({300, 301}), "a_bc d");
}

TEST(PostProcessors, WhatEachAddsAroundOneText) {
    const auto ids = [](const json& post, const std::string& text) {
        json file = bytes_file();
        file["post_processor"] = post;
        return BPETokenizer::from_tokenizer_json(file.dump()).encode(text);
    };
    const json special = {{"<s>", {{"id", "<s>"}, {"ids", {1, 2}}, {"tokens", {"<", "s"}}}}, {"</s>", {{"id", "</s>"}, {"ids", {3}}, {"tokens", {"/"}}}}};
    const json single = {{{"SpecialToken", {{"id", "<s>"}, {"type_id", 0}}}}, {{"Sequence", {{"id", "A"}, {"type_id", 0}}}},
                         {{"SpecialToken", {{"id", "</s>"}, {"type_id", 0}}}}};
    EXPECT_EQ(ids({{"type", "TemplateProcessing"}, {"single", single}, {"special_tokens", special}}, "ab"), (std::vector<int64_t>{1, 2, 'a', 'b', 3}));
    EXPECT_EQ(ids({{"type", "TemplateProcessing"}, {"single", {"<s>", "$A:0"}}, {"special_tokens", special}}, "ab"), (std::vector<int64_t>{1, 2, 'a', 'b'}));
    EXPECT_EQ(ids({{"type", "RobertaProcessing"}, {"cls", {"<s>", 0}}, {"sep", {"</s>", 2}}}, "x"), (std::vector<int64_t>{0, 'x', 2}));
    EXPECT_EQ(ids({{"type", "BertProcessing"}, {"cls", {"[CLS]", 101}}, {"sep", {"[SEP]", 102}}}, "x"), (std::vector<int64_t>{101, 'x', 102}));
    // Llama 3.2's: ByteLevel (offsets only), then the template; an inner processor's tokens stay inside.
    EXPECT_EQ(ids({{"type", "Sequence"}, {"processors", {{{"type", "ByteLevel"}},
                   {{"type", "TemplateProcessing"}, {"single", {"<s>", "$A"}}, {"special_tokens", special}},
                   {{"type", "RobertaProcessing"}, {"cls", {"c", 9}}, {"sep", {"s", 8}}}}}}, "x"),
              (std::vector<int64_t>{9, 1, 2, 'x', 8}));
    EXPECT_EQ(ids({{"type", "ByteLevel"}}, "x"), (std::vector<int64_t>{'x'}));

    json file = bytes_file();
    file["post_processor"] = {{"type", "TemplateProcessing"}, {"single", {"<s>", "$A"}}, {"special_tokens", special}};
    const BPETokenizer t = BPETokenizer::from_tokenizer_json(file.dump());
    EXPECT_EQ(t.encode("x", false), (std::vector<int64_t>{'x'}));
    EXPECT_EQ(t.encode(""), (std::vector<int64_t>{1, 2}));  // as tokenizer("") gives

    const auto error = [](const json& post) {
        json f = bytes_file();
        f["post_processor"] = post;
        return error_of([&] { BPETokenizer::from_tokenizer_json(f.dump()); });
    };
    EXPECT_EQ(error({{"type", "TemplateProcessing"}, {"single", {"<s>", "$B"}}, {"special_tokens", special}}),
              "BPETokenizer: tokenizer.json: post_processor.single[1] is \"$B\"; a single text has only the sequence $A");
    EXPECT_EQ(error({{"type", "TemplateProcessing"}, {"single", {"<x>", "$A"}}, {"special_tokens", special}}),
              "BPETokenizer: tokenizer.json: post_processor.single[0] names \"<x>\", which special_tokens does not hold");
    EXPECT_EQ(error({{"type", "TemplateProcessing"}, {"single", {"<s>"}}, {"special_tokens", special}}),
              "BPETokenizer: tokenizer.json: post_processor.single has no sequence A (the text would be dropped)");
    EXPECT_EQ(error({{"type", "Fancy"}}), "BPETokenizer: tokenizer.json: post_processor.type is \"Fancy\"; this library's post-processors are "
                                           "TemplateProcessing, RobertaProcessing, BertProcessing, ByteLevel and Sequence");
}

TEST(TokenizerConfig, NamesTheSpecialTokensAndLlamasClassDecidesBosAndEos) {
    json file = bytes_file({"<s>", "</s>"});
    file["added_tokens"] = json::array({added(256, "<s>", false, false, false), added(257, "</s>", false, false, false)});
    file["post_processor"] = {{"type", "ByteLevel"}};
    const json config = {{"bos_token", "<s>"}, {"eos_token", {{"__type", "AddedToken"}, {"content", "</s>"}}}, {"pad_token", nullptr}};
    const BPETokenizer plain = BPETokenizer::from_tokenizer_json(file.dump(), config.dump());
    EXPECT_EQ(plain.bos_token(), "<s>");
    EXPECT_EQ(plain.eos_token(), "</s>");
    EXPECT_FALSE(plain.pad_token().has_value());
    EXPECT_EQ(plain.token_id("</s>"), 257);
    EXPECT_EQ(plain.encode("x"), (std::vector<int64_t>{'x'}));  // PreTrainedTokenizerFast keeps the file's
    // LlamaTokenizerFast.update_post_processor: BOS by default, EOS when asked, whatever the file's processor says.
    json llama = config;
    llama["tokenizer_class"] = "LlamaTokenizer";
    EXPECT_EQ(BPETokenizer::from_tokenizer_json(file.dump(), llama.dump()).encode("x"), (std::vector<int64_t>{256, 'x'}));
    llama["add_eos_token"] = true;
    llama["add_bos_token"] = false;
    EXPECT_EQ(BPETokenizer::from_tokenizer_json(file.dump(), llama.dump()).encode("x"), (std::vector<int64_t>{'x', 257}));
    llama["eos_token"] = nullptr;
    EXPECT_EQ(error_of([&] { BPETokenizer::from_tokenizer_json(file.dump(), llama.dump()); }),
              "BPETokenizer: tokenizer_config.json: add_eos_token is true but no eos_token is named");
    EXPECT_EQ(error_of([&] { BPETokenizer::from_tokenizer_json(file.dump(), "{\"bos_token\": 3}"); }),
              "BPETokenizer: tokenizer_config.json: bos_token is 3, expected a token's text or {\"content\": …}");
    // Decoding leaves the special tokens out when asked; a non-special added token stays.
    file["added_tokens"][1]["special"] = false;
    const BPETokenizer t = BPETokenizer::from_tokenizer_json(file.dump());
    EXPECT_TRUE(t.is_special(256));
    EXPECT_FALSE(t.is_special(257));
    EXPECT_EQ(t.decode({256, 'h', 'i', 257}), "<s>hi</s>");
    EXPECT_EQ(t.decode({256, 'h', 'i', 257}, true), "hi</s>");
}

// transformers' decode cleans up " ." " ?" " !" " ," " ' " " n't" " 'm" " 's" " 've" " 're" when the file says
// clean_up_tokenization_spaces (Llama 3's and GPT-2's do); unset is false, as in transformers since v4.45.
TEST(TokenizerConfig, CleanUpTokenizationSpacesIsTheFilesUnlessDecodeIsTold) {
    // (what Python's str.replace chain of clean_up_tokenization gives: " 't" is not in its list, " n't" is)
    const std::string text = "Hello , world . I don 't know , do you ? It 's ' quoted ' ! We 're , they 've , I 'm. Do n't";
    const std::string cleaned = "Hello, world. I don 't know, do you? It's'quoted '! We're, they've, I'm. Don't";
    const BPETokenizer unset = BPETokenizer::from_tokenizer_json(bytes_file().dump());
    std::vector<int64_t> ids(text.begin(), text.end());
    EXPECT_FALSE(unset.clean_up_tokenization_spaces());
    EXPECT_EQ(unset.decode(ids), text);
    EXPECT_EQ(unset.decode(ids, false, true), cleaned);
    const BPETokenizer on = BPETokenizer::from_tokenizer_json(bytes_file().dump(), R"({"clean_up_tokenization_spaces": true})");
    EXPECT_TRUE(on.clean_up_tokenization_spaces());
    EXPECT_EQ(on.decode(ids), cleaned);
    EXPECT_EQ(on.decode(ids, false, false), text);
    EXPECT_EQ(on.encode(text, false), ids);  // encoding is untouched
    EXPECT_EQ(error_of([&] { BPETokenizer::from_tokenizer_json(bytes_file().dump(), R"({"clean_up_tokenization_spaces": "yes"})"); }),
              "BPETokenizer: tokenizer_config.json: clean_up_tokenization_spaces is \"yes\", expected true or false");
}

TEST(BPEMerges, APairListedTwiceKeptItsFirstRank) {
    // The tokenizers library builds its merge map from the list, so a pair listed twice has its last rank: here
    // "a b" ranks after "b c", and "abc" is a + bc. The first rank made it ab + c.
    const BPETokenizer t = BPETokenizer::from_tokenizer_json(bytes_file({"ab", "bc"}, {"a b", "b c", "a b"}).dump());
    EXPECT_EQ(t.encode("abc"), (std::vector<int64_t>{'a', 257}));
}

TEST(BPEMerges, TokensMadeOutOfIdOrderAreFoundAll) {
    // Reading a file guesses that a merge makes the token the merge before made, or the next id (bpe_tokenizer_files.cpp:
    // true of every real file read here); here the merges make 258, 257 and 256, and the guesses all miss.
    const BPETokenizer t = BPETokenizer::from_tokenizer_json(bytes_file({"cd", "bc", "ab"}, {"a b", "b c", "c d"}).dump());
    EXPECT_EQ(t.encode("abcd"), (std::vector<int64_t>{258, 256}));
    EXPECT_EQ(t.encode("bcd"), (std::vector<int64_t>{257, 'd'}));
}

TEST(BPEMerges, AVocabularyPieceNoMergeMakesWasTakenWhole) {
    // GPT-2's vocab.json + merges.txt: "ab" is a token but no merge makes it, so "ab" is a, b (encoder.py's bpe(),
    // and the tokenizers library without ignore_merges); only a tokenizer.json's ignore_merges takes it whole.
    json vocab = json::object();
    for (int b = 0; b < 256; ++b) vocab[spelled(std::string(1, static_cast<char>(b)))] = b;
    vocab["ab"] = 256;
    EXPECT_EQ(BPETokenizer::from_files(vocab.dump(), "#version: 0.2\n").encode("ab"), (std::vector<int64_t>{'a', 'b'}));
    json file = bytes_file({"ab"});
    EXPECT_EQ(BPETokenizer::from_tokenizer_json(file.dump()).encode("ab"), (std::vector<int64_t>{'a', 'b'}));
    file["model"]["ignore_merges"] = true;
    EXPECT_EQ(BPETokenizer::from_tokenizer_json(file.dump()).encode("ab"), (std::vector<int64_t>{256}));
}

TEST(TokenizerJsonReader, EntriesReadPastTheLexerAreTheTextsTheFileWrites) {
    // model.vocab and model.merges are scanned without nlohmann's lexer (tokenizer_json.cpp): entries written with
    // \u escapes (a surrogate pair among them), indented over lines, or as ["left", "right"] pairs read as the
    // compact file does. tests/fuzz/tokenizer_json_reader_fuzzer.cpp holds the scanner to nlohmann's parser.
    // (a token no bytes spell, as DeepSeek-V3's "<｜begin▁of▁sentence｜>", decodes as its text: here one written with
    // a surrogate pair once escaped)
    json file = bytes_file({"Ġt", "Ġth", "😀"}, {"Ġ t", "Ġt h"});
    const auto reads_as_written = [](const std::string& text) {
        const BPETokenizer t = BPETokenizer::from_tokenizer_json(text);
        EXPECT_EQ(t.encode(" the"), (std::vector<int64_t>{257, 'e'}));
        EXPECT_EQ(t.decode({258}), "😀");
    };
    reads_as_written(file.dump());
    reads_as_written(file.dump(2, ' ', true));  // indented, every character past ASCII escaped
    file["model"]["merges"] = json::array({json::array({"Ġ", "t"}), json::array({"Ġt", "h"})});
    reads_as_written(file.dump(1, '\t', true));
    // Where the scanner gives up, the lexer reads on and names what is wrong.
    const auto error = [](const std::string& text) { return error_of([&] { BPETokenizer::from_tokenizer_json(text); }); };
    EXPECT_EQ(error(R"({"model": {"type": "BPE", "vocab": {"a": 0, "b": 01}, "merges": []}})"), "BPETokenizer: tokenizer.json is not valid JSON");
    EXPECT_EQ(error(R"({"model": {"type": "BPE", "vocab": {"a": 0,}, "merges": []}})"), "BPETokenizer: tokenizer.json is not valid JSON");
    EXPECT_EQ(error(R"({"model": {"type": "BPE", "vocab": {"\ud800": 0}, "merges": []}})"), "BPETokenizer: tokenizer.json is not valid JSON");
    EXPECT_EQ(error("{\"model\": {\"type\": \"BPE\", \"vocab\": {\"\xed\xa0\x80\": 0}, \"merges\": []}}"), "BPETokenizer: tokenizer.json is not valid JSON");
    EXPECT_EQ(error(R"({"model": {"type": "BPE", "vocab": {"a": 0, "b": 1e3}, "merges": []}})"),
              "BPETokenizer: tokenizer.json: model.vocab: the id of \"b\" must be a whole number >= 0, got 1e3");
    EXPECT_EQ(error(R"({"model": {"type": "BPE", "vocab": {}, "merges": ["a b", ["a", "b"], "ab"]}})"),
              "BPETokenizer: tokenizer.json: model.merges[2] is \"ab\", expected \"left right\" or [\"left\", \"right\"]");
}

TEST(TokenizerJsonReader, WhatItRefusesIsNamed) {
    const auto error = [](const std::string& text) { return error_of([&] { BPETokenizer::from_tokenizer_json(text); }); };
    EXPECT_EQ(error(R"({"model": {"type": "BPE", "vocab": {"a": 1.5}, "merges": []}})"),
              "BPETokenizer: tokenizer.json: model.vocab: the id of \"a\" must be a whole number >= 0, got 1.5");
    EXPECT_EQ(error(R"({"model": {"type": "BPE", "vocab": {"a": -1}, "merges": []}})"),
              "BPETokenizer: tokenizer.json: model.vocab: the id of \"a\" must be a whole number >= 0, got -1");
    EXPECT_EQ(error(R"({"model": {"type": "BPE", "vocab": {}, "merges": ["ab"]}})"),
              "BPETokenizer: tokenizer.json: model.merges[0] is \"ab\", expected \"left right\" or [\"left\", \"right\"]");
    EXPECT_EQ(error(R"({"model": {"type": "BPE", "vocab": {}, "merges": [["a", "b", "c"]]}})"),
              "BPETokenizer: tokenizer.json: model.merges[0] is an array of 3 strings, expected \"left right\" or [\"left\", \"right\"]");
    EXPECT_EQ(error(R"({"model": {"type": "BPE", "vocab": {}, "merges": [], "type": "BPE"}})"),
              "BPETokenizer: tokenizer.json holds the key \"type\" twice in one object");
    EXPECT_EQ(error(R"({"model": {"type": "BPE", "vocab": [], "merges": []}})"), "BPETokenizer: tokenizer.json: model.vocab must be an object {\"token\": id}");
    EXPECT_EQ(error(R"({"model": {"type": "BPE", "vocab": {}}})"), "BPETokenizer: tokenizer.json: model has no \"merges\"");
    EXPECT_EQ(error("{\"model\": "), "BPETokenizer: tokenizer.json is not valid JSON");
    // The same token twice in model.vocab is two ids for one piece.
    EXPECT_EQ(error(R"({"model": {"type": "BPE", "vocab": {"a": 0, "a": 1}, "merges": []}})"),
              "BPETokenizer: tokenizer.json: two tokens of model.vocab stand for the same bytes \"a\"");
}
