// Hugging Face model folders (config.json, model.safetensors or the shards model.safetensors.index.json lists,
// and the tokenizer) of GPT-2 and of today's decoder families (Llama, Mistral, Qwen2, Qwen3, Gemma 3: the table
// in docs/pretrained.md), read into this library's GPT a tensor at a time, so that no file has to be in memory
// whole. In one call:
//
//   attn::Pretrained p = attn::load_pretrained("gpt2");      // a folder the hub's download wrote
//   const auto& bpe = std::get<attn::BPETokenizer>(p.tokenizer);
//   std::vector<int64_t> ids = attn::generate(p.model, bpe.encode("The cat"), 1, options);
//
// or a step at a time, from bytes that come from anywhere (the JS loader's way):
//
//   PretrainedLoader loader(config_json, {{"model.safetensors", header, file_size}});  // checked, then allocated
//   for (size_t i = 0; i < loader.tensors().size(); ++i)       // in file order
//       loader.read(i, 0, bytes_of(loader.tensors()[i]));     // or in pieces, at increasing offsets
//   GPT model = loader.finish();
//
// How each family's names and shapes map onto the model is hf_formats.hpp's table: GPT-2's Conv1D weights are
// stored (in, out), the transpose of nn.Linear's (out, in) used here; q_proj, k_proj and v_proj fill the rows of
// one q/k/v projection. Tensors may be float32, float16 or bfloat16 (widened to float32, exactly).
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

// config.json of a model of the families above as this library's GPTConfig. A key asking for what the engine does
// not do (another model_type, activation or rope_scaling type, logit softcapping, GPT-2's
// scale_attn_by_inverse_layer_idx, …) is an Error naming the key and its value. weight_budget false reads a model
// too large for this library to load, for its shape alone (kv_cache.hpp sizes Llama-3.2-1B's cache).
GPTConfig pretrained_config_from_json(const std::string& config_json, bool weight_budget = true);

enum class Dtype { F32, F16, BF16 };

struct PretrainedTensor {
    std::string name;       // as the file spells it, e.g. "h.0.attn.c_attn.weight"
    std::string parameter;  // this library's name, e.g. "transformer.h.0.attn.c_attn.weight"
    size_t file;            // which of the loader's files holds it
    Dtype dtype;
    Shape shape;            // as stored: Conv1D weights (in, out)
    uint64_t begin, end;    // its bytes, counted from the start of its file
    int64_t offset;         // elements into the parameter where it starts (k_proj's rows after q_proj's)
    bool transposed;        // stored (in, out), kept (out, in)
};

// One safetensors file of a model: its name, header (the n bytes after the first 8) and size.
struct SafetensorsHeader {
    std::string name;
    std::string header;
    uint64_t size;
};

class PretrainedLoader {
public:
    // The length of the header from a file's first 8 bytes (safetensors: little-endian u64), checked against
    // kMaxHeaderBytes and the file's size: read bytes [8, 8 + n) next.
    static uint64_t header_length(const std::string& first_bytes, uint64_t file_size,
                                  const std::string& file = "model.safetensors");

    // config.json's text and the model's files (model.safetensors, or every shard in the order shard_files gives
    // them, with the index's text). Checks the config and every tensor the headers list (name, dtype, shape
    // against the config, bounds, overlaps, none twice, nothing missing, one dtype per matrix, each where the
    // index says) and only then allocates the model; throws Error naming the file and the tensor or key.
    PretrainedLoader(const std::string& config_json, const std::vector<SafetensorsHeader>& files,
                     const std::string& index_json = "");
    // One file, model.safetensors.
    PretrainedLoader(const std::string& config_json, const std::string& header, uint64_t file_size)
        : PretrainedLoader(config_json, {{"model.safetensors", header, file_size}}) {}

    // The shard files model.safetensors.index.json names, in order of first mention; an Error for an index
    // whose weight_map is not an object of file names (or names a path outside the folder).
    static std::vector<std::string> shard_files(const std::string& index_json);

    const GPTConfig& config() const { return config_; }
    // The tensors to read, in file order, file by file (buffers and a tied lm_head left out).
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
    std::vector<std::string> file_names_;
    GPT model_;
};

// The characters in id order when a tokenizer.json is a character-level one (a WordLevel model over single
// characters with ids 0 to n − 1: what tools/nanogpt_to_hf.py writes for nanoGPT's character models); nothing for
// another model type (a BPE, which BPETokenizer reads). A WordLevel vocabulary of anything else is an Error.
std::optional<std::string> character_vocabulary(const std::string& tokenizer_json);

// The model's weights as the model.safetensors of the family config_json describes (hf_formats.hpp's table read
// backwards: q/k/v rows split into q_proj, k_proj and v_proj, GPT-2's Conv1D weights transposed), in float32:
// what a fine-tuned model is saved as, beside its folder's config.json and tokenizer. An Error when config_json
// describes a model of other shapes, or a weight is not finite (load_pretrained would refuse the file).
std::string pretrained_weights_file(const GPT& model, const std::string& config_json);

// The texts of a model folder's tokenizer files: tokenizer.json, or vocab.json and merges.txt (GPT-2's folders), and
// tokenizer_config.json when it has one.
struct PretrainedTokenizerFiles {
    std::optional<std::string> tokenizer_json, vocab_json, merges_txt, tokenizer_config_json;
};
// The folder's tokenizer, decided here for every caller (load_pretrained, the JS loader): tokenizer.json as
// characters when it is a character-level WordLevel vocabulary (character_vocabulary), else as a BPETokenizer;
// without it, vocab.json + merges.txt. A tokenizer may have more tokens than the model's embedding has rows (Gemma
// 3's does): an id past the embedding is an Error of the model's only when a text gives it.
std::variant<BPETokenizer, Tokenizer> pretrained_tokenizer(const PretrainedTokenizerFiles& files);

struct Pretrained {
    GPT model;
    std::variant<BPETokenizer, Tokenizer> tokenizer;  // GPT-2's BPE, or characters (character_vocabulary)
};

// A model folder in one call: config.json, the tokenizer (tokenizer.json, else vocab.json and merges.txt) and
// model.safetensors (or the shards of model.safetensors.index.json), read a tensor at a time in pieces of 16 MiB. Every problem is an Error naming the file
// ("loadPretrained: ..."), with nothing allocated kept.
Pretrained load_pretrained(const std::string& folder);
// The same from the files' bytes, by file name.
Pretrained load_pretrained(const std::map<std::string, std::string>& files);

}  // namespace attn
