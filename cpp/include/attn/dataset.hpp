// Data as nanoGPT prepares and samples it: the text is encoded with a
// tokenizer (tokenizer.hpp), the first 90% is the training split and the rest
// the validation split, and a batch is batch_size random windows of
// block_size tokens (targets shifted by one), their starts drawn with
// torch.randint(len(data) - block_size, (batch_size,)).
//
// With the repeats task (config.hpp's Task) the text gives the vocabulary only: every batch, in either
// split, is fresh repeated_sequences() of block_size + 1 tokens over it, split into inputs and targets.
#pragma once

#include "attn/config.hpp"
#include "attn/repeated_sequences.hpp"
#include "attn/tokenizer.hpp"
#include "attn/torch_rng.hpp"

#include <optional>
#include <string>
#include <vector>

namespace attn {

enum class Split { Train, Val };

struct Batch {
    int64_t B = 0, T = 0;
    std::vector<int64_t> x;  // (B, T) inputs
    std::vector<int64_t> y;  // (B, T) targets: x shifted left by one
};

class TextDataset {
public:
    // The tokenizer is built from the text itself or comes from a checkpoint;
    // every piece of the text must be in its vocabulary.
    TextDataset(const std::string& text, Tokenizer tokenizer, Task task = Task::Text, double train_fraction = 0.9);
    // A text a model folder's tokenizer encoded (fine-tuning: pretrained.hpp), its ids each in [0, vocab_size).
    TextDataset(std::vector<int32_t> ids, int64_t vocab_size, double train_fraction = 0.9);

    // Throws Error if the split is too short for windows of T + 1 tokens (or, for repeats, T + 1 is too short
    // to hold a repeat).
    Batch get_batch(Split split, int64_t B, int64_t T, Generator& gen) const;
    void check_block_size(int64_t T, const char* fn) const;

    // The tokenizer that encoded the text; an Error for a dataset made from ids (has_tokenizer() is false).
    const Tokenizer& tokenizer() const;
    bool has_tokenizer() const { return tokenizer_.has_value(); }
    int64_t vocab_size() const { return vocab_size_; }
    Task task() const { return task_; }
    const std::vector<int32_t>& train() const { return train_; }  // token ids, 4 bytes each
    const std::vector<int32_t>& val() const { return val_; }

private:
    void split(std::vector<int32_t> ids, double train_fraction);
    std::optional<Tokenizer> tokenizer_;
    int64_t vocab_size_ = 0;
    Task task_ = Task::Text;
    std::vector<int32_t> train_, val_;
};

}  // namespace attn
