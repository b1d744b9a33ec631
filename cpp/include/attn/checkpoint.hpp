// Checkpoints in the safetensors format (https://github.com/huggingface/safetensors):
//
//   [8 bytes: header length N, little-endian u64][N bytes: JSON header][raw data]
//
// The header maps each tensor name to {"dtype": "F32", "shape": [...],
// "data_offsets": [begin, end]} (offsets into the raw data) and carries
// "__metadata__", a string-to-string map. Tensors use nanoGPT's state_dict
// names (transformer.h.0.attn.c_attn.weight, ...); the metadata holds the
// model config ("config", JSON), the tokenizer ("tokenizer": "char" or "word";
// absent means "char") and its vocabulary ("vocabulary", see Tokenizer) and,
// for a checkpoint written during training, the iteration, the training config
// and AdamW's moments (tensors optimizer.exp_avg.<name>, optimizer.exp_avg_sq.<name>).
// Python's safetensors.torch.load_file reads these files unchanged.
//
// The metadata also carries "digest": "xxh3-128:<32 hex digits>", the XXH3
// 128-bit hash of the header without the digest (as nlohmann::json dumps it)
// followed by the raw data. A flipped bit anywhere, in a weight or in the
// vocabulary, changes it: the loader refuses such a file as damaged instead
// of loading silently changed weights. Files without a digest (written by
// another tool) still load, with Checkpoint::verified false.
//
// load_checkpoint validates everything before it trusts a byte: header length
// within the file, well-formed JSON, the digest, dtypes, shapes, offsets in
// bounds and not overlapping, sizes consistent with the config, finite values.
// Anything else is an Error naming what is wrong, never a crash. save_checkpoint
// refuses to write what load_checkpoint would refuse (non-finite values).
#pragma once

#include "attn/adamw.hpp"
#include "attn/gpt.hpp"
#include "attn/tokenizer.hpp"
#include "attn/trainer.hpp"

#include <optional>
#include <string>

namespace attn {

struct TrainingState {
    int64_t iter = 0;
    TrainConfig config;
    AdamW optimizer;
};

struct Checkpoint {
    GPT model;
    Tokenizer tokenizer;     // the model's vocabulary: vocab_size pieces
    std::optional<TrainingState> training;
    bool verified = false;   // the file carried a digest and it matched
};

// The bytes of a checkpoint of model (+ the trainer's optimizer and progress).
// The tokenizer's vocabulary size must be the model's.
std::string save_checkpoint(const GPT& model, const Tokenizer& tokenizer, const Trainer* trainer = nullptr);
Checkpoint load_checkpoint(const std::string& bytes);

// Largest header the loader accepts (bytes).
constexpr uint64_t kMaxHeaderBytes = uint64_t{64} << 20;
// Most tensors a header may list: a model at GPTConfig's limit of 1,024 layers has ~12,300, three times that
// with the optimizer's moments.
constexpr int64_t kMaxTensors = int64_t{1} << 16;

}  // namespace attn
