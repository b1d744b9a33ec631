#include "attn/embedding.hpp"

#include <algorithm>
#include <string>

namespace attn {

namespace {
Shape checked_shape(int64_t num, int64_t dim) {
    if (num <= 0 || dim <= 0) {
        throw Error("Embedding: expected num_embeddings > 0 and embedding_dim > 0, got " +
                    std::to_string(num) + " and " + std::to_string(dim));
    }
    return {num, dim};
}
}  // namespace

Embedding::Embedding(int64_t num, int64_t dim, Generator& gen) : weight(checked_shape(num, dim)) {
    normal_(weight, 0.0, 1.0, gen);
}

Tensor Embedding::forward(const std::vector<int64_t>& ids, const Shape& ids_shape) const {
    if (numel(ids_shape, "Embedding.forward") != static_cast<int64_t>(ids.size())) {
        throw Error("Embedding.forward: ids shape " + shape_str(ids_shape) + " needs " +
                    std::to_string(numel(ids_shape)) + " ids, got " + std::to_string(ids.size()));
    }
    Shape out_shape = ids_shape;
    out_shape.push_back(embedding_dim());
    Tensor out(out_shape);
    const int64_t d = embedding_dim();
    for (size_t i = 0; i < ids.size(); ++i) {
        if (ids[i] < 0 || ids[i] >= num_embeddings()) {
            throw Error("Embedding.forward: expected ids in [0, " + std::to_string(num_embeddings()) +
                        "), got " + std::to_string(ids[i]) + " at index " + std::to_string(i));
        }
        std::copy_n(weight.data.begin() + ids[i] * d, d, out.data.begin() + static_cast<int64_t>(i) * d);
    }
    return out;
}

}  // namespace attn
