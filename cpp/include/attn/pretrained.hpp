// GPT-2-family models as Hugging Face stores them (a model folder's
// config.json and model.safetensors, as GPT2LMHeadModel.save_pretrained writes
// them), read into this library's GPT a tensor at a time, so that the file
// never has to be in memory whole:
//
//   PretrainedLoader loader(config_json, header, file_size);  // everything checked, the model allocated
//   for (size_t i = 0; i < loader.tensors().size(); ++i)       // in file order
//       loader.read(i, 0, bytes_of(loader.tensors()[i]));     // or in pieces, at increasing offsets
//   GPT model = loader.finish();
//
// What differs from this library's own layout: GPT-2's attention and MLP
// weights are Conv1D, stored (in, out), the transpose of nn.Linear's (out, in)
// used here; names may lack the "transformer." prefix; the causal-mask
// buffers attn.bias / attn.masked_bias are not parameters; tensors may be
// float32, float16 or bfloat16 (widened to float32, exactly). The model is
// pre-norm with biases everywhere, lm_head tied to wte unless the config says
// otherwise, and the GELU of config.activation_function (GPT-2: "gelu_new",
// the tanh approximation; nanoGPT's exported models: "gelu").
#pragma once

#include "attn/config.hpp"
#include "attn/gpt.hpp"
#include "attn/tensor.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace attn {

// config.json of a GPT-2-family model as this library's GPTConfig. A key asking for what the engine does not do
// (another model_type or activation_function, scale_attn_by_inverse_layer_idx, reorder_and_upcast_attn,
// scale_attn_weights false, add_cross_attention) is an Error naming the key and its value.
GPTConfig gpt2_config_from_json(const std::string& config_json);

enum class Dtype { F32, F16, BF16 };

struct PretrainedTensor {
    std::string name;       // as the file spells it, e.g. "h.0.attn.c_attn.weight"
    std::string parameter;  // this library's name, e.g. "transformer.h.0.attn.c_attn.weight"
    Dtype dtype;
    Shape shape;            // as stored: Conv1D weights (in, out)
    uint64_t begin, end;    // its bytes, counted from the start of the file
    bool transposed;        // stored (in, out), kept (out, in)
};

class PretrainedLoader {
public:
    // The length of the header from a file's first 8 bytes (safetensors: little-endian u64), checked against
    // kMaxHeaderBytes and the file's size: read bytes [8, 8 + n) next.
    static uint64_t header_length(const std::string& first_bytes, uint64_t file_size);

    // config.json's text, the file's header (the n bytes after the first 8) and the file's size. Checks the
    // config and every tensor the header lists (name, dtype, shape against the config, bounds, overlaps, nothing
    // missing) and only then allocates the model; throws Error naming the file and the tensor or key.
    PretrainedLoader(const std::string& config_json, const std::string& header, uint64_t file_size);

    const GPTConfig& config() const { return config_; }
    // The tensors to read, in file order (buffers and a tied lm_head left out).
    const std::vector<PretrainedTensor>& tensors() const { return tensors_; }
    // Bytes [offset, offset + size) of tensor i's data, each tensor read from its start to its end in order;
    // offset and size whole elements. A value that is not finite is an Error naming the tensor.
    void read(size_t i, uint64_t offset, const char* bytes, size_t size);
    // The model, once every tensor has been read in full (an Error names the first one that was not).
    GPT finish();

private:
    GPTConfig config_;
    std::vector<PretrainedTensor> tensors_;
    std::vector<uint64_t> done_;   // bytes read of each tensor
    std::vector<Tensor*> target_;  // where each tensor goes in model_
    GPT model_;
};

}  // namespace attn
