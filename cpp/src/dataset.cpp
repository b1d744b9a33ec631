#include "attn/dataset.hpp"

#include "attn/tensor.hpp"

namespace attn {

TextDataset::TextDataset(const std::string& text, Tokenizer tokenizer, Task task, double train_fraction)
    : tokenizer_(std::move(tokenizer)), vocab_size_(tokenizer_->vocab_size()), task_(task) {
    // A corpus costs its text and 4 bytes a token: the ids are encoded once and split in place.
    if (text.size() > static_cast<size_t>(kMaxElements)) {
        throw Error("TextDataset: a text of " + std::to_string(text.size()) + " bytes is longer than the " +
                    std::to_string(kMaxElements) + " bytes the library takes (docs/limits.md)");
    }
    split(tokenizer_->encode_corpus(text), train_fraction);
}

TextDataset::TextDataset(std::vector<int32_t> ids, int64_t vocab_size, double train_fraction) : vocab_size_(vocab_size) {
    for (size_t i = 0; i < ids.size(); ++i) {
        if (ids[i] < 0 || ids[i] >= vocab_size) {
            throw Error("TextDataset: expected token ids in [0, " + std::to_string(vocab_size) + "), got " + std::to_string(ids[i]) +
                        " at index " + std::to_string(i));
        }
    }
    split(std::move(ids), train_fraction);
}

const Tokenizer& TextDataset::tokenizer() const {
    if (!tokenizer_) {
        throw Error("TextDataset: the text was encoded by a model folder's tokenizer, which a checkpoint cannot hold "
                    "(checkpoints hold character and word tokenizers): save the model as a folder");
    }
    return *tokenizer_;
}

void TextDataset::split(std::vector<int32_t> ids, double train_fraction) {
    if (!(train_fraction > 0.0 && train_fraction < 1.0)) {
        throw Error("TextDataset: expected a train fraction in (0, 1), got " + format_number(train_fraction));
    }
    // nanoGPT: n = len(data); train = data[:int(n*0.9)]; val = data[int(n*0.9):]
    const auto n = static_cast<int64_t>(static_cast<double>(ids.size()) * train_fraction);
    val_.assign(ids.begin() + n, ids.end());
    ids.resize(static_cast<size_t>(n));
    train_ = std::move(ids);
}

void TextDataset::check_block_size(int64_t T, const char* fn) const {
    if (task_ == Task::Repeats) {
        if (T + 1 < kMinRepeatedLength) {
            throw Error(std::string(fn) + ": the repeats task needs sequences of at least " +
                        std::to_string(kMinRepeatedLength) + " tokens (block size " + std::to_string(kMinRepeatedLength - 1) +
                        "), got a block size of " + std::to_string(T));
        }
        return;
    }
    const int64_t shortest = static_cast<int64_t>(std::min(train_.size(), val_.size()));
    if (T <= 0 || shortest <= T) {
        throw Error(std::string(fn) + ": the text is too short for a block size of " + std::to_string(T) +
                    ": its smaller split has " + std::to_string(shortest) + " tokens, windows need " +
                    std::to_string(T + 1));
    }
}

Batch TextDataset::get_batch(Split split, int64_t B, int64_t T, Generator& gen) const {
    if (task_ == Task::Repeats) {
        const RepeatedSequences s = repeated_sequences(B, T + 1, vocab_size_, gen, "getBatch");
        Batch batch;
        batch.B = B;
        batch.T = T;
        for (int64_t b = 0; b < B; ++b) {
            const auto row = s.ids.begin() + b * (T + 1);
            batch.x.insert(batch.x.end(), row, row + T);
            batch.y.insert(batch.y.end(), row + 1, row + T + 1);
        }
        return batch;
    }
    const std::vector<int32_t>& data = split == Split::Train ? train_ : val_;
    if (T <= 0 || static_cast<int64_t>(data.size()) <= T) {
        throw Error("getBatch: the " + std::string(split == Split::Train ? "training" : "validation") + " split has " +
                    std::to_string(data.size()) + " tokens, too few for windows of " + std::to_string(T + 1));
    }
    Batch batch;
    batch.B = B;
    batch.T = T;
    const std::vector<int64_t> starts = randint(0, static_cast<int64_t>(data.size()) - T, {B}, gen);
    for (int64_t i : starts) {
        batch.x.insert(batch.x.end(), data.begin() + i, data.begin() + i + T);
        batch.y.insert(batch.y.end(), data.begin() + i + 1, data.begin() + i + T + 1);
    }
    return batch;
}

}  // namespace attn
