// The character and word tokenizers (tokenizer.hpp).
#include "attn/tensor.hpp"
#include "attn/tokenizer.hpp"
#include "fixtures.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

using namespace attn;
using fixtures::error_of;

TEST(CharTokenizer, SortedUniqueCharactersAndRoundTrip) {
    const Tokenizer tok(TokenizerKind::Char, "hello world");
    EXPECT_EQ(tok.vocabulary(), " dehlorw");
    EXPECT_EQ(tok.encode("hello"), (std::vector<int64_t>{3, 2, 4, 4, 5}));
    EXPECT_EQ(tok.decode(tok.encode("low red")), "low red");
}

TEST(CharTokenizer, CodePointsNotBytes) {
    const Tokenizer tok(TokenizerKind::Char, "naïve café — ok");
    EXPECT_EQ(tok.vocab_size(), 12);  // space a c e f i k n o v é ï — : 13 minus duplicates
    EXPECT_EQ(tok.decode(tok.encode("café")), "café");
    EXPECT_EQ(tok.encode("é").size(), 1u);
}

TEST(CharTokenizer, UnknownCharactersAndBadIdsAreErrors) {
    const Tokenizer tok(TokenizerKind::Char, "abc");
    EXPECT_EQ(error_of([&] { tok.encode("abz"); }),
              "CharTokenizer.encode: character 'z' (U+007A) at position 2 is not in the vocabulary of 3 characters");
    EXPECT_THROW(tok.decode({0, 3}), Error);
    EXPECT_THROW(Tokenizer(TokenizerKind::Char, ""), Error);
    EXPECT_THROW(Tokenizer(TokenizerKind::Char, std::string("a\xff")), Error);
    EXPECT_THROW(Tokenizer(TokenizerKind::Char, std::string("\xc0\xaf")), Error);  // overlong '/'
}

TEST(WordTokenizer, SpaceBelongsToTheWordAfterIt) {
    const std::string text = "The cats, which sat on the mat, purr.\nThe cat purrs.\n";
    EXPECT_EQ(split_pieces(TokenizerKind::Word, text, "test"),
              (std::vector<std::string>{"The", " cats", ",", " which", " sat", " on", " the", " mat", ",", " purr", ".", "\n",
                                        "The", " cat", " purrs", ".", "\n"}));
    const Tokenizer tok(TokenizerKind::Word, text);
    EXPECT_EQ(tok.vocab_size(), 13);
    EXPECT_EQ(tok.pieces().front(), "\n");  // sorted by UTF-8 bytes: "\n" < " cat" < ... < "The"
    EXPECT_EQ(tok.pieces().back(), "The");
    EXPECT_EQ(tok.decode(tok.encode("The cat, which sat on the mat, purrs.")), "The cat, which sat on the mat, purrs.");
}

TEST(WordTokenizer, WhitespaceDigitsAndNonAsciiLetters) {
    // A space before whitespace (or at the end) is its own piece; tabs and
    // newlines always are. "café" is one word, "—" is punctuation.
    EXPECT_EQ(split_pieces(TokenizerKind::Word, "a  b\t42 café — x ", "test"),
              (std::vector<std::string>{"a", " ", " b", "\t", "42", " café", " —", " x", " "}));
    const Tokenizer tok(TokenizerKind::Word, "naïve café");
    EXPECT_EQ(tok.pieces(), (std::vector<std::string>{" café", "naïve"}));
}

TEST(WordTokenizer, UnknownWordsAreErrorsNamingTheWord) {
    const Tokenizer tok(TokenizerKind::Word, "The cat purrs.");
    EXPECT_EQ(error_of([&] { tok.encode("The dog purrs."); }),
              "WordTokenizer.encode: word ' dog' at position 1 is not in the vocabulary of 4 words");
    EXPECT_THROW(tok.decode({4}), Error);
    EXPECT_THROW(Tokenizer(TokenizerKind::Word, ""), Error);
}

TEST(WordTokenizer, VocabularyIsAJsonArrayThatLoadsBack) {
    const Tokenizer tok(TokenizerKind::Word, "The cats purr.\n");
    EXPECT_EQ(tok.vocabulary(), R"(["\n"," cats"," purr",".","The"])");
    const Tokenizer back = Tokenizer::from_vocabulary(TokenizerKind::Word, tok.vocabulary(), "test");
    EXPECT_EQ(back.pieces(), tok.pieces());
    EXPECT_EQ(back.encode("The cats purr."), tok.encode("The cats purr."));
}

TEST(Tokenizer, FromVocabularyRejectsWhatEncodeCouldNotHaveMade) {
    auto message = [](TokenizerKind kind, const std::string& v) {
        return error_of([&] { Tokenizer::from_vocabulary(kind, v, "load"); });
    };
    EXPECT_EQ(message(TokenizerKind::Char, "ba"), "load: a vocabulary must list distinct characters in sorted order");
    EXPECT_EQ(message(TokenizerKind::Char, "aa"), "load: a vocabulary must list distinct characters in sorted order");
    EXPECT_EQ(message(TokenizerKind::Char, ""), "load: expected a non-empty vocabulary");
    EXPECT_EQ(message(TokenizerKind::Word, R"([" purr", " cats"])"), "load: a vocabulary must list distinct words in sorted order");
    EXPECT_EQ(message(TokenizerKind::Word, R"(["cat purr"])"), "load: \"cat purr\" is not a single word piece");
    EXPECT_EQ(message(TokenizerKind::Word, R"([""])"), "load: \"\" is not a single word piece");
    EXPECT_EQ(message(TokenizerKind::Word, R"(["a", 3])"), "load: a word vocabulary must be a JSON array of strings");
    EXPECT_EQ(message(TokenizerKind::Word, "abc"), "load: a word vocabulary must be a JSON array of strings");
    EXPECT_EQ(message(TokenizerKind::Word, "[]"), "load: expected a non-empty vocabulary");
}

// A text of a million distinct words made a vocabulary (and then a model) of a million pieces, 612 MB, before the
// Trainer found the step too large. The vocabulary is counted as views into the text and refused past its limit.
TEST(WordTokenizer, ATextOfTooManyDistinctWordsIsRefusedWhileCounting) {
    std::string text;
    for (int64_t i = 0; i <= kMaxVocabulary; ++i) text += " w" + std::to_string(i);
    EXPECT_EQ(error_of([&] { Tokenizer(TokenizerKind::Word, text); }),
              "WordTokenizer: the text has more than 262144 distinct words, the library's limit for a vocabulary; use "
              "character tokens");
    text.resize(text.rfind(' '));  // one word fewer: exactly the limit
    EXPECT_EQ(Tokenizer(TokenizerKind::Word, text).vocab_size(), kMaxVocabulary);
    nlohmann::json too_many = nlohmann::json::array();
    for (int64_t i = 0; i <= kMaxVocabulary; ++i) too_many.push_back("w" + std::to_string(1000000 + i));
    EXPECT_EQ(error_of([&] { Tokenizer::from_vocabulary(TokenizerKind::Word, too_many.dump(), "loadCheckpoint"); }),
              "loadCheckpoint: a vocabulary holds at most 262144 pieces, got 262145");
}
