// GPT-2-family models as Hugging Face stores them (a model folder's
// config.json and model.safetensors, as GPT2LMHeadModel.save_pretrained writes
// them, and its tokenizer), read into this library's GPT a tensor at a time, so
// that the file never has to be in memory whole. In one call:
//
//   attn::Pretrained p = attn::load_pretrained("gpt2");      // a folder the hub's download wrote
//   const auto& bpe = std::get<attn::BPETokenizer>(p.tokenizer);
//   std::vector<int64_t> ids = attn::generate(p.model, bpe.encode("The cat"), 1, options);
//
// or a step at a time, from bytes that come from anywhere (the JS loader's way):
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

#include "attn/bpe_tokenizer.hpp"
#include "attn/config.hpp"
#include "attn/gpt.hpp"
#include "attn/tensor.hpp"
#include "attn/tokenizer.hpp"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <variant>
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

// The characters in id order when a tokenizer.json is a character-level one (a WordLevel model over single
// characters with ids 0 to n − 1: what tools/nanogpt_to_hf.py writes for nanoGPT's character models); nothing for
// another model type (a BPE, which BPETokenizer reads). A WordLevel vocabulary of anything else is an Error.
std::optional<std::string> character_vocabulary(const std::string& tokenizer_json);

struct Pretrained {
    GPT model;
    std::variant<BPETokenizer, Tokenizer> tokenizer;  // GPT-2's BPE, or characters (character_vocabulary)
};

// A model folder in one call: config.json, the tokenizer (tokenizer.json, else vocab.json and merges.txt) and
// model.safetensors, read a tensor at a time in pieces of 16 MiB. Every problem is an Error naming the file
// ("loadPretrained: ..."), with nothing allocated kept.
Pretrained load_pretrained(const std::string& folder);
// The same from the files' bytes, by file name.
Pretrained load_pretrained(const std::map<std::string, std::string>& files);

}  // namespace attn
