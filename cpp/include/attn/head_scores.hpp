// Which heads of a model are induction heads, measured the way the papers that found them define it
// (Elhage et al. 2021, "A Mathematical Framework for Transformer Circuits"; Olsson et al. 2022, "In-context
// Learning and Induction Heads"), on sequences whose one segment repeats at random places
// (repeated_sequences.hpp):
//
//   x y [A B C D] p q r [A B C D] s t
//                        ^ query: the second copy's B. An induction head attends to C, the token just after
//                          the earlier B (prefix matching), and its OV circuit raises C's logit (copying).
//
//   HeadScores s = head_scores(model);  // 16 sequences of the block size (at most 128), seed 0
//   s.prefix_matching   // (n_layer, n_head): ~0.7 on the induction head of a trained 2-layer model
//   s.previous_token    // (n_layer, n_head): ~0.7 on the layer-0 head whose output its keys read
//   s.second_repeat_loss < s.first_repeat_loss  // the model predicts the second copy, not the first
//
// Every score is a mean over the same queries: in each sequence, the first L − 1 tokens of a copy of length L
// (their next token is the copy's next token, so the second copy's is predictable and the first copy's is not).
#pragma once

#include "attn/gpt.hpp"
#include "attn/repeated_sequences.hpp"
#include "attn/tensor.hpp"

#include <cstdint>

namespace attn {

// The longest sequences head_scores draws when not told a length: a model's block size, up to this.
constexpr int64_t kDefaultScoreLength = 128;

struct HeadScoreOptions {
    int64_t batch_size = 16;  // sequences measured
    int64_t length = 0;       // tokens per sequence; 0: the block size, at most kDefaultScoreLength
    uint64_t seed = 0;        // of the generator the sequences are drawn from
    bool ablation = true;     // measure in_context_loss_gain: one more forward pass per head
};

struct HeadScores {
    // Mean attention from a second-copy query at position second + k to first + k + 1, the token after the
    // query's earlier occurrence (Olsson et al.'s prefix matching).
    Tensor prefix_matching;       // (n_layer, n_head)
    // Mean attention from every query t ≥ 1 to t − 1.
    Tensor previous_token;        // (n_layer, n_head)
    // Elhage et al.'s copying score of the head's OV circuit from token embedding to logits,
    // M = W_U diag(γ_f) W_O^h W_V^h diag(γ_1) W_Eᵀ (V × V): Σλ / Σ|λ| over M's eigenvalues, in [−1, 1], 1 when
    // attending to a token can only raise that token's logit. The LayerNorms' gains are folded in (pre-norm
    // models), their centring and scaling left out, as in the paper.
    Tensor copying;               // (n_layer, n_head)
    // second_repeat_loss with the head switched off (head mask 0), minus second_repeat_loss: how much the
    // model's in-context prediction relies on it. Empty when options.ablation is false.
    Tensor in_context_loss_gain;  // (n_layer, n_head)
    float first_repeat_loss = 0;   // mean cross-entropy (nats) predicting tokens 1..L−1 of the first copy
    float second_repeat_loss = 0;  // and of the second copy
    RepeatedSequences sequences;   // what was measured
};

// Draws the sequences (repeated_sequences with a generator seeded with options.seed, over the whole
// vocabulary) and measures. Throws Error (naming headScores) for a model of one layer (an induction head
// composes two: a previous-token head, and a head whose keys read its output), a length beyond the
// block size or below kMinRepeatedLength, or a batch beyond what one pass may hold.
HeadScores head_scores(const GPT& model, const HeadScoreOptions& options = {});
// The same measurement on given sequences, each repeat checked against its tokens.
HeadScores head_scores(const GPT& model, RepeatedSequences sequences, bool ablation);

}  // namespace attn
