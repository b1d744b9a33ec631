// Hugging Face's model families as tables over this library's one model (gpt.hpp): how each family's config.json
// spells the fields of GPTConfig, and which of the model's parameters each tensor of its safetensors files fills.
//
//   gpt2                                  GPT-2 and nanoGPT exports: Conv1D weights stored (in, out)
//   llama, mistral, qwen2, qwen3          RMSNorm, RoPE, grouped key/value heads, SwiGLU (Qwen2: q/k/v biases;
//                                         Qwen3: q/k norms; Mistral: a sliding window on every layer)
//   gemma3_text (gemma3's text_config)    Gemma's RMSNorm (1 + w), four norms per block, GeGLU, q/k norms, √C
//                                         embeddings, sliding layers with their own RoPE base
//
// q_proj, k_proj and v_proj fill consecutive rows of the model's one q/k/v projection (c_attn); every other tensor
// fills one parameter whole. A key asking for what the engine does not compute is an Error naming it.
#pragma once

#include "attn/config.hpp"
#include "attn/tensor.hpp"

#include <map>
#include <string>

namespace attn::hf {

// Where a file's tensor goes.
struct Target {
    std::string parameter;  // this library's name, e.g. "transformer.h.0.attn.c_attn.weight"
    int64_t offset = 0;     // elements into it where the tensor starts (k_proj after q_proj's rows)
    Shape stored;           // the shape the file must give: Conv1D's (in, out), else the parameter's rows
    bool transposed = false;  // stored (in, out), kept (out, in)
};

struct Format {
    GPTConfig config;
    std::string model_type;                 // "gpt2", "llama", …, "gemma3_text"
    std::map<std::string, Target> tensors;  // every tensor the files must hold, by its canonical name
    // The canonical name of a file's tensor, "" for one the engine does not read (GPT-2's causal-mask buffers,
    // a tied lm_head, RoPE's stored frequencies, a multimodal model's vision tower).
    std::string canonical(const std::string& name) const;
};

// config.json's text as the format of its family; Errors start "loadPretrained: config.json: ".
Format format_from_config(const std::string& config_json, bool weight_budget = true);

}  // namespace attn::hf
