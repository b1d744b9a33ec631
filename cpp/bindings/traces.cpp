#include "traces.hpp"

#include <initializer_list>
#include <utility>

namespace attn::js {

namespace {
// {name: value, ...}
val object(std::initializer_list<std::pair<const char*, val>> fields) {
    val out = val::object();
    for (const auto& [name, value] : fields) out.set(name, value);
    return out;
}
val tensor(const Tensor& t) { return val(to_js(t)); }
val number(double x) { return val(x); }
}  // namespace

val to_js(const SimpleAttentionTrace& t) {
    return object({{"scores", tensor(t.scores)}, {"weights", tensor(t.weights)}, {"context", tensor(t.context)}});
}

val to_js(const AttentionTrace& t) {
    return object({{"scores", tensor(t.scores)},
                   {"scaledScores", tensor(t.scaled_scores)},
                   {"mask", tensor(t.mask)},
                   {"maskedScores", tensor(t.masked_scores)},
                   {"weights", tensor(t.weights)},
                   {"output", tensor(t.output)}});
}

val to_js(const ScoreExplanation& e) {
    return object({{"query", tensor(e.query)},
                   {"key", tensor(e.key)},
                   {"products", tensor(e.products)},
                   {"score", number(e.score)},
                   {"divisor", number(e.divisor)},
                   {"scaledScore", number(e.scaled_score)},
                   {"weights", tensor(e.weights)},
                   {"mixed", tensor(e.mixed)},
                   {"output", tensor(e.output)}});
}

val to_js(const SelfAttentionTrace& t) {
    return object({{"queries", tensor(t.queries)},
                   {"keys", tensor(t.keys)},
                   {"values", tensor(t.values)},
                   {"scores", tensor(t.scores)},
                   {"scaledScores", tensor(t.scaled_scores)},
                   {"weights", tensor(t.weights)},
                   {"context", tensor(t.context)}});
}

val to_js(const MultiHeadAttentionTrace& t, bool trace) {
    if (!trace) return object({{"output", tensor(t.output)}});
    return object({{"queries", tensor(t.queries)},
                   {"keys", tensor(t.keys)},
                   {"values", tensor(t.values)},
                   {"scores", tensor(t.scores)},
                   {"weights", tensor(t.weights)},
                   {"concat", tensor(t.concat)},
                   {"output", tensor(t.output)},
                   {"averageWeights", tensor(t.average_weights)}});
}

val to_js(const GPTTrace& t) {
    val layers = val::array();
    for (const GPTLayerTrace& l : t.layers) {
        layers.call<void>("push", object({{"input", tensor(l.input)},
                                          {"queries", tensor(l.queries)},
                                          {"keys", tensor(l.keys)},
                                          {"values", tensor(l.values)},
                                          {"scores", tensor(l.scores)},
                                          {"weights", tensor(l.weights)},
                                          {"output", tensor(l.output)}}));
    }
    return object({{"embeddings", tensor(t.embeddings)}, {"layers", layers}});
}

val to_js(const AgreementReport& r) {
    return object({{"sentences", number(static_cast<double>(r.sentences))},
                   {"accuracy", number(r.accuracy)},
                   {"subjectAttention", doubles_to_js(r.subject_attention)},
                   {"bestLayer", number(static_cast<double>(r.best_layer))},
                   {"bestHead", number(static_cast<double>(r.best_head))},
                   {"bestSubjectAttention", number(r.best_subject_attention)}});
}

val to_js(const HeadSummary& s) {
    return object({{"previousToken", tensor(s.previous_token)},
                   {"firstToken", tensor(s.first_token)},
                   {"meanDistance", tensor(s.mean_distance)},
                   {"entropy", tensor(s.entropy)},
                   {"distanceProfile", tensor(s.distance_profile)},
                   {"layerWindow", tensor(s.layer_window)},
                   {"thumbnails", tensor(s.thumbnails)},
                   {"nextLogits", tensor(s.next_logits)}});
}

val to_js(const HeadMap& m) {
    return object({{"queries", tensor(m.queries)}, {"keys", tensor(m.keys)}, {"values", tensor(m.values)}, {"weights", tensor(m.weights)},
                   {"divisor", number(m.divisor)}});
}

val to_js(const RepeatedSequences& s) {
    val repeats = val::array();
    for (const Repeat& r : s.repeats) {
        repeats.call<void>("push", object({{"first", number(static_cast<double>(r.first))},
                                           {"second", number(static_cast<double>(r.second))},
                                           {"length", number(static_cast<double>(r.length))}}));
    }
    return object({{"sequences", val(int_tensor_to_js(s.ids, {s.B, s.T}))}, {"repeats", repeats}});
}

val to_js(const HeadScores& s) {
    const val measured = to_js(s.sequences);
    return object({{"prefixMatching", tensor(s.prefix_matching)},
                   {"previousToken", tensor(s.previous_token)},
                   {"copying", tensor(s.copying)},
                   {"inContextLossGain", s.in_context_loss_gain.data.empty() ? val::null() : tensor(s.in_context_loss_gain)},
                   {"firstRepeatLoss", number(s.first_repeat_loss)},
                   {"secondRepeatLoss", number(s.second_repeat_loss)},
                   {"sequences", measured["sequences"]},
                   {"repeats", measured["repeats"]}});
}

val to_js(const StepResult& r) {
    return object({{"iter", number(static_cast<double>(r.iter))},
                   {"lr", number(r.lr)},
                   {"loss", number(r.loss)},
                   {"gradNorm", number(r.grad_norm)}});
}

val to_js(const EvalResult& r) { return object({{"train", number(r.train)}, {"val", number(r.val)}}); }

}  // namespace attn::js
