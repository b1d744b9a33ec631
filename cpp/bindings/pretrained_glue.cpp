// Glue for GPT-2-family models: the byte-level BPE tokenizer (bpe_tokenizer.hpp)
// and Hugging Face checkpoints read a tensor at a time (pretrained.hpp). Text
// crosses as UTF-8 bytes that JS's TextEncoder made (a lone surrogate becomes
// U+FFFD, as js-tiktoken encodes it), and decoded text leaves as bytes for
// TextDecoder, since a token can end inside a character.
#include "glue.hpp"

#include "attn/kv_cache.hpp"

namespace attn::js {

namespace {
val int32_ids_to_js(const std::vector<int64_t>& ids) {
    const std::vector<int32_t> narrow(ids.begin(), ids.end());
    return val::global("Int32Array").new_(val(emscripten::typed_memory_view(narrow.size(), narrow.data())));
}
// tokenizer_config: its text, or undefined for none.
std::string optional_text(const val& v) { return v.isUndefined() || v.isNull() ? std::string() : text_from_js(v); }
}  // namespace

val bpe_from_files(const val& vocab_json, const val& merges_txt, const val& tokenizer_config) {
    return guarded("BPETokenizer", [&] {
        return owned_by_js(new BPETokenizer(BPETokenizer::from_files(text_from_js(vocab_json), text_from_js(merges_txt), optional_text(tokenizer_config))));
    });
}

val bpe_from_tokenizer_json(const val& text, const val& tokenizer_config) {
    return guarded("BPETokenizer", [&] {
        return owned_by_js(new BPETokenizer(BPETokenizer::from_tokenizer_json(text_from_js(text), optional_text(tokenizer_config))));
    });
}

val bpe_encode(const BPETokenizer& t, const val& text, bool add_special_tokens) {
    return guarded("BPETokenizer.encode", [&] { return int32_ids_to_js(t.encode(text_from_js(text), add_special_tokens)); });
}

// clean_up: undefined for the tokenizer's own setting, or a boolean (bpe-tokenizer.js checked it).
val bpe_decode(const BPETokenizer& t, const val& ids, bool skip_special_tokens, const val& clean_up) {
    const std::optional<bool> clean = clean_up.isUndefined() ? std::nullopt : std::optional<bool>(clean_up.as<bool>());
    return guarded("BPETokenizer.decode", [&] { return text_to_js(t.decode(to_ids(ids, "BPETokenizer.decode"), skip_special_tokens, clean)); });
}

// {bosToken, bosTokenId, eosToken, …}: the tokens tokenizer_config.json names and their ids (null where there is none).
val bpe_named_tokens(const BPETokenizer& t) {
    return guarded("BPETokenizer", [&] {
        val out = val::object();
        const std::pair<const char*, const std::optional<std::string>*> named[] = {
            {"bos", &t.bos_token()}, {"eos", &t.eos_token()}, {"pad", &t.pad_token()}, {"unk", &t.unk_token()}};
        for (const auto& [name, token] : named) {
            const std::optional<int64_t> id = *token ? t.token_id(**token) : std::nullopt;
            out.set(std::string(name) + "Token", *token ? text_to_js(**token) : val::null());
            out.set(std::string(name) + "TokenId", id ? val(static_cast<double>(*id)) : val::null());
        }
        return out;
    });
}

val bpe_pieces(const BPETokenizer& t) {
    return guarded("BPETokenizer.pieces", [&] { return strings_to_js(t.pieces()); });
}

double bpe_vocab_size(const BPETokenizer& t) { return static_cast<double>(t.vocab_size()); }

// The tokenizer of a model folder, {kind: 'bpe' | 'char', handle}: config.json's text and {tokenizerJson} or
// {vocab, merges} (texts), checked against each other (pretrained_tokenizer).
val pretrained_tokenizer(const std::string& config_json, const val& files) {
    return guarded("loadPretrained", [&] {
        pretrained_config_from_json(config_json);  // the config first: its errors before the tokenizer's
        PretrainedTokenizerFiles f;
        const auto text = [&](const char* key) {
            return files[key].isUndefined() ? std::nullopt : std::optional<std::string>(text_from_js(files[key]));
        };
        f.tokenizer_json = text("tokenizerJson");
        f.vocab_json = text("vocab");
        f.merges_txt = text("merges");
        f.tokenizer_config_json = text("tokenizerConfig");
        auto tokenizer = attn::pretrained_tokenizer(f);
        val out = val::object();
        if (auto* bpe = std::get_if<BPETokenizer>(&tokenizer)) {
            out.set("kind", val("bpe"));
            out.set("handle", owned_by_js(new BPETokenizer(std::move(*bpe))));
        } else {
            out.set("kind", val("char"));
            out.set("handle", owned_by_js(new Tokenizer(std::move(std::get<Tokenizer>(tokenizer)))));
        }
        return out;
    });
}

val kv_cache_numbers(const std::string& config_json, double tokens) {
    constexpr const char* fn = "kvCacheNumbers";
    return guarded(fn, [&] {
        const int64_t n = attn::kv_cache_numbers(pretrained_config_from_json(config_json, false), to_count(tokens, fn, "tokens"));
        return val(static_cast<double>(n));
    });
}

val pretrained_header_length(const val& first_bytes, double file_size, const std::string& file) {
    return guarded("loadPretrained", [&] {
        return static_cast<double>(PretrainedLoader::header_length(bytes_from_js(first_bytes, "loadPretrained"),
                                                                   static_cast<uint64_t>(file_size), file));
    });
}

// The shard file names of a model.safetensors.index.json (text), in order.
val pretrained_shard_files(const val& index_json) {
    return guarded("loadPretrained", [&] { return strings_to_js(PretrainedLoader::shard_files(text_from_js(index_json))); });
}

// files: [{name, header (bytes), size}], one per safetensors file; index_json: the shards' index, or "".
val make_pretrained_loader(const std::string& config_json, const val& files, const std::string& index_json) {
    return guarded("loadPretrained", [&] {
        std::vector<SafetensorsHeader> headers;
        const auto n = files["length"].as<size_t>();
        for (size_t i = 0; i < n; ++i) {
            const val f = files[i];
            headers.push_back({f["name"].as<std::string>(), bytes_from_js(f["header"], "loadPretrained"),
                               static_cast<uint64_t>(f["size"].as<double>())});
        }
        return owned_by_js(new PretrainedLoader(config_json, headers, index_json));
    });
}

// [{name, file, begin, end}] of the tensors to read, file by file, each in file order.
val pretrained_loader_tensors(const PretrainedLoader& l) {
    return guarded("loadPretrained", [&] {
        val out = val::array();
        for (const PretrainedTensor& t : l.tensors()) {
            val entry = val::object();
            entry.set("name", t.name);
            entry.set("file", static_cast<double>(t.file));
            entry.set("begin", static_cast<double>(t.begin));
            entry.set("end", static_cast<double>(t.end));
            out.call<void>("push", entry);
        }
        return out;
    });
}

val pretrained_loader_read(PretrainedLoader& l, double i, double offset, const val& bytes) {
    return guarded("loadPretrained", [&] {
        const std::string data = bytes_from_js(bytes, "loadPretrained");
        l.read(static_cast<size_t>(i), static_cast<uint64_t>(offset), data.data(), data.size());
    });
}

val pretrained_loader_finish(PretrainedLoader& l) {
    return guarded("loadPretrained", [&] { return owned_by_js(new GPT(l.finish())); });
}

}  // namespace attn::js
