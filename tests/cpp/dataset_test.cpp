// nanoGPT's batches: the train/val split and the random windows of get_batch.
#include "attn/dataset.hpp"
#include "fixtures.hpp"
#include "golden.hpp"

#include <algorithm>

using namespace attn;
using namespace fixtures;

TEST(TextDataset, NanoGPTSplitAndRandintWindows) {
    const std::string text = "abcdefghijklmnopqrstuvwxyz0123456789";
    const TextDataset data(text, Tokenizer(TokenizerKind::Char, text));  // 36 characters
    EXPECT_EQ(data.train().size(), 32u);  // int(36 * 0.9)
    EXPECT_EQ(data.val().size(), 4u);
    Generator gen(0), same(0);
    const Batch b = data.get_batch(Split::Train, 3, 5, gen);
    const std::vector<int64_t> starts = randint(0, 32 - 5, {3}, same);
    for (int64_t i = 0; i < 3; ++i)
        for (int64_t t = 0; t < 5; ++t) {
            EXPECT_EQ(b.x[static_cast<size_t>(i * 5 + t)], data.train()[static_cast<size_t>(starts[static_cast<size_t>(i)] + t)]);
            EXPECT_EQ(b.y[static_cast<size_t>(i * 5 + t)], data.train()[static_cast<size_t>(starts[static_cast<size_t>(i)] + t + 1)]);
        }
    EXPECT_THROW(data.get_batch(Split::Val, 1, 4, gen), Error);  // 4 characters: no window of 5
}

TEST(TextDataset, WordTokensSplitAtTheSameFraction) {
    const std::string text = agreement_corpus(50, 3);
    const Tokenizer words(TokenizerKind::Word, text);
    const TextDataset data(text, words);
    const std::vector<int64_t> all = words.encode(text);
    const size_t n = static_cast<size_t>(static_cast<double>(all.size()) * 0.9);
    ASSERT_EQ(data.train().size(), n);
    EXPECT_TRUE(std::equal(data.train().begin(), data.train().end(), all.begin()));
    EXPECT_TRUE(std::equal(data.val().begin(), data.val().end(), all.begin() + static_cast<int64_t>(n)));
    // Another fraction, as train.py's would be with a different split.
    const TextDataset half(text, words, Task::Text, 0.5);
    EXPECT_EQ(half.train().size(), all.size() / 2);
}

TEST(TextDataset, RefusesWhatCannotMakeABatch) {
    const std::string text = "abcdefghij";  // 9 training and 1 validation character
    const TextDataset data(text, Tokenizer(TokenizerKind::Char, text));
    try {
        data.check_block_size(4, "Trainer");
        FAIL() << "a block of 4 cannot fit a validation split of 1";
    } catch (const Error& e) {
        EXPECT_STREQ(e.what(), "Trainer: the text is too short for a block size of 4: its smaller split has 1 tokens, windows need 5");
    }
    EXPECT_THROW(TextDataset(text, Tokenizer(TokenizerKind::Char, text), Task::Text, 1.0), Error);
    EXPECT_THROW(TextDataset("abcz", Tokenizer(TokenizerKind::Char, "abc")), Error);  // 'z' is not in the vocabulary
    Generator gen(1);
    const Batch b = data.get_batch(Split::Train, 2, 8, gen);  // the only window of 9 in 9 tokens starts at 0
    EXPECT_EQ(b.x, (std::vector<int64_t>{0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 2, 3, 4, 5, 6, 7}));
    EXPECT_EQ(b.y, (std::vector<int64_t>{1, 2, 3, 4, 5, 6, 7, 8, 1, 2, 3, 4, 5, 6, 7, 8}));
}
