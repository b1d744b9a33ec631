// Glue for checkpoints: safetensors files of a model, its tokenizer and, from
// a trainer, the optimizer's state (checkpoint.hpp).
#include "glue.hpp"

#include "attn/checkpoint.hpp"

namespace attn::js {

// {model, tokenizer, vocabulary, iter | null, verified} of a checkpoint
// (validated in full); the model and the tokenizer are handles JS owns.
val load_checkpoint(const val& bytes) {
    return guarded("loadCheckpoint", [&] {
        Checkpoint ck = attn::load_checkpoint(bytes_from_js(bytes, "loadCheckpoint"));
        val out = val::object();
        out.set("vocabulary", val(ck.tokenizer.vocabulary()));
        out.set("iter", ck.training ? val(static_cast<double>(ck.training->iter)) : val::null());
        out.set("verified", val(ck.verified));
        out.set("model", owned_by_js(new GPT(std::move(ck.model))));
        out.set("tokenizer", owned_by_js(new Tokenizer(std::move(ck.tokenizer))));
        return out;
    });
}

val gpt_checkpoint(const GPT& m, const Tokenizer& tokenizer) {
    return guarded("GPT.checkpoint", [&] {
        if (tokenizer.vocab_size() != m.config().vocab_size) {
            throw Error("GPT.checkpoint: expected a tokenizer of vocabSize " + std::to_string(m.config().vocab_size) +
                        ", got one of " + std::to_string(tokenizer.vocab_size()));
        }
        return bytes_to_js(save_checkpoint(m, tokenizer));
    });
}

val trainer_checkpoint(const Trainer& t) {
    return guarded("Trainer.checkpoint", [&] { return bytes_to_js(save_checkpoint(t.model(), t.data().tokenizer(), &t)); });
}

val resume_trainer(const val& bytes, const val& text) {
    return guarded("Trainer.resume", [&] {
        Checkpoint ck = attn::load_checkpoint(bytes_from_js(bytes, "Trainer.resume"));
        if (!ck.training) {
            throw Error("Trainer.resume: the checkpoint holds no training state (it was saved from a model, not a trainer)");
        }
        return owned_by_js(new Trainer(std::move(ck.model), std::move(ck.training->optimizer), ck.training->iter,
                                       std::move(ck.tokenizer), ck.training->config, text_from_js(text)));
    });
}

}  // namespace attn::js
