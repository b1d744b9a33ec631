#include "tokenizer_config.hpp"

#include "attn/error.hpp"
#include "json_limits.hpp"

namespace attn {

namespace {
using json = nlohmann::json;
const std::string kWhere = "BPETokenizer: tokenizer_config.json";

// A special token's entry: "text", {"content": "text", …} (an AddedToken as transformers saves it), or null.
std::optional<std::string> token_text(const json& j, const char* key) {
    if (!j.contains(key) || j[key].is_null()) return std::nullopt;
    const json& v = j[key];
    if (v.is_string()) return v.get<std::string>();
    if (v.is_object() && v.contains("content") && v["content"].is_string()) return v["content"].get<std::string>();
    throw FormatError(kWhere + ": " + key + " is " + v.dump().substr(0, 60) + ", expected a token's text or {\"content\": …}");
}

std::optional<bool> flag(const json& j, const char* key) {
    if (!j.contains(key) || j[key].is_null()) return std::nullopt;
    if (!j[key].is_boolean()) throw FormatError(kWhere + ": " + key + " is " + j[key].dump().substr(0, 40) + ", expected true or false");
    return j[key].get<bool>();
}
}  // namespace

bool TokenizerConfig::rebuilds_post_processor() const {
    for (const char* name : {"LlamaTokenizer", "LlamaTokenizerFast", "GemmaTokenizer", "GemmaTokenizerFast"}) {
        if (tokenizer_class == name) return true;
    }
    return false;
}

TokenizerConfig read_tokenizer_config(const std::string& text) {
    TokenizerConfig c;
    if (text.empty()) return c;
    const json j = parse_bounded(text, kWhere);
    if (j.is_discarded()) throw FormatError(kWhere + " is not valid JSON");
    if (!j.is_object()) throw FormatError(kWhere + ": expected a JSON object, got " + std::string(j.type_name()));
    c.bos_token = token_text(j, "bos_token");
    c.eos_token = token_text(j, "eos_token");
    c.pad_token = token_text(j, "pad_token");
    c.unk_token = token_text(j, "unk_token");
    if (j.contains("tokenizer_class") && j["tokenizer_class"].is_string()) c.tokenizer_class = j["tokenizer_class"].get<std::string>();
    c.add_bos_token = flag(j, "add_bos_token");
    c.add_eos_token = flag(j, "add_eos_token");
    c.clean_up_tokenization_spaces = flag(j, "clean_up_tokenization_spaces");
    return c;
}

}  // namespace attn
