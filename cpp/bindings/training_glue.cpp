// Glue for training: nanoGPT's train.py a step at a time (Trainer).
#include "glue.hpp"
#include "traces.hpp"

#include "attn/config.hpp"

namespace attn::js {

namespace {
// As model_glue.cpp's: the schema writes the config in JS's spelling.
val js_config(const TrainConfig& c) { return val(to_json(c, Naming::Camel)); }
}  // namespace

val default_train_config() {
    return guarded("defaultTrainConfig", [] { return js_config(TrainConfig{}); });
}

// The recipe that forms induction heads: {model, training} configs in JS's spelling.
val induction_recipe() {
    return guarded("inductionRecipe", [] {
        return val("{\"model\":" + to_json(GPTConfig::induction(), Naming::Camel) + ",\"training\":" +
                   to_json(TrainConfig::induction(), Naming::Camel) + "}");
    });
}

val make_trainer(const std::string& model, const std::string& training, const val& text) {
    return guarded("Trainer", [&] {
        return owned_by_js(new Trainer(gpt_config_from_json(model, Naming::Camel, "Trainer"),
                                       train_config_from_json(training, Naming::Camel, "Trainer"), text_from_js(text)));
    });
}

val trainer_step(Trainer& t) {
    return guarded("Trainer.step", [&] { return to_js(t.step()); });
}

val trainer_evaluate(Trainer& t, double eval_iters) {
    constexpr const char* fn = "Trainer.evaluate";
    return guarded(fn, [&] { return to_js(t.evaluate(to_integer(eval_iters, fn, "evalIters"))); });
}

double trainer_iter(const Trainer& t) { return static_cast<double>(t.iter()); }

val trainer_vocabulary(const Trainer& t) {
    return guarded("Trainer.vocabulary", [&] { return text_to_js(t.data().tokenizer().vocabulary()); });
}

val trainer_config(const Trainer& t) {
    return guarded("Trainer.config", [&] { return js_config(t.config()); });
}

val trainer_model_config(const Trainer& t) {
    return guarded("Trainer.modelConfig", [&] { return val(to_json(t.model().config(), Naming::Camel)); });
}

// A copy of the model being trained, owned by the caller.
val trainer_snapshot(const Trainer& t) {
    return guarded("Trainer.snapshot", [&] { return owned_by_js(new GPT(t.model())); });
}

}  // namespace attn::js
