// attn: self-attention, step by step, exactly as the teaching notebooks build it.
//
// Worked example (notebook 000, "Your journey starts with one step"):
//
//     #include <attn/attn.hpp>
//
//     attn::Tensor inputs({6, 3}, {0.43f, 0.15f, 0.89f,    // Your
//                                  0.55f, 0.87f, 0.66f,    // journey
//                                  0.57f, 0.85f, 0.64f,    // starts
//                                  0.22f, 0.58f, 0.33f,    // with
//                                  0.77f, 0.25f, 0.10f,    // one
//                                  0.05f, 0.80f, 0.55f});  // step
//
//     // Without trainable weights: ω = X Xᵀ, α = softmax(ω), Z = α X.
//     attn::SimpleAttentionTrace s = attn::simple_self_attention(inputs);
//     // s.weights row 1 ("journey"): 0.1385 0.2379 0.2333 0.1240 0.1082 0.1581
//
//     // With trainable weights, seeded like the notebook.
//     attn::manual_seed(123);
//     attn::SelfAttentionV1 sa(/*d_in=*/3, /*d_out=*/2);
//     attn::SelfAttentionTrace t = sa.forward(inputs);
//     // t.queries row 1: 0.4306 1.4551;  t.context row 1: 0.3061 0.8210
//
//     // Causal masking on a batch, every intermediate in the trace.
//     attn::AttentionOptions causal;
//     causal.causal = true;
//     attn::AttentionTrace a =
//         attn::scaled_dot_product_attention(t.queries, t.keys, t.values, causal);
//     // a.weights is lower-triangular; each row sums to 1.
//
// Files, in the order the notebooks introduce them (docs/notebooks.md); each
// includes only files above it:
//   error.hpp                        attn::Error, what every refused call throws
//   threads.hpp                      how many threads the kernels use (results never depend on it)
//   memory.hpp                       keep freed buffers for the next step (a program's choice)
//   tensor.hpp                       the (shape, float data) type and shape checks
//   torch_rng.hpp                    PyTorch's CPU random numbers, bit for bit
//   softmax.hpp                      sum-normalisation, naive and stable softmax
//   online_softmax.hpp               the same softmax in one streaming pass: a running maximum and sum
//   simple_attention.hpp             attention without trainable weights
//   linear.hpp, embedding.hpp,
//   layer_norm.hpp                   the nn layers, initialised as PyTorch does
//   rms_norm.hpp                     RMSNorm, today's decoders' norm (and Gemma's 1 + w)
//   activations.hpp, dropout.hpp     ReLU, GELU and dropout, forward and backward
//   mask.hpp, attention_options.hpp  causal and padding masks (001 §6); the options every attention takes
//   scaled_dot_product_attention.hpp softmax(Q Kᵀ/√d_k) V with masks and a trace (001 §3, 004)
//   sinusoidal_positions.hpp         the fixed sin/cos positions of "Attention Is All You Need"
//   rope.hpp                         rotary positions: where today's decoders get order from
//   state_dict.hpp                   load_state_dict: weights set by their PyTorch names
//   self_attention.hpp               SelfAttentionV1 / V2 / U with traces (built on the line above)
//   score_explanation.hpp            one score taken apart: products, √d_k, its row, the mixing
//   multi_head_attention.hpp         several heads (notebook 001 §7, nn.MultiheadAttention)
//   tokenizer.hpp                    character and word tokens (nanoGPT's prepare.py)
//   special_tokens.hpp               <|endoftext|> and its kind found in one pass (Aho–Corasick)
//   bpe_tokenizer.hpp                GPT-2's byte-level BPE (its Unicode classes: cpp/src)
//   lr_schedule.hpp                  nanoGPT's learning-rate schedule, warm-up then cosine
//   config.hpp                       GPTConfig and TrainConfig: every field named once
//   gpt.hpp                          the tiny language model (notebook 001 §8, nanoGPT)
//   sampling.hpp, generate.hpp       temperature, top-k, top-p, multinomial; generation with a KV cache, stop tokens
//   generation_config.hpp            a model folder's generation settings (generation_config.json)
//   kv_cache.hpp                     what that cache holds per token: grouped heads, sliding windows
//   cross_entropy.hpp, adamw.hpp     the loss and the optimizer
//   repeated_sequences.hpp           random tokens with a segment repeated: the induction heads' task
//   dataset.hpp, trainer.hpp         nanoGPT's batches and training loop (notebook 001's "next steps")
//   checkpoint.hpp                   safetensors files with a digest
//   pretrained.hpp                   GPT-2-family models from a Hugging Face folder
//   head_statistics.hpp              what each head does on a text, measured
//   head_scores.hpp                  which heads are induction heads, measured on repeats
//   synthetic_corpus.hpp,
//   agreement_probe.hpp              the agreement corpus and what a model learned from it
//
// Internals, not installed (cpp/src): gemm.hpp, the matrix product every layer
// runs, with its own WASM SIMD kernel; thread_pool.hpp, the pool and the
// parallel_for every threaded kernel is written with; attention_kernel.hpp, the fused
// multi-head kernel the modules and the model run, forward and backward;
// simd.hpp, the 128-bit vector helpers of both; unicode_classes.hpp, the
// letter, number and space classes of GPT-2's pre-tokenizer;
// parameter_chunks.hpp, a model's tensors cut into chunks for the element-wise
// work of a training step over the threads (AdamW's update, the gradient sum);
// safetensors.hpp, the one reader of safetensors headers that checkpoints and
// Hugging Face weights are both read through.
#pragma once

#include "attn/activations.hpp"
#include "attn/adamw.hpp"
#include "attn/agreement_probe.hpp"
#include "attn/attention_options.hpp"
#include "attn/bpe_tokenizer.hpp"
#include "attn/checkpoint.hpp"
#include "attn/config.hpp"
#include "attn/cross_entropy.hpp"
#include "attn/dataset.hpp"
#include "attn/dropout.hpp"
#include "attn/error.hpp"
#include "attn/embedding.hpp"
#include "attn/generate.hpp"
#include "attn/generation_config.hpp"
#include "attn/gpt.hpp"
#include "attn/head_scores.hpp"
#include "attn/head_statistics.hpp"
#include "attn/kv_cache.hpp"
#include "attn/layer_norm.hpp"
#include "attn/linear.hpp"
#include "attn/lr_schedule.hpp"
#include "attn/mask.hpp"
#include "attn/memory.hpp"
#include "attn/multi_head_attention.hpp"
#include "attn/online_softmax.hpp"
#include "attn/pretrained.hpp"
#include "attn/repeated_sequences.hpp"
#include "attn/rms_norm.hpp"
#include "attn/rope.hpp"
#include "attn/sampling.hpp"
#include "attn/scaled_dot_product_attention.hpp"
#include "attn/score_explanation.hpp"
#include "attn/self_attention.hpp"
#include "attn/simple_attention.hpp"
#include "attn/sinusoidal_positions.hpp"
#include "attn/softmax.hpp"
#include "attn/state_dict.hpp"
#include "attn/special_tokens.hpp"
#include "attn/synthetic_corpus.hpp"
#include "attn/tensor.hpp"
#include "attn/threads.hpp"
#include "attn/tokenizer.hpp"
#include "attn/torch_rng.hpp"
#include "attn/trainer.hpp"
