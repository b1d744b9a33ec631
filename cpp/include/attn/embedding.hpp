// nn.Embedding: a lookup table of learned vectors, one row per token id
// (notebook 003 embeds "Can you help me to translate this sentence" with
// Embedding(10, 16) after torch.manual_seed(123)).
#pragma once

#include "attn/tensor.hpp"
#include "attn/torch_rng.hpp"

namespace attn {

class Embedding {
public:
    // weight (num_embeddings, embedding_dim) drawn with normal_(0, 1), as
    // torch/nn/modules/sparse.py reset_parameters does.
    Embedding(int64_t num_embeddings, int64_t embedding_dim, Generator& gen = default_generator());

    // ids (any shape, each in [0, num_embeddings)) -> (*ids_shape, embedding_dim)
    Tensor forward(const std::vector<int64_t>& ids, const Shape& ids_shape) const;

    int64_t num_embeddings() const { return weight.shape[0]; }
    int64_t embedding_dim() const { return weight.shape[1]; }

    Tensor weight;  // (num_embeddings, embedding_dim)
};

}  // namespace attn
