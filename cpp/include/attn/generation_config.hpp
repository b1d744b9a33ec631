// A model folder's generation settings: generation_config.json read into GenerateOptions as transformers reads it
// (GenerationConfig.from_pretrained), or, for a folder without one, the stop tokens of config.json
// (GenerationConfig.from_model_config). What a caller then passes overrides these, as a call to transformers'
// generate(**kwargs) overrides the model's generation_config.
#pragma once

#include "attn/generate.hpp"

#include <optional>
#include <string>

namespace attn {

// `base` with a model's generation settings over it:
//   - generation_config.json (when given): do_sample false or absent is greedy (temperature 0); do_sample true
//     samples with its temperature, top_k and top_p, each taking GenerationConfig's default where the file leaves
//     it out (1.0, 50, 1.0; null is None: no top-k, no top-p; top_k and top_p are set from the file either way, so
//     that a caller who turns sampling on gets the file's, as in transformers); eos_token_id (a number or a list)
//     and pad_token_id; every other key (bos_token_id, max_length, transformers_version, …) is ignored.
//   - else config.json's eos_token_id and pad_token_id (at its top level, or under text_config for a composite
//     model such as Gemma 3's multimodal one), and `base`'s sampling.
// A key of the wrong type or outside its limits (temperature not > 0 when sampling, top_p outside (0, 1], a
// negative token id) is a FormatError naming `fn`, the file and the key; so is a file that is not a JSON object.
GenerateOptions generation_options_from_files(const std::optional<std::string>& generation_config_json,
                                              const std::string& config_json, const GenerateOptions& base = {},
                                              const char* fn = "generationConfig");

}  // namespace attn
