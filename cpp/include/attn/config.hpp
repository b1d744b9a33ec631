// The configuration of a model (GPTConfig) and of a training run
// (TrainConfig). Each quantity has one name: nanoGPT's (n_embd, n_head,
// learning_rate, ...) in C++, in checkpoints and, as --n-embd, on the command
// line; its camelCase (nEmbd, nHead, learningRate) in JS. config.cpp lists
// every field once with its kind and limits; reading and writing JSON, the
// command-line flags, the WASM bindings and every error message about a field
// go through that one list, so adding a field touches config.cpp (and this
// struct) only.
#pragma once

#include "attn/lr_schedule.hpp"
#include "attn/rope.hpp"
#include "attn/tokenizer.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace attn {

enum class NormPlacement { Post, Pre };
// GELUTanh: GPT-2's gelu_new (activations.hpp); SiLU only as the gate of a gated MLP (SwiGLU).
enum class Activation { ReLU, GELU, GELUTanh, SiLU };
// Where a token's position enters: a learned table added to the embeddings (GPT-2's wpe), or rotary embeddings
// turning each head's queries and keys (RoFormer; Llama, Mistral, Qwen, Gemma: rope.hpp).
enum class Positions { Learned, Rope };
// The norm of every block: LayerNorm (GPT-2), RMSNorm (Llama, Mistral, Qwen), or Gemma's RMSNorm that multiplies
// by 1 + weight (rms_norm.hpp).
enum class NormType { LayerNorm, RMSNorm, GemmaRMSNorm };
enum class RopeScaling { None, Llama3 };
// PyTorch: each module's default initialisation in construction order (what
// notebook 001's model gets). GPT2: nanoGPT's _init_weights, normal(0, 0.02)
// for Linear and Embedding weights, zero biases, and normal(0, 0.02/√(2·n_layer))
// for the residual projections, applied after construction as nanoGPT does.
enum class InitScheme { PyTorch, GPT2 };

// What a training run learns from (TrainConfig::task). Text: windows of the text, as nanoGPT. Repeats: random
// sequences of the text's tokens in which a segment appears twice (repeated_sequences.hpp), the task induction
// heads form on; the text then only gives the vocabulary.
enum class Task { Text, Repeats };

// How a caller spells a field, so that a message names it the way they wrote it.
enum class Naming {
    Snake,  // n_embd: C++ and checkpoints
    Camel,  // nEmbd: the JS API
    Flag,   // --n-embd: attn-train
};

struct GPTConfig {
    int64_t vocab_size = 65;
    int64_t n_embd = 64;       // the width of the residual stream, d_model
    int64_t n_head = 4;
    int64_t n_layer = 2;
    int64_t n_inner = 256;     // feed-forward width (nanoGPT: 4 · n_embd; GPT-2's config calls it n_inner)
    // Blocks of attention alone, without the feed-forward sublayer and its LayerNorm: Elhage et al. 2021's
    // "attention-only transformers", where every path from a token to a logit goes through heads, so what a
    // head does can be read off its weights (induction heads: induction_scores.hpp). n_inner is then unused.
    bool attn_only = false;
    int64_t block_size = 64;   // longest context: rows of the position embedding
    NormPlacement norm = NormPlacement::Pre;
    Activation activation = Activation::GELU;
    bool attention_bias = true;   // biases of the q/k/v and output projections
    bool bias = true;             // biases of the feed-forward layers and LayerNorms
    bool head_bias = false;       // bias of the vocabulary projection
    bool tie_embeddings = false;  // lm_head.weight is transformer.wte.weight
    float layer_norm_epsilon = 1e-5f;  // ε of every LayerNorm (GPT-2's config.json name)
    InitScheme init = InitScheme::GPT2;
    float dropout = 0.0f;         // used in training; forward() is evaluation mode
    uint64_t seed = 1337;         // initial weights = torch.manual_seed(seed); Model(config)

    // What today's decoders (Llama, Mistral, Qwen, Gemma) change; the defaults are GPT-2's. docs/pretrained.md
    // maps each family's config.json keys onto these fields (pretrained.cpp reads them).
    NormType norm_type = NormType::LayerNorm;
    Positions positions = Positions::Learned;
    float rope_theta = 10000.0f;        // the base of RoPE's wavelengths
    float rope_local_theta = 0.0f;      // the base on sliding-window layers (Gemma 3); 0: rope_theta
    RopeScaling rope_scaling = RopeScaling::None;
    float rope_factor = 8.0f;           // llama3 scaling's settings (rope.hpp)
    float rope_low_freq_factor = 1.0f;
    float rope_high_freq_factor = 4.0f;
    int64_t rope_original_context = 8192;
    int64_t n_kv_head = 0;              // key/value heads: n_head (0), a divisor of it (GQA) or 1 (MQA)
    int64_t head_dim = 0;               // D of a query, key or value head; 0: n_embd / n_head
    bool qkv_bias = false;              // biases on q, k and v only, not the output projection (Qwen2)
    bool qk_norm = false;               // the block's norm over each head's queries and keys before RoPE (Qwen3, Gemma 3)
    bool gated_mlp = false;             // down(act(gate(x)) ⊙ up(x)): SwiGLU with silu, GeGLU with gelu_new
    bool sandwich_norm = false;         // norms on the attention and MLP outputs too (Gemma's four per block)
    bool scale_embeddings = false;      // token embeddings × √n_embd (Gemma)
    int64_t sliding_window = 0;         // keys a query sees on a sliding layer (i − j < window); 0: none
    int64_t sliding_window_pattern = 0; // 0: every layer slides; p: layer l attends fully when (l + 1) % p == 0
    float query_pre_attn_scalar = 0.0f; // scores × 1/√this (Gemma); 0: head_dim

    int64_t kv_heads() const { return n_kv_head > 0 ? n_kv_head : n_head; }
    int64_t head_size() const { return head_dim > 0 ? head_dim : n_embd / n_head; }
    int64_t q_width() const { return n_head * head_size(); }     // H · D
    int64_t kv_width() const { return kv_heads() * head_size(); }  // KV · D
    bool sliding(int64_t layer) const {
        return sliding_window > 0 && (sliding_window_pattern == 0 || (layer + 1) % sliding_window_pattern != 0);
    }

    // notebook 001 §8: SimpleLanguageModel(vocab_size, d_model,
    // num_heads, d_ff, max_seq_length), one post-norm block, ReLU, bias-free
    // attention, biased feed-forward and output projection. Refuses (Error) a
    // d_model that num_heads does not divide, naming the notebook's parameters.
    static GPTConfig notebook001(int64_t vocab_size, int64_t d_model, int64_t num_heads, int64_t d_ff,
                                 int64_t max_seq_length, const char* fn = "GPTConfig::notebook001");
    // nanoGPT's GPTConfig: pre-norm, GELU, d_ff = 4 · n_embd, lm_head without bias.
    static GPTConfig nanogpt(int64_t vocab_size, int64_t block_size, int64_t n_layer, int64_t n_head,
                             int64_t n_embd, bool bias, bool tie_embeddings);

    // The attention-only model that forms induction heads fast on the repeats task (TrainConfig::induction;
    // docs/induction.md has the measurements behind each value): 2 layers of 2 heads, width 64, context 32,
    // pre-norm with biases, an untied output layer with a bias, PyTorch's default initialisation.
    static GPTConfig induction(int64_t vocab_size = 32);

    // Throws Error naming the first bad field as `naming` spells it.
    // weight_budget false: a config sized, never built (the KV cache of a model too large to load here).
    void validate(const char* fn = "GPTConfig", Naming naming = Naming::Snake, bool weight_budget = true) const;

    // The elements of the model's matrices and embeddings, (V + T)·C + L·(2·C·(H + KV)·D + 2·C·n_inner) (+ V·C for
    // an untied head; T·C only for learned positions, 3·C·n_inner for a gated MLP, none when attn_only): every model of this config has at least this many parameters (biases and norms add
    // to it), so a file or a memory budget can be checked against it before anything is allocated.
    double matrix_parameters() const;
};

// The most a model's weights may take in memory: 1.25 GiB of WebAssembly's 2 GiB, the rest left for a pass
// and the page. That is 335,544,320 float32 parameters, or twice as many kept in 16 bits as a bf16 or f16
// file holds them (Qwen3-0.6B's 596 M fit; Llama-3.2-1B's 1.24 G do not). GPTConfig::validate refuses a
// config that could not fit even in 16 bits; GPT refuses, before allocating, weights that do not fit as stored.
constexpr double kMaxWeightBytes = 5.0 * (int64_t{1} << 28);

// torch.optim.AdamW's hyper-parameters.
struct AdamWOptions {
    float beta1 = 0.9f;
    float beta2 = 0.999f;
    float eps = 1e-8f;
    float weight_decay = 0.01f;  // PyTorch's default
};

// nanoGPT's train.py settings, at its shakespeare_char laptop size by default.
struct TrainConfig {
    int64_t batch_size = 12;
    LRSchedule lr;                                      // 1e-3, cosine to 1e-4 at 2000, 100 warm-up
    AdamWOptions adamw{0.9f, 0.99f, 1e-8f, 0.1f};       // nanoGPT's shakespeare_char betas and decay
    float grad_clip = 1.0f;                             // 0 turns clipping off
    int64_t eval_iters = 200;                           // batches per split in evaluate()
    uint64_t seed = 1337;
    TokenizerKind tokenizer = TokenizerKind::Char;      // how a fresh run splits its text
    Task task = Task::Text;
    int64_t context = 0;                                // tokens a training window holds; 0: the model's block size

    // How GPTConfig::induction is trained: the repeats task, batches of 32, AdamW at a constant 3e-3 with
    // PyTorch's defaults (β₂ 0.999, decay 0.01), no clipping.
    static TrainConfig induction();

    void validate(const char* fn = "TrainConfig", Naming naming = Naming::Snake) const;
};

// ---- the schema ------------------------------------------------------------------

// JSON objects of every field. Reading takes any subset of the fields (the
// others keep `base`'s values), refuses unknown names (suggesting the nearest
// one), wrong JSON types, non-integers, values outside a field's limits, then
// validates the whole; the errors name fields as `naming` spells them.
std::string to_json(const GPTConfig& config, Naming naming = Naming::Snake);
std::string to_json(const TrainConfig& config, Naming naming = Naming::Snake);
GPTConfig gpt_config_from_json(const std::string& json, Naming naming, const char* fn, const GPTConfig& base = {});
// The RoPE a model of this config turns its queries and keys with: rope_theta and its llama3 scaling, over heads of
// head_size() (a sliding-window layer of Gemma 3 swaps in rope_local_theta, unscaled).
Rope rope_of(const GPTConfig& c);
TrainConfig train_config_from_json(const std::string& json, Naming naming, const char* fn, const TrainConfig& base = {});

// One field of a config as a command line sets it: `value` is its text
// ("true"/"false" for a switch). Unknown names and bad values throw Error.
void set_field(GPTConfig& config, const std::string& name, const std::string& value, Naming naming, const char* fn);
void set_field(TrainConfig& config, const std::string& name, const std::string& value, Naming naming, const char* fn);

// A field as help texts list it.
struct FieldInfo {
    std::string name;     // as `naming` spells it
    std::string kind;     // "integer", "number", "true|false", "pre|post", ...
    std::string value;    // the value in the config it was listed from
    std::string help;
};
std::vector<FieldInfo> fields(const GPTConfig& config, Naming naming);
std::vector<FieldInfo> fields(const TrainConfig& config, Naming naming);

}  // namespace attn
