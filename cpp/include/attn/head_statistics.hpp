// What each head of a model does on one text, measured from its attention
// weights the way interpretability papers describe heads (Clark et al. 2019,
// "What Does BERT Look At?", §3; Voita et al. 2019): how much a head attends to
// the token just before, to the first token, how far back on average, and how
// spread out its weights are. The model runs once and each layer's weights are
// read as they pass (GPT::forward_observed), so GPT-2 small at 1,024 tokens is
// measured in the memory of one layer's maps.
//
//   HeadSummary s = summarize_heads(model, ids);
//   s.previous_token  // (n_layer, n_head): 0.97 for a previous-token head
#pragma once

#include "attn/gpt.hpp"
#include "attn/tensor.hpp"

#include <cstdint>
#include <vector>

namespace attn {

struct HeadSummaryOptions {
    int64_t thumbnail = 0;            // side of each map's thumbnail (0: none); at most the text's length
    const Tensor* head_mask = nullptr;  // (n_layer, n_head), as GPT::forward
};

// Every statistic is a mean over the queries 1..T−1 (query 0 can only attend to itself).
struct HeadSummary {
    Tensor previous_token;  // (n_layer, n_head) weight on the token just before the query
    Tensor first_token;     // (n_layer, n_head) weight on the text's first token
    Tensor mean_distance;   // (n_layer, n_head) Σ_j w_ij (i − j): how many tokens back, on average
    Tensor entropy;         // (n_layer, n_head) −Σ_j w_ij ln w_ij in nats: 0 on one token, ln(i+1) spread evenly
    Tensor distance_profile;  // (n_layer, n_head, P) weight on the key d tokens back, d = 0 … P − 1 (P = min(T, 16)):
                              // a mean over the queries that have such a key (i ≥ max(d, 1)). A previous-token head
                              // peaks at 1, a head that reads its own token at 0, a sliding window's ends at w − 1
    Tensor layer_window;    // (n_layer) the keys a query of each layer may see: its sliding window, 0 for all
    Tensor thumbnails;      // (n_layer, n_head, S, S) each map max-pooled over blocks of ⌈T/S⌉ rows and
                            // columns, so a one-token-wide line stays visible
    Tensor next_logits;     // (vocab_size) the logits after the last token
};

// ids (T): one text of at least 2 tokens, within the model's block size.
// The distance profile's length: the distances a head table can show as a row of bars.
constexpr int64_t kDistanceProfile = 16;
HeadSummary summarize_heads(const GPT& model, const std::vector<int64_t>& ids, const HeadSummaryOptions& options = {});

// One head of one layer on ids (T), in the form explain_score reads (score_explanation.hpp).
struct HeadMap {
    Tensor queries;  // (T, d_head)
    Tensor keys;     // (T, d_head)
    Tensor values;   // (T, d_head)
    Tensor weights;  // (T, T)
    float divisor;   // what the head divided its scores by: √d_head, or √query_pre_attn_scalar (Gemma 3)
};
// layer and head count from 0.
HeadMap head_attention(const GPT& model, const std::vector<int64_t>& ids, int64_t layer, int64_t head,
                       const Tensor* head_mask = nullptr);
// Every head's weights (n_head, T, T) of one layer on ids (T): what a head view draws.
Tensor layer_attention(const GPT& model, const std::vector<int64_t>& ids, int64_t layer, const Tensor* head_mask = nullptr);

}  // namespace attn
