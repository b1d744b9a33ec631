// The registration of the WASM module's functions and classes, and nothing
// else: each is defined in a glue file (glue.hpp lists them by area), its
// conversions in convert.hpp and traces.hpp. Every function registered here
// returns its result or an Error (convert.hpp, `guarded`); none throws.
#include "glue.hpp"

#include <emscripten/bind.h>

using namespace attn;  // the classes registered
namespace js = attn::js;  // the glue that implements them

EMSCRIPTEN_BINDINGS(attn) {
    using emscripten::class_;
    using emscripten::function;
    using emscripten::value_object;

    // What crosses as a value_object: tensors in both directions, options in.
    value_object<js::JsTensor>("Tensor").field("data", &js::JsTensor::data).field("shape", &js::JsTensor::shape);
    value_object<js::JsAttentionOptions>("AttentionOptions")
        .field("causal", &js::JsAttentionOptions::causal)
        .field("keyLengths", &js::JsAttentionOptions::keyLengths)
        .field("mask", &js::JsAttentionOptions::mask)
        .field("fillValue", &js::JsAttentionOptions::fillValue)
        .field("scale", &js::JsAttentionOptions::scale)
        .field("window", &js::JsAttentionOptions::window);

    // ---- attention_glue.cpp
    function("memoryUsage", &js::memory_usage);
    function("setThreads", &js::set_threads);
    function("maxThreads", &js::max_threads);
    function("defaultMaxThreads", &js::default_max_threads);
    function("manualSeed", &js::manual_seed);
    function("rand", &js::rand_uniform);
    function("randn", &js::rand_normal);
    function("randint", &js::rand_int);
    function("softmax", &js::softmax);
    function("softmaxNaive", &js::softmax_naive);
    function("normalizeSum", &js::normalize_sum);
    function("attentionScoresForQuery", &js::attention_scores_for_query);
    function("attentionScoresLoop", &js::attention_scores_loop);
    function("attentionScores", &js::attention_scores);
    function("contextVector", &js::context_vector);
    function("contextVectors", &js::context_vectors);
    function("simpleSelfAttention", &js::simple_self_attention);
    function("causalMask", &js::causal_mask);
    function("paddingMask", &js::padding_mask);
    function("scaledDotProductAttention", &js::scaled_dot_product_attention);
    function("attention", &js::attention);
    function("explainScore", &js::explain_score);
    function("onlineSoftmax", &js::online_softmax);
    function("sinusoidalPositions", &js::sinusoidal_positions);
    function("ropeFrequencies", &js::rope_frequencies);
    function("rope", &js::rope_forward);

    class_<SelfAttentionV1>("SelfAttentionV1")
        .class_function("create", &js::make_self_attention_v1)
        .function("forward", &js::self_attention_v1_forward)
        .function("loadStateDict", &js::self_attention_v1_load_state_dict)
        .function("W_query", &js::self_attention_v1_W_query)
        .function("W_key", &js::self_attention_v1_W_key)
        .function("W_value", &js::self_attention_v1_W_value);
    class_<SelfAttentionV2>("SelfAttentionV2")
        .class_function("create", &js::make_self_attention_v2)
        .function("forward", &js::self_attention_v2_forward)
        .function("W_query", &js::self_attention_v2_W_query)
        .function("W_key", &js::self_attention_v2_W_key)
        .function("W_value", &js::self_attention_v2_W_value);
    class_<SelfAttentionU>("SelfAttentionU")
        .class_function("create", &js::make_self_attention_u)
        .function("forward", &js::self_attention_u_forward)
        .function("U_query", &js::self_attention_u_U_query)
        .function("U_key", &js::self_attention_u_U_key)
        .function("U_value", &js::self_attention_u_U_value);
    class_<Linear>("Linear")
        .class_function("create", &js::make_linear)
        .function("forward", &js::linear_forward)
        .function("weight", &js::linear_weight)
        .function("bias", &js::linear_bias);
    class_<Embedding>("Embedding")
        .class_function("create", &js::make_embedding)
        .function("forward", &js::embedding_forward)
        .function("weight", &js::embedding_weight);
    class_<LayerNorm>("LayerNorm")
        .class_function("create", &js::make_layer_norm)
        .function("forward", &js::layer_norm_forward)
        .function("weight", &js::layer_norm_weight)
        .function("bias", &js::layer_norm_bias);
    class_<MultiHeadAttention>("MultiHeadAttention")
        .class_function("create", &js::make_multi_head_attention)
        .function("forward", &js::multi_head_attention_forward)
        .function("loadStateDict", &js::multi_head_attention_load_state_dict)
        .function("W_q", &js::multi_head_attention_W_q)
        .function("W_k", &js::multi_head_attention_W_k)
        .function("W_v", &js::multi_head_attention_W_v)
        .function("W_o", &js::multi_head_attention_W_o);
    class_<TorchMultiheadAttention>("TorchMultiheadAttention")
        .class_function("create", &js::make_torch_multihead_attention)
        .function("forward", &js::torch_multihead_attention_forward)
        .function("inProjWeight", &js::torch_multihead_attention_in_proj_weight)
        .function("inProjBias", &js::torch_multihead_attention_in_proj_bias)
        .function("outProj", &js::torch_multihead_attention_out_proj);

    // ---- model_glue.cpp
    function("defaultGPTConfig", &js::default_gpt_config);
    function("notebook001Config", &js::notebook001_config);
    function("nanoGPTConfig", &js::nanogpt_config);
    function("defaultGenerateOptions", &js::default_generate_options);
    function("samplingDistribution", &js::sampling_distribution);
    function("generationConfig", &js::generation_config);
    function("tokenizerFromVocabulary", &js::tokenizer_from_vocabulary);
    function("agreementCorpus", &js::agreement_corpus);
    function("probeAgreement", &js::probe_agreement);
    function("summarizeHeads", &js::summarize_heads);
    function("headAttention", &js::head_attention);
    function("layerAttention", &js::layer_attention);
    function("headScores", &js::head_scores);
    function("repeatedSequences", &js::repeated_sequences);

    class_<GPT>("GPT")
        .class_function("create", &js::make_gpt)
        .function("forward", &js::gpt_forward)
        .function("config", &js::gpt_config)
        .function("numParameters", &js::gpt_num_parameters)
        .function("parameterNames", &js::gpt_parameter_names)
        .function("parameter", &js::gpt_parameter)
        .function("checkpoint", &js::gpt_checkpoint);
    class_<GenerationSession>("GenerationSession")
        .class_function("create", &js::make_generation_session)
        .function("next", &js::generation_session_next)
        .function("done", &GenerationSession::done)
        .function("tokens", &js::generation_session_tokens);
    class_<Tokenizer>("Tokenizer")
        .class_function("create", &js::make_tokenizer)
        .function("encode", &js::tokenizer_encode)
        .function("decode", &js::tokenizer_decode)
        .function("kind", &js::tokenizer_kind)
        .function("pieces", &js::tokenizer_pieces)
        .function("vocabSize", &js::tokenizer_vocab_size)
        .function("vocabulary", &js::tokenizer_vocabulary);

    // ---- training_glue.cpp and checkpoint_glue.cpp
    function("defaultTrainConfig", &js::default_train_config);
    function("inductionRecipe", &js::induction_recipe);
    function("loadCheckpoint", &js::load_checkpoint);
    function("resumeTrainer", &js::resume_trainer);

    // ---- pretrained_glue.cpp
    function("pretrainedTokenizer", &js::pretrained_tokenizer);
    function("kvCacheNumbers", &js::kv_cache_numbers);
    function("pretrainedHeaderLength", &js::pretrained_header_length);
    function("pretrainedShardFiles", &js::pretrained_shard_files);
    class_<BPETokenizer>("BPETokenizer")
        .class_function("fromFiles", &js::bpe_from_files)
        .class_function("fromTokenizerJson", &js::bpe_from_tokenizer_json)
        .function("encode", &js::bpe_encode)
        .function("decode", &js::bpe_decode)
        .function("namedTokens", &js::bpe_named_tokens)
        .function("pieces", &js::bpe_pieces)
        .function("vocabSize", &js::bpe_vocab_size);
    class_<PretrainedLoader>("PretrainedLoader")
        .class_function("create", &js::make_pretrained_loader)
        .function("tensors", &js::pretrained_loader_tensors)
        .function("read", &js::pretrained_loader_read)
        .function("finish", &js::pretrained_loader_finish);

    class_<Trainer>("Trainer")
        .class_function("create", &js::make_trainer)
        .class_function("resume", &js::resume_trainer)
        .function("step", &js::trainer_step)
        .function("evaluate", &js::trainer_evaluate)
        .function("iter", &js::trainer_iter)
        .function("vocabulary", &js::trainer_vocabulary)
        .function("config", &js::trainer_config)
        .function("modelConfig", &js::trainer_model_config)
        .function("snapshot", &js::trainer_snapshot)
        .function("checkpoint", &js::trainer_checkpoint);
}
