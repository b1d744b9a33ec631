// A tokenizer.json parsed once (parse_bounded, json_limits.hpp), handed to the readers that need its parts:
// pretrained_tokenizer looks at model.type to choose the tokenizer, and BPETokenizer::from_tokenizer_json reads
// the rest, without parsing the file again.
#pragma once

#include <nlohmann/json.hpp>

namespace attn {

struct TokenizerJson {
    nlohmann::json value;  // as parse_bounded returned it: discarded when the text is not JSON
};

}  // namespace attn
