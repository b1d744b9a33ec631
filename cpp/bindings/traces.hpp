// The library's results as plain JS objects: one converter per C++ struct,
// each field named once, in the JS API's spelling (index.d.ts documents them).
// Adding a field to a trace touches its struct and its converter here.
#pragma once

#include "convert.hpp"

#include "attn/agreement_probe.hpp"
#include "attn/gpt.hpp"
#include "attn/head_scores.hpp"
#include "attn/head_statistics.hpp"
#include "attn/multi_head_attention.hpp"
#include "attn/scaled_dot_product_attention.hpp"
#include "attn/score_explanation.hpp"
#include "attn/self_attention.hpp"
#include "attn/simple_attention.hpp"
#include "attn/trainer.hpp"

namespace attn::js {

val to_js(const SimpleAttentionTrace& t);
val to_js(const AttentionTrace& t);
val to_js(const ScoreExplanation& e);
val to_js(const SelfAttentionTrace& t);
// The whole trace, or {output} alone when `trace` is false.
val to_js(const MultiHeadAttentionTrace& t, bool trace);
val to_js(const GPTTrace& t);
val to_js(const AgreementReport& r);
val to_js(const HeadSummary& s);
val to_js(const HeadMap& m);
val to_js(const RepeatedSequences& s);  // {sequences (B, T), repeats: [{first, second, length}]}
val to_js(const HeadScores& s);
val to_js(const StepResult& r);
val to_js(const EvalResult& r);

}  // namespace attn::js
