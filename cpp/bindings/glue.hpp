// The functions bindings.cpp registers, by area, each defined in its
// *_glue.cpp: a JS call's arguments converted (convert.hpp), the library
// called, its result converted back (traces.hpp), inside `guarded`. A text
// parameter declared `const val&` is a JS string that text_from_js copies in.
#pragma once

#include "convert.hpp"

#include "attn/bpe_tokenizer.hpp"
#include "attn/generate.hpp"
#include "attn/gpt.hpp"
#include "attn/layer_norm.hpp"
#include "attn/linear.hpp"
#include "attn/embedding.hpp"
#include "attn/multi_head_attention.hpp"
#include "attn/pretrained.hpp"
#include "attn/self_attention.hpp"
#include "attn/tokenizer.hpp"
#include "attn/trainer.hpp"

#include <cmath>
#include <string>

namespace attn::js {

// ---- attention_glue.cpp: notebooks 000, 002-004 and 001 §6-7 --------------------

// scaledDotProductAttention's options; the JS layer fills every field (null for "not given").
struct JsAttentionOptions {
    bool causal = false;
    val keyLengths = val::null();  // number[] | null
    val mask = val::null();        // Tensor | null
    double fillValue = -INFINITY;
    val scale = val::null();       // number | null
    double window = 0;             // 0: no sliding window
};

val memory_usage();
val set_threads(double n);
int max_threads();
int default_max_threads();
val manual_seed(double seed);
val rand_uniform(const val& shape);
val rand_normal(const val& shape);
val rand_int(double low, double high, const val& shape);
val softmax(const JsTensor& x, int dim);
val softmax_naive(const JsTensor& x, int dim);
val normalize_sum(const JsTensor& x, int dim);
val attention_scores(const JsTensor& x);
val attention_scores_loop(const JsTensor& x);
val attention_scores_for_query(const JsTensor& x, double q);
val context_vector(const JsTensor& w, const JsTensor& x);
val context_vectors(const JsTensor& w, const JsTensor& x);
val simple_self_attention(const JsTensor& x);
val causal_mask(double T);
val padding_mask(const val& lengths, double T_k);
val scaled_dot_product_attention(const JsTensor& q, const JsTensor& k, const JsTensor& v, const JsAttentionOptions& o);
val attention(const JsTensor& q, const JsTensor& k, const JsTensor& v, const JsAttentionOptions& o);
val online_softmax(const JsTensor& scores, double block);
val sinusoidal_positions(double T, double d);
val rope_frequencies(double head_dim, const std::string& settings);
val rope_forward(const JsTensor& x, const val& positions, const std::string& settings);
val explain_score(const JsTensor& q, const JsTensor& k, const JsTensor& v, const JsTensor& w, double i, double j,
                  const val& divisor);

// Layers: constructors return the new object (JS owns it) or an Error.
val make_self_attention_v1(double d_in, double d_out);
val make_self_attention_v2(double d_in, double d_out, bool qkv_bias);
val make_self_attention_u(double d);
val self_attention_v1_forward(const SelfAttentionV1& m, const JsTensor& x);
val self_attention_v1_load_state_dict(SelfAttentionV1& m, const val& names, const val& tensors, bool strict);
val self_attention_v2_forward(const SelfAttentionV2& m, const JsTensor& x);
val self_attention_u_forward(const SelfAttentionU& m, const JsTensor& x);
val self_attention_v1_W_query(const SelfAttentionV1& m);
val self_attention_v1_W_key(const SelfAttentionV1& m);
val self_attention_v1_W_value(const SelfAttentionV1& m);
val self_attention_v2_W_query(const SelfAttentionV2& m);
val self_attention_v2_W_key(const SelfAttentionV2& m);
val self_attention_v2_W_value(const SelfAttentionV2& m);
val self_attention_u_U_query(const SelfAttentionU& m);
val self_attention_u_U_key(const SelfAttentionU& m);
val self_attention_u_U_value(const SelfAttentionU& m);

val make_linear(double in, double out, bool bias);
val linear_forward(const Linear& m, const JsTensor& x);
val linear_weight(const Linear& m);
val linear_bias(const Linear& m);
val make_embedding(double num, double dim);
val embedding_forward(const Embedding& m, const val& ids, const val& shape);
val embedding_weight(const Embedding& m);
val make_layer_norm(double c);
val layer_norm_forward(const LayerNorm& m, const JsTensor& x);
val layer_norm_weight(const LayerNorm& m);
val layer_norm_bias(const LayerNorm& m);

val make_multi_head_attention(double d_model, double num_heads);
val multi_head_attention_load_state_dict(MultiHeadAttention& m, const val& names, const val& tensors, bool strict);
val multi_head_attention_forward(const MultiHeadAttention& m, const JsTensor& x, const JsAttentionOptions& o, bool trace);
val multi_head_attention_W_q(const MultiHeadAttention& m);
val multi_head_attention_W_k(const MultiHeadAttention& m);
val multi_head_attention_W_v(const MultiHeadAttention& m);
val multi_head_attention_W_o(const MultiHeadAttention& m);
val make_torch_multihead_attention(double embed_dim, double num_heads, bool bias);
val torch_multihead_attention_forward(const TorchMultiheadAttention& m, const JsTensor& q, const JsTensor& k,
                                      const JsTensor& v, const JsAttentionOptions& o, bool trace);
val torch_multihead_attention_in_proj_weight(const TorchMultiheadAttention& m);
val torch_multihead_attention_in_proj_bias(const TorchMultiheadAttention& m);
val torch_multihead_attention_out_proj(const TorchMultiheadAttention& m);

// ---- model_glue.cpp: the language model (notebook 001 §8, nanoGPT) ------------------

val default_gpt_config();
val notebook001_config(double vocab_size, double d_model, double num_heads, double d_ff, double max_seq_length);
val nanogpt_config(double vocab_size, double block_size, double n_layer, double n_head, double n_embd, bool bias,
                   bool tie_embeddings);
val make_gpt(const std::string& config);
val gpt_forward(const GPT& m, const val& ids, double B, bool want_trace, const val& head_mask);
val gpt_config(const GPT& m);
double gpt_num_parameters(const GPT& m, bool non_embedding);
val gpt_parameter_names(const GPT& m);
val gpt_parameter(const GPT& m, const std::string& name);

val default_generate_options();
val sampling_distribution(const JsTensor& logits, const std::string& options);
val generation_config(const val& generation_config_json, const std::string& config_json);
// `caller` is the JS method, generate or stream, that messages name.
val make_generation_session(const GPT& m, const val& prompt, double B, const std::string& options,
                            const std::string& caller);
val generation_session_next(GenerationSession& s);
val generation_session_tokens(const GenerationSession& s);

val make_tokenizer(const std::string& kind, const val& text);
val tokenizer_from_vocabulary(const std::string& kind, const val& vocabulary);
val tokenizer_encode(const Tokenizer& t, const val& text);
val tokenizer_decode(const Tokenizer& t, const val& ids);
std::string tokenizer_kind(const Tokenizer& t);
val tokenizer_pieces(const Tokenizer& t);
double tokenizer_vocab_size(const Tokenizer& t);
val tokenizer_vocabulary(const Tokenizer& t);

val agreement_corpus(double sentences, double seed);
val probe_agreement(const GPT& m, const Tokenizer& tokenizer, double sentences, double seed, const val& head_mask);

// ---- training_glue.cpp: nanoGPT's train.py a step at a time --------------------------

val default_train_config();
val make_trainer(const std::string& model, const std::string& training, const val& text);
val trainer_step(Trainer& t);
val trainer_evaluate(Trainer& t, double eval_iters);
double trainer_iter(const Trainer& t);
val trainer_vocabulary(const Trainer& t);
val trainer_config(const Trainer& t);
val trainer_model_config(const Trainer& t);
val trainer_snapshot(const Trainer& t);
val induction_recipe();

// ---- checkpoint_glue.cpp: safetensors files ---------------------------------------------

val load_checkpoint(const val& bytes);
val gpt_checkpoint(const GPT& m, const Tokenizer& tokenizer);
val trainer_checkpoint(const Trainer& t);
val resume_trainer(const val& bytes, const val& text);

// What each head does on a text (model_glue.cpp).
val summarize_heads(const GPT& m, const val& ids, double thumbnail, const val& head_mask);
val head_attention(const GPT& m, const val& ids, double layer, double head, const val& head_mask);
val layer_attention(const GPT& m, const val& ids, double layer, const val& head_mask);
// Which heads are induction heads (model_glue.cpp).
val head_scores(const GPT& m, double batch_size, double length, double seed, bool ablation);
val repeated_sequences(double batch_size, double length, double vocab_size, double seed);

// ---- pretrained_glue.cpp: GPT-2's tokenizer and Hugging Face checkpoints ----------

val bpe_from_files(const val& vocab_json, const val& merges_txt, const val& tokenizer_config);
val bpe_from_tokenizer_json(const val& text, const val& tokenizer_config);
val bpe_encode(const BPETokenizer& t, const val& text, bool add_special_tokens);
val bpe_decode(const BPETokenizer& t, const val& ids, bool skip_special_tokens, const val& clean_up);
val bpe_named_tokens(const BPETokenizer& t);
val bpe_pieces(const BPETokenizer& t);
double bpe_vocab_size(const BPETokenizer& t);
val pretrained_tokenizer(const std::string& config_json, const val& files);
val kv_cache_numbers(const std::string& config_json, double tokens);
val pretrained_header_length(const val& first_bytes, double file_size, const std::string& file);
val pretrained_shard_files(const val& index_json);
val make_pretrained_loader(const std::string& config_json, const val& files, const std::string& index_json);
val pretrained_loader_tensors(const PretrainedLoader& l);
val pretrained_loader_read(PretrainedLoader& l, double i, double offset, const val& bytes);
val pretrained_loader_finish(PretrainedLoader& l);

}  // namespace attn::js
