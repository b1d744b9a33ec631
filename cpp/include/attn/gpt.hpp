// The tiny transformer language model, in the two classic forms:
//
//   post-norm  notebook 001's SimpleLanguageModel:  x = LN(x + sublayer(x))
//   pre-norm   nanoGPT's GPT:                       x = x + sublayer(LN(x)), final LN
//
// Token + position embeddings, n_layers blocks of [causal multi-head
// self-attention, feed-forward Linear -> ReLU/GELU -> Linear], a projection to
// vocabulary logits. With config.attn_only a block is its attention sublayer
// alone (Elhage et al. 2021's attention-only transformers; head_scores.hpp). Parameters carry nanoGPT's names (transformer.h.0.attn.
// c_attn.weight, ...) so checkpoints line up with nanoGPT's state_dict.
#pragma once

#include "attn/config.hpp"
#include "attn/tensor.hpp"
#include "attn/torch_rng.hpp"

#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace attn {

// Shapes with H query heads and KV key/value heads of D dimensions (GPT-2: KV = H, H·D = C); Q = H·D + 2·KV·D.
struct GPTBlock {
    Tensor ln_1_weight, ln_1_bias;              // (C), (C) or empty
    Tensor attn_c_attn_weight;                  // (Q, C): rows W_q (H·D), then W_k (KV·D), then W_v (KV·D)
    Tensor attn_c_attn_bias;                    // (Q) or empty
    Tensor attn_q_norm_weight;                  // (D) or empty: qk_norm
    Tensor attn_k_norm_weight;                  // (D) or empty
    Tensor attn_c_proj_weight;                  // (C, H·D) W_o
    Tensor attn_c_proj_bias;                    // (C) or empty
    Tensor ln_post_attn_weight;                 // (C) or empty: sandwich_norm, on the attention's output
    Tensor ln_2_weight, ln_2_bias;              // (C), (C) or empty
    Tensor mlp_c_gate_weight;                   // (F, C) or empty: gated_mlp
    Tensor mlp_c_fc_weight;                     // (F, C) (a gated MLP's "up")
    Tensor mlp_c_fc_bias;                       // (F) or empty
    Tensor mlp_c_proj_weight;                   // (C, F)
    Tensor mlp_c_proj_bias;                     // (C) or empty
    Tensor ln_post_mlp_weight;                  // (C) or empty: sandwich_norm, on the MLP's output
};

struct GPTLayerTrace {
    Tensor input;    // (B, T, C) residual stream entering the block
    Tensor queries;  // (B, H, T, D) after any q norm and RoPE: what meets the keys
    Tensor keys;     // (B, KV, T_k, D)  T_k includes cached positions; KV key/value heads
    Tensor values;   // (B, KV, T_k, D)
    Tensor scores;   // (B, H, T, T_k) Q Kᵀ / √d_k, future positions -inf
    Tensor weights;  // (B, H, T, T_k)
    Tensor output;   // (B, T, C) residual stream leaving the block
};

struct GPTTrace {
    Tensor embeddings;                 // (B, T, C) token + position embeddings
    std::vector<GPTLayerTrace> layers;
};

// What a training forward pass keeps for backward (llm.c's "activations"),
// N = B·T rows. Dropout multipliers are empty when dropout is off.
struct GPTLayerActivations {
    Matrix input;                          // (N, C) residual stream entering the block
    Matrix ln_1;                           // (N, C) LN₁ output (pre-norm) / LN₁ input x + a (post-norm)
    std::vector<float> ln_1_mean, ln_1_rstd;  // (N); the mean is LayerNorm's only
    Matrix qk_raw;                         // (N, (H + KV)·D) queries and keys before their norm (qk_norm)
    std::vector<float> qk_rstd;            // (N·(H + KV)) the q/k norm's 1/rms of each head's row
    Matrix qkv;                            // (N, Q) queries and keys after their norm and RoPE, values
    std::vector<float> att;                // (B, H, T, T) softmax weights, before dropout
    std::vector<float> att_keep;           // (B, H, T, T) attention-dropout multipliers
    Matrix y;                              // (N, H·D) heads side by side
    Matrix attn_out;                       // (N, C) the output projection before the sandwich norm
    std::vector<float> post_attn_rstd;     // (N)
    std::vector<float> resid_1_keep;       // (N, C) dropout after the attention projection
    Matrix x_1;                            // (N, C) stream after the attention sublayer
    Matrix ln_2;                           // (N, C) LN₂ output (pre-norm) / LN₂ input x₁ + m (post-norm)
    std::vector<float> ln_2_mean, ln_2_rstd;  // (N)
    Matrix gate;                           // (N, F) a gated MLP's gate, before the activation
    Matrix fc;                             // (N, F) before the activation (a gated MLP's "up")
    Matrix act;                            // (N, F) after the activation (gated: act(gate) ⊙ up)
    Matrix mlp_out;                        // (N, C) the down projection before the sandwich norm
    std::vector<float> post_mlp_rstd;      // (N)
    std::vector<float> resid_2_keep;       // (N, C) dropout after the feed-forward projection
};

// In training one GPTLayerActivations per layer; inference (forward,
// forward_cached) reuses a single one for every layer.
struct GPTActivations {
    int64_t B = 0, T = 0;
    std::vector<int64_t> ids;              // (B, T)
    std::vector<float> emb_keep;           // (N, C) dropout on the embeddings
    std::vector<float> rope_cos, rope_sin; // (T, D) each: RoPE's tables of the positions (global layers)
    std::vector<float> rope_local_cos, rope_local_sin;  // (T, D) on sliding layers with their own base
    std::vector<GPTLayerActivations> layers;
    Matrix x_final;                        // (N, C) stream after the last block
    Matrix ln_f;                           // (N, C) final LN output (pre-norm only)
    std::vector<float> ln_f_mean, ln_f_rstd;  // (N)
};

// Keys and values of every position seen so far, per layer, so that each new
// token costs one row of attention instead of a full recompute: once per key/value head (grouped-query
// attention's saving), keys after RoPE. Its length has one owner: GPT::forward_cached extends it, growing the
// rows it holds as it goes (up to block_size); clear() forgets the context.
class KVCache {
public:
    int64_t batch() const { return batch_; }
    int64_t length() const { return length_; }      // positions cached
    int64_t capacity() const { return capacity_; }  // positions each sequence has room for
    void clear() { length_ = 0; }
    std::vector<Matrix> k;  // per layer (batch · capacity, KV·D): sequence b's position t in row b · capacity + t
    std::vector<Matrix> v;  // per layer (batch · capacity, KV·D)

private:
    friend class GPT;
    int64_t batch_ = 0;
    int64_t length_ = 0;
    int64_t capacity_ = 0;
};

class GPT;

// The parts GPT::forward runs a batch of B sequences of T tokens in, one task each: the sequences of a batch
// never meet, so parts of whole sequences are as good as the batch, and a small model's products are too small
// to split well across threads (the same reason a training step runs micro-batches, trainer.hpp). The number
// comes from the model and the batch alone (the largest power of two dividing B, at most
// kMaxInferenceParts, whose parts each still make a task's worth of work), never from the thread count, so
// logits are the same on any number of threads.
inline constexpr int64_t kMaxInferenceParts = 8;
int64_t inference_parts(const GPTConfig& config, int64_t B, int64_t T);

class GPT {
public:
    explicit GPT(const GPTConfig& config);
    // Draws the initial weights from gen (as after torch.manual_seed) instead
    // of a generator seeded with config.seed, so a training run can continue
    // the same stream for its batches, as nanoGPT's train.py does.
    GPT(const GPTConfig& config, Generator& gen);

    // ids (B, T) row-major, T <= block_size. Returns logits (B, T, vocab_size).
    // With a trace pointer, every layer's and head's intermediates are copied
    // into it; without one nothing extra is computed or stored.
    // head_mask (n_layer, n_head), when given, multiplies each head's attention
    // weights, hence its output, before the output projection: 0 switches a
    // head off (Hugging Face's head_mask; Michel et al. 2019, "Are Sixteen
    // Heads Really Better than One?"). The trace's weights are the multiplied ones.
    // Without a trace, a batch worth splitting runs as inference_parts() parts of whole sequences, one task each.
    Tensor forward(const std::vector<int64_t>& ids, int64_t B, GPTTrace* trace = nullptr,
                   const Tensor* head_mask = nullptr) const;

    // forward() that hands each layer's attention weights (B, n_head, T, T), after the head mask, and its
    // queries, keys and values side by side (B·T, (H + 2·KV)·D) to observe(layer, weights, qkv) as the pass goes
    // instead of keeping them: what measurements of the heads read (head_statistics.hpp), at the memory of one
    // layer (GPT-2 small's 144 maps of 1,024² take 600 MB).
    using AttentionObserver = std::function<void(int64_t layer, const std::vector<float>& weights, const Matrix& qkv)>;
    Tensor forward_observed(const std::vector<int64_t>& ids, int64_t B, const AttentionObserver& observe,
                            const Tensor* head_mask = nullptr) const;

    // Appends ids (B, T_new) to the cache's context and returns their logits
    // (B, T_new, vocab_size): equal to forward() on the whole context's last
    // T_new positions. The cached context must stay within block_size.
    Tensor forward_cached(const std::vector<int64_t>& ids, int64_t B, KVCache& cache,
                          GPTTrace* trace = nullptr) const;
    KVCache new_cache(int64_t batch) const;
    // Refuses, before anything is allocated, a pass of B rows of T new tokens over a context of T_k positions
    // whose largest buffers would exceed kMaxElements: queries, keys and values (B, T, 3C), the attention
    // weights (B, n_head, T, T_k), the feed-forward activations (B, T, n_inner), the logits (B, T, vocab_size).
    // forward and forward_cached check every call; a Trainer checks its step when it is made.
    static void check_pass_fits(const GPTConfig& config, int64_t B, int64_t T, int64_t T_k, const char* fn);

    // Training mode: logits (B, T, V) with every activation kept in `acts`
    // for backward(); dropout (config.dropout > 0) draws its masks from
    // `dropout_gen` as torch.nn.Dropout does (keep where u < 1 - p, u a 53-bit
    // double, kept values scaled by 1/(1 - p)). No dropout when it is null.
    Tensor forward_train(const std::vector<int64_t>& ids, int64_t B, GPTActivations& acts,
                         Generator* dropout_gen) const;
    // Accumulates into grads (a model of the same config, see zeros_like) the
    // gradient of a loss whose gradient w.r.t. the logits is dlogits (B·T, V).
    void backward(const GPTActivations& acts, const float* dlogits, GPT& grads) const;
    // A model of the same config with every parameter 0: a gradient buffer.
    GPT zeros_like() const { return zeros(config_); }
    // Every parameter allocated and 0, no random draws (for loading weights). `half`, when given, names the
    // 16-bit format a weight matrix is kept in (Half::None: float32): a loaded float16 or bfloat16 model's.
    static GPT zeros(const GPTConfig& config, const std::function<Half(const std::string&)>& half = {});
    // Whether any weight is kept in 16 bits: such a model runs forward passes, not training (backward needs
    // float32 weights to update).
    bool has_half_weights() const;
    // Widens every 16-bit weight to the float32 values it stands for, in place (exactly): training updates float32
    // weights, so fine-tuning a bfloat16 model widens it first, to twice its memory (within kMaxWeightBytes).
    void widen_weights();

    const GPTConfig& config() const { return config_; }
    // nanoGPT's get_num_params: shared (tied) tensors once; non_embedding
    // leaves out the position embedding.
    int64_t num_parameters(bool non_embedding = true) const;
    // (name, tensor) in nanoGPT's state_dict order; a tied lm_head is not listed.
    std::vector<std::pair<std::string, Tensor*>> named_parameters();
    std::vector<std::pair<std::string, const Tensor*>> named_parameters() const;
    // The same names with their shapes, for a config, without allocating a model: what a checkpoint must hold.
    static std::vector<std::pair<std::string, Shape>> parameter_layout(const GPTConfig& config);

    const Tensor& head_weight() const { return config_.tie_embeddings ? wte : lm_head_weight; }

    Tensor wte;                  // (V, C) transformer.wte.weight
    Tensor wpe;                  // (block_size, C) transformer.wpe.weight; empty with rotary positions
    std::vector<GPTBlock> h;     // transformer.h.{i}
    Tensor ln_f_weight;          // (C), pre-norm only
    Tensor ln_f_bias;            // (C) or empty
    Tensor lm_head_weight;       // (V, C), empty when tied
    Tensor lm_head_bias;         // (V) or empty

private:
    struct Uninitialised {};
    GPT(const GPTConfig& config, Uninitialised, const std::function<Half(const std::string&)>& half = {});
    void allocate(const std::function<Half(const std::string&)>& half = {});
    void initialise(Generator& gen);
    GPTConfig config_;
};

}  // namespace attn
