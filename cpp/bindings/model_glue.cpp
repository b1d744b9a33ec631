// Glue for the language model: its config, forward pass and parameters,
// generation, tokenizers, and the agreement corpus and probe (notebook 001 §8,
// nanoGPT's model.py and sample.py).
#include "glue.hpp"
#include "traces.hpp"

#include "attn/agreement_probe.hpp"
#include "attn/config.hpp"
#include "attn/generation_config.hpp"
#include "attn/head_scores.hpp"
#include "attn/head_statistics.hpp"
#include "attn/sampling.hpp"
#include "attn/synthetic_corpus.hpp"

#include <algorithm>

namespace attn::js {

namespace {
// Configs and generation options cross as JSON text in JS's spelling (nEmbd,
// maxNewTokens, ...): their schemas (config.hpp, generate.hpp) read, check and
// write them, so no field is listed here.
val js_config(const GPTConfig& c) { return val(to_json(c, Naming::Camel)); }

// JS names a tokenizer by its kind: CharTokenizer, WordTokenizer.
std::string tokenizer_class(TokenizerKind kind) {
    return kind == TokenizerKind::Char ? "CharTokenizer" : "WordTokenizer";
}
}  // namespace

// ---- the config --------------------------------------------------------------

val default_gpt_config() {
    return guarded("defaultGPTConfig", [] { return js_config(GPTConfig{}); });
}

val notebook001_config(double vocab_size, double d_model, double num_heads, double d_ff, double max_seq_length) {
    constexpr const char* fn = "notebook001Config";
    return guarded(fn, [&] {
        const GPTConfig c = GPTConfig::notebook001(to_size(vocab_size, fn, "vocabSize"), to_size(d_model, fn, "dModel"),
                                                   to_size(num_heads, fn, "numHeads"), to_size(d_ff, fn, "dFF"),
                                                   to_size(max_seq_length, fn, "maxSeqLength"), fn);
        c.validate(fn, Naming::Camel);
        return js_config(c);
    });
}

val nanogpt_config(double vocab_size, double block_size, double n_layer, double n_head, double n_embd, bool bias,
                   bool tie_embeddings) {
    constexpr const char* fn = "nanoGPTConfig";
    return guarded(fn, [&] {
        const GPTConfig c = GPTConfig::nanogpt(to_size(vocab_size, fn, "vocabSize"), to_size(block_size, fn, "blockSize"),
                                               to_size(n_layer, fn, "nLayer"), to_size(n_head, fn, "nHead"),
                                               to_size(n_embd, fn, "nEmbd"), bias, tie_embeddings);
        c.validate(fn, Naming::Camel);
        return js_config(c);
    });
}

// ---- the model ---------------------------------------------------------------

val make_gpt(const std::string& config) {
    return guarded("GPT", [&] { return owned_by_js(new GPT(gpt_config_from_json(config, Naming::Camel, "GPT"))); });
}

// {logits, trace}; trace is null unless asked for.
val gpt_forward(const GPT& m, const val& ids, double B, bool want_trace, const val& head_mask) {
    constexpr const char* fn = "GPT.forward";
    return guarded(fn, [&] {
        GPTTrace trace;
        const std::optional<Tensor> mask = optional_tensor(head_mask, fn, "headMask");
        const Tensor logits =
            m.forward(to_ids(ids, fn), static_cast<int64_t>(B), want_trace ? &trace : nullptr, mask ? &*mask : nullptr);
        val out = val::object();
        out.set("logits", val(to_js(logits)));
        out.set("trace", want_trace ? to_js(trace) : val::null());
        return out;
    });
}

val gpt_config(const GPT& m) {
    return guarded("GPT.config", [&] { return js_config(m.config()); });
}

double gpt_num_parameters(const GPT& m, bool non_embedding) { return static_cast<double>(m.num_parameters(non_embedding)); }

val gpt_parameter_names(const GPT& m) {
    return guarded("GPT.parameterNames", [&] {
        std::vector<std::string> names;
        for (const auto& [name, t] : m.named_parameters()) names.push_back(name);
        return strings_to_js(names);
    });
}

val gpt_parameter(const GPT& m, const std::string& name) {
    return guarded("GPT.parameter", [&] {
        for (const auto& [n, t] : m.named_parameters())
            if (n == name) return t->is_half() ? to_js(Tensor(t->shape, float_values(*t))) : to_js(*t);
        throw Error("GPT.parameter: no parameter named \"" + name + "\"");
    });
}

// ---- generation ----------------------------------------------------------------

val default_generate_options() {
    return guarded("defaultGenerateOptions", [] { return val(to_json(GenerateOptions{}, Naming::Camel)); });
}

// The sampling options (temperature, topK, topP) as generate() reads them: its table names, checks and limits them.
val sampling_distribution(const JsTensor& logits, const std::string& options) {
    constexpr const char* fn = "samplingDistribution";
    return guarded(fn, [&] {
        const GenerateOptions o = generate_options_from_json(options, Naming::Camel, fn);
        return val(to_js(attn::sampling_distribution(to_tensor(logits, fn, "logits"), o.sampling)));
    });
}

// A model's generation defaults from its folder's files (generation_config.hpp), as generate()'s options in JS's
// spelling; generation_config_json null when the folder has none.
val generation_config(const val& generation_config_json, const std::string& config_json) {
    constexpr const char* fn = "loadPretrained";
    return guarded(fn, [&] {
        std::optional<std::string> file;
        if (!generation_config_json.isNull() && !generation_config_json.isUndefined()) file = generation_config_json.as<std::string>();
        return val(to_json(generation_options_from_files(file, config_json, GenerateOptions{}, fn), Naming::Camel));
    });
}

val make_generation_session(const GPT& m, const val& prompt, double B, const std::string& options,
                            const std::string& caller) {
    const char* fn = caller.c_str();
    return guarded(fn, [&] {
        const GenerateOptions o = generate_options_from_json(options, Naming::Camel, fn);
        return owned_by_js(new GenerationSession(m, to_ids(prompt, fn), static_cast<int64_t>(B), o));
    });
}

val generation_session_next(GenerationSession& s) {
    return guarded("generate", [&] { return int_tensor_to_js(s.next(), {s.batch()}); });
}

val generation_session_tokens(const GenerationSession& s) {
    return guarded("generate", [&] { return int_tensor_to_js(s.tokens(), {s.batch(), s.length()}); });
}

// ---- tokenizers ---------------------------------------------------------------

val make_tokenizer(const std::string& kind, const val& text) {
    const std::string fn = kind == "word" ? "WordTokenizer" : "CharTokenizer";
    return guarded(fn.c_str(), [&] { return owned_by_js(new Tokenizer(parse_tokenizer_kind(kind, fn.c_str()), text_from_js(text))); });
}

val tokenizer_from_vocabulary(const std::string& kind, const val& vocabulary) {
    constexpr const char* fn = "Tokenizer.fromVocabulary";
    return guarded(fn, [&] {
        return owned_by_js(new Tokenizer(Tokenizer::from_vocabulary(parse_tokenizer_kind(kind, fn), text_from_js(vocabulary), fn)));
    });
}

val tokenizer_encode(const Tokenizer& t, const val& text) {
    return guarded((tokenizer_class(t.kind()) + ".encode").c_str(), [&] {
        // int32 ids straight into an Int32Array: a text costs its copy and 4 bytes a token here.
        const std::vector<int32_t> ids = t.encode_corpus(text_from_js(text));
        return val::global("Int32Array").new_(val(emscripten::typed_memory_view(ids.size(), ids.data())));
    });
}

val tokenizer_decode(const Tokenizer& t, const val& ids) {
    const std::string fn = tokenizer_class(t.kind()) + ".decode";
    return guarded(fn.c_str(), [&] { return text_to_js(t.decode(to_ids(ids, fn.c_str()))); });
}

std::string tokenizer_kind(const Tokenizer& t) { return tokenizer_kind_name(t.kind()); }

val tokenizer_pieces(const Tokenizer& t) {
    return guarded("Tokenizer.pieces", [&] { return strings_to_js(t.pieces()); });
}

double tokenizer_vocab_size(const Tokenizer& t) { return static_cast<double>(t.vocab_size()); }

val tokenizer_vocabulary(const Tokenizer& t) {
    return guarded("Tokenizer.vocabulary", [&] { return text_to_js(t.vocabulary()); });
}

// ---- the agreement corpus and what a model learned from it -------------------------

val agreement_corpus(double sentences, double seed) {
    return guarded("agreementCorpus", [&] {
        if (sentences != std::floor(sentences) || seed != std::floor(seed) || seed < 0) {
            throw Error("agreementCorpus: expected integer sentences and seed >= 0, got " + format_number(sentences) +
                        " and " + format_number(seed));
        }
        // Clamped only so that the cast is defined; the library's own range check names the count.
        return text_to_js(attn::agreement_corpus(static_cast<int64_t>(std::clamp(sentences, -1.0, 1e15)), static_cast<uint64_t>(to_count(seed, "agreementCorpus", "seed"))));
    });
}

val probe_agreement(const GPT& m, const Tokenizer& tokenizer, double sentences, double seed, const val& head_mask) {
    constexpr const char* fn = "probeAgreement";
    return guarded(fn, [&] {
        if (sentences != std::floor(sentences) || sentences < 1 || sentences > static_cast<double>(kMaxAgreementSentences)) {
            throw Error("probeAgreement: expected sentences to be an integer from 1 to " + std::to_string(kMaxAgreementSentences) +
                        ", got " + format_number(sentences));
        }
        const std::optional<Tensor> mask = optional_tensor(head_mask, fn, "headMask");
        return to_js(attn::probe_agreement(
            m, tokenizer,
            agreement_sentences(static_cast<int64_t>(sentences), static_cast<uint64_t>(to_count(seed, fn, "seed"))),
            mask ? &*mask : nullptr));
    });
}

// ---- what each head does on a text --------------------------------------------------

val summarize_heads(const GPT& m, const val& ids, double thumbnail, const val& head_mask) {
    constexpr const char* fn = "summarizeHeads";
    return guarded(fn, [&] {
        const std::optional<Tensor> mask = optional_tensor(head_mask, fn, "headMask");
        HeadSummaryOptions o;
        o.thumbnail = to_count(thumbnail, fn, "thumbnailSize");
        o.head_mask = mask ? &*mask : nullptr;
        return to_js(attn::summarize_heads(m, to_ids(ids, fn), o));
    });
}

val head_attention(const GPT& m, const val& ids, double layer, double head, const val& head_mask) {
    constexpr const char* fn = "headAttention";
    return guarded(fn, [&] {
        const std::optional<Tensor> mask = optional_tensor(head_mask, fn, "headMask");
        return to_js(attn::head_attention(m, to_ids(ids, fn), to_count(layer, fn, "layer"), to_count(head, fn, "head"),
                                          mask ? &*mask : nullptr));
    });
}

val layer_attention(const GPT& m, const val& ids, double layer, const val& head_mask) {
    constexpr const char* fn = "layerAttention";
    return guarded(fn, [&] {
        const std::optional<Tensor> mask = optional_tensor(head_mask, fn, "headMask");
        return to_js(attn::layer_attention(m, to_ids(ids, fn), to_count(layer, fn, "layer"), mask ? &*mask : nullptr));
    });
}

// ---- which heads are induction heads -------------------------------------------------

val head_scores(const GPT& m, double batch_size, double length, double seed, bool ablation) {
    constexpr const char* fn = "headScores";
    return guarded(fn, [&] {
        HeadScoreOptions o;
        o.batch_size = to_integer(batch_size, fn, "batchSize");
        o.length = to_integer(length, fn, "length");
        o.seed = to_seed(seed, fn);
        o.ablation = ablation;
        return to_js(attn::head_scores(m, o));
    });
}

val repeated_sequences(double batch_size, double length, double vocab_size, double seed) {
    constexpr const char* fn = "repeatedSequences";
    return guarded(fn, [&] {
        Generator gen(to_seed(seed, fn));
        return to_js(attn::repeated_sequences(to_integer(batch_size, fn, "batchSize"), to_integer(length, fn, "length"),
                                              to_integer(vocab_size, fn, "vocabSize"), gen, fn));
    });
}

}  // namespace attn::js
