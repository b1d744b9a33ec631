// The tables a BPETokenizer encodes with: its vocabulary's index and its merges. Built by the loaders
// (bpe_tokenizer_files.cpp), read by the encoder (bpe_tokenizer.cpp); shared between copies of a tokenizer.
#pragma once

#include "attn/bpe_tokenizer.hpp"
#include "attn/tokenizer.hpp"
#include "flat_hash.hpp"

#include <cstdint>

namespace attn {

struct BPETables {
    StringIndex ids;      // the model's vocabulary: the ids of tokens, keyed by their bytes (token_bytes(id))
    MergeTable merges;    // (left id << 32 | right id) -> rank, merged id
};

// Every id of a vocabulary, from either reader, fits the index.
static_assert(kMaxTokenizerVocabulary - 1 <= StringIndex::kMaxIndex && kMaxVocabulary - 1 <= StringIndex::kMaxIndex);

inline uint64_t pair_key(int32_t left, int32_t right) { return (static_cast<uint64_t>(static_cast<uint32_t>(left)) << 32) | static_cast<uint32_t>(right); }

}  // namespace attn
