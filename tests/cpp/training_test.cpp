// Training: schedule, AdamW, clipping, batches, the trainer, checkpoints.
#include "attn/checkpoint.hpp"
#include "attn/config.hpp"
#include "attn/lr_schedule.hpp"
#include "attn/synthetic_corpus.hpp"
#include "attn/tokenizer.hpp"
#include "attn/trainer.hpp"
#include "golden.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>

using namespace attn;

namespace {
// 36 distinct characters in sorted order, for checkpoints of tiny().
const Tokenizer kVocab(TokenizerKind::Char, "abcdefghijklmnopqrstuvwxyz0123456789");

GPTConfig tiny(float dropout = 0.0f) {
    GPTConfig c = GPTConfig::nanogpt(36, 16, 2, 2, 16, true, true);  // Trainer resets the vocabulary size
    c.dropout = dropout;
    return c;
}
TrainConfig quick() {
    TrainConfig t;
    t.batch_size = 4;
    t.lr.learning_rate = 3e-3f;
    t.lr.warmup_iters = 5;
    t.lr.lr_decay_iters = 60;
    t.eval_iters = 4;
    return t;
}
const std::string& text() {
    static const std::string t = agreement_corpus(400, 7);
    return t;
}
}  // namespace

TEST(LRSchedule, NanoGPTWarmupThenCosine) {
    LRSchedule s;  // 1e-3, warm-up 100, decay to 1e-4 at 2000
    EXPECT_FLOAT_EQ(s.at(0), 1e-3f * 1 / 101);
    EXPECT_FLOAT_EQ(s.at(99), 1e-3f * 100 / 101);
    EXPECT_FLOAT_EQ(s.at(100), 1e-3f);
    EXPECT_NEAR(s.at(1050), 1e-4f + 0.5f * (1e-3f - 1e-4f), 1e-9f);  // halfway: cos(π/2) = 0
    EXPECT_FLOAT_EQ(s.at(2000), 1e-4f);
    EXPECT_FLOAT_EQ(s.at(5000), 1e-4f);
    s.decay_lr = false;
    EXPECT_FLOAT_EQ(s.at(0), 1e-3f);
}

TEST(AdamW, TwoStepsMatchPyTorchsFormula) {
    GPT model(tiny());
    GPT grads = model.zeros_like();
    AdamW opt(model, AdamWOptions{0.9f, 0.999f, 1e-8f, 0.1f});
    Tensor& w = model.h[0].mlp_c_fc_weight;  // a matrix: decayed
    Tensor& b = model.h[0].mlp_c_fc_bias;    // a bias: not decayed
    const float w0 = w[3], b0 = b[3];
    const float gw[2] = {0.5f, -0.25f}, gb[2] = {-1.0f, 2.0f};
    double pw = w0, pb = b0, mw = 0, vw = 0, mb = 0, vb = 0;
    for (int t = 1; t <= 2; ++t) {
        grads.h[0].mlp_c_fc_weight[3] = gw[t - 1];
        grads.h[0].mlp_c_fc_bias[3] = gb[t - 1];
        opt.step(model, grads, 0.01f);
        pw *= 1 - 0.01 * 0.1;
        mw = 0.9 * mw + 0.1 * gw[t - 1];
        vw = 0.999 * vw + 0.001 * gw[t - 1] * gw[t - 1];
        pw -= 0.01 / (1 - std::pow(0.9, t)) * mw / (std::sqrt(vw) / std::sqrt(1 - std::pow(0.999, t)) + 1e-8);
        mb = 0.9 * mb + 0.1 * gb[t - 1];
        vb = 0.999 * vb + 0.001 * gb[t - 1] * gb[t - 1];
        pb -= 0.01 / (1 - std::pow(0.9, t)) * mb / (std::sqrt(vb) / std::sqrt(1 - std::pow(0.999, t)) + 1e-8);
    }
    EXPECT_NEAR(w[3], pw, 1e-6);
    EXPECT_NEAR(b[3], pb, 1e-6);
    EXPECT_EQ(opt.steps, 2);
}

TEST(AdamW, ClipGradNormScalesToTheMaximum) {
    GPT grads = GPT(tiny()).zeros_like();
    grads.wte[0] = 3.0f;
    grads.wpe[1] = 4.0f;
    EXPECT_FLOAT_EQ(clip_grad_norm(grads, 1.0f), 5.0f);
    EXPECT_NEAR(grads.wte[0], 0.6f, 1e-6f);
    EXPECT_NEAR(grads.wpe[1], 0.8f, 1e-6f);
    EXPECT_NEAR(clip_grad_norm(grads, 10.0f), 1.0f, 1e-6f);
    EXPECT_NEAR(grads.wte[0], 0.6f, 1e-6f);  // below the maximum: untouched
}

TEST(TextDataset, NanoGPTSplitAndRandintWindows) {
    const std::string text = "abcdefghijklmnopqrstuvwxyz0123456789";
    const TextDataset data(text, Tokenizer(TokenizerKind::Char, text));  // 36 characters
    EXPECT_EQ(data.train().size(), 32u);  // int(36 * 0.9)
    EXPECT_EQ(data.val().size(), 4u);
    Generator gen(0), same(0);
    const Batch b = data.get_batch(Split::Train, 3, 5, gen);
    const std::vector<int64_t> starts = randint(0, 32 - 5, {3}, same);
    for (int64_t i = 0; i < 3; ++i)
        for (int64_t t = 0; t < 5; ++t) {
            EXPECT_EQ(b.x[static_cast<size_t>(i * 5 + t)], data.train()[static_cast<size_t>(starts[static_cast<size_t>(i)] + t)]);
            EXPECT_EQ(b.y[static_cast<size_t>(i * 5 + t)], data.train()[static_cast<size_t>(starts[static_cast<size_t>(i)] + t + 1)]);
        }
    EXPECT_THROW(data.get_batch(Split::Val, 1, 4, gen), Error);  // 4 characters: no window of 5
}

TEST(Trainer, LossFallsAndRunsAreReproducible) {
    Trainer a(tiny(), quick(), text());
    const float first = a.evaluate().val;
    float last = 0;
    for (int i = 0; i < 60; ++i) last = a.step().loss;
    const EvalResult after = a.evaluate();
    EXPECT_LT(after.val, first - 0.4f) << "val loss " << first << " -> " << after.val;
    Trainer b(tiny(), quick(), text());
    b.evaluate();
    float last_b = 0;
    for (int i = 0; i < 60; ++i) last_b = b.step().loss;
    EXPECT_FLOAT_EQ(last, last_b);
    EXPECT_EQ(a.iter(), 60);
}

TEST(Trainer, DropoutRunsAreReproducibleAndDiffer) {
    Trainer a(tiny(0.2f), quick(), text()), b(tiny(0.2f), quick(), text()), c(tiny(), quick(), text());
    float la = 0, lb = 0, lc = 0;
    for (int i = 0; i < 5; ++i) {
        la = a.step().loss;
        lb = b.step().loss;
        lc = c.step().loss;
    }
    EXPECT_FLOAT_EQ(la, lb);
    EXPECT_NE(la, lc);
}

TEST(Trainer, BadSettingsAreErrors) {
    TrainConfig t = quick();
    t.batch_size = 0;
    EXPECT_THROW(Trainer(tiny(), t, text()), Error);
    GPTConfig big = tiny();
    big.block_size = 4096;
    EXPECT_THROW(Trainer(big, quick(), text()), Error);  // text too short for the block size
    EXPECT_THROW(Trainer(tiny(), quick(), std::string("ab")), Error);
}

TEST(Checkpoint, RoundTripsModelVocabularyAndTrainingState) {
    Trainer trainer(tiny(), quick(), text());
    for (int i = 0; i < 3; ++i) trainer.step();
    const Tokenizer& vocab = trainer.data().tokenizer();
    const std::string bytes = save_checkpoint(trainer.model(), vocab, &trainer);
    const Checkpoint ck = load_checkpoint(bytes);
    EXPECT_EQ(ck.tokenizer.pieces(), vocab.pieces());
    const auto a = trainer.model().named_parameters(), b = ck.model.named_parameters();
    ASSERT_EQ(a.size(), b.size());
    for (size_t i = 0; i < a.size(); ++i) {
        EXPECT_EQ(a[i].first, b[i].first);
        EXPECT_TRUE(golden::near(*a[i].second, *b[i].second, 0.0f)) << a[i].first;
    }
    ASSERT_TRUE(ck.training.has_value());
    EXPECT_EQ(ck.training->iter, 3);
    EXPECT_EQ(ck.training->optimizer.steps, 3);
    EXPECT_TRUE(golden::near(ck.training->optimizer.exp_avg_sq[5], trainer.optimizer().exp_avg_sq[5], 0.0f));
    EXPECT_EQ(ck.training->config.batch_size, 4);
    // Same logits from the loaded model; and a resumed trainer carries on.
    EXPECT_TRUE(golden::near(ck.model.forward({1, 2, 3}, 1), trainer.model().forward({1, 2, 3}, 1), 0.0f));
    Checkpoint copy = load_checkpoint(bytes);
    Trainer resumed(std::move(copy.model), std::move(copy.training->optimizer), copy.training->iter, copy.tokenizer,
                    copy.training->config, text());
    EXPECT_EQ(resumed.step().iter, 3);
    // A model-only checkpoint has no training state.
    EXPECT_FALSE(load_checkpoint(save_checkpoint(trainer.model(), vocab)).training.has_value());
}

TEST(Checkpoint, WordTokenizerTrainsSavesAndLoadsBack) {
    TrainConfig t = quick();
    t.tokenizer = TokenizerKind::Word;
    Trainer trainer(tiny(), t, text());
    // " cats", " purr", ",", ... : far fewer tokens than characters.
    EXPECT_EQ(trainer.data().tokenizer().kind(), TokenizerKind::Word);
    EXPECT_LT(trainer.data().train().size() * 3, text().size());
    trainer.step();
    const Checkpoint ck = load_checkpoint(save_checkpoint(trainer.model(), trainer.data().tokenizer(), &trainer));
    EXPECT_EQ(ck.tokenizer.kind(), TokenizerKind::Word);
    EXPECT_EQ(ck.tokenizer.pieces(), trainer.data().tokenizer().pieces());
    EXPECT_EQ(ck.training->config.tokenizer, TokenizerKind::Word);
    EXPECT_EQ(ck.tokenizer.encode("The cats purr."), trainer.data().tokenizer().encode("The cats purr."));
    // A vocabulary of the wrong size for the model is refused when saving.
    EXPECT_THROW(save_checkpoint(trainer.model(), kVocab), Error);
}

TEST(Checkpoint, LayoutIsSafetensors) {
    const GPT model(tiny());
    const std::string bytes = save_checkpoint(model, kVocab);
    uint64_t n = 0;
    for (int i = 7; i >= 0; --i) n = (n << 8) | static_cast<unsigned char>(bytes[static_cast<size_t>(i)]);
    EXPECT_EQ((8 + n) % 8, 0u);  // data aligned to 8 bytes
    const auto header = nlohmann::json::parse(bytes.substr(8, n));
    const auto& wte = header.at("transformer.wte.weight");
    EXPECT_EQ(wte.at("dtype"), "F32");
    EXPECT_EQ(wte.at("data_offsets")[0], 0);
    EXPECT_TRUE(header.at("__metadata__").at("config").is_string());
    uint64_t covered = 0;
    for (const auto& [name, e] : header.items())
        if (name != "__metadata__") covered += e.at("data_offsets")[1].get<uint64_t>() - e.at("data_offsets")[0].get<uint64_t>();
    EXPECT_EQ(8 + n + covered, bytes.size());  // the tensors cover the data exactly
    EXPECT_FALSE(header.contains("lm_head.weight"));  // tied: stored once, as nanoGPT's wte
}

namespace {
std::string message_of(const std::string& bytes) {
    try {
        load_checkpoint(bytes);
    } catch (const Error& e) {
        return e.what();
    }
    return "";
}
// The file with its header edited, as another tool would write it: without
// this library's digest (which the edit would no longer match).
std::string with_header(const std::string& original, const std::function<void(nlohmann::json&)>& edit) {
    uint64_t n = 0;
    for (int i = 7; i >= 0; --i) n = (n << 8) | static_cast<unsigned char>(original[static_cast<size_t>(i)]);
    nlohmann::json h = nlohmann::json::parse(original.substr(8, n));
    h["__metadata__"].erase("digest");
    edit(h);
    const std::string text = h.dump();
    std::string out(8, '\0');
    for (int i = 0; i < 8; ++i) out[static_cast<size_t>(i)] = static_cast<char>((text.size() >> (8 * i)) & 0xFF);
    return out + text + original.substr(8 + n);
}
}  // namespace

TEST(Trainer, DivergedStepIsRefusedAndLeavesTheRunAsItWas) {
    // Regression: with learningRate 100 and no clipping the loss became NaN
    // after a few steps and step() returned it; the next checkpoint could not
    // be loaded.
    TrainConfig t = quick();
    t.lr.learning_rate = 100.0f;
    t.lr.decay_lr = false;
    t.grad_clip = 0.0f;
    Trainer trainer(tiny(), t, text());
    std::string before;
    std::string message;
    for (int i = 0; i < 200 && message.empty(); ++i) {
        before = save_checkpoint(trainer.model(), trainer.data().tokenizer(), &trainer);
        try {
            EXPECT_TRUE(std::isfinite(trainer.step().loss));
        } catch (const Error& e) {
            message = e.what();
        }
    }
    ASSERT_FALSE(message.empty()) << "learningRate 100 without clipping did not diverge in 200 steps";
    EXPECT_NE(message.find("Trainer.step: training diverged at step " + std::to_string(trainer.iter())), std::string::npos) << message;
    EXPECT_NE(message.find("as they were before this step"), std::string::npos) << message;
    EXPECT_NE(message.find("Try a lower learningRate (now 100) or gradient clipping"), std::string::npos) << message;
    // Model, optimizer and progress are those from before the refused step, byte for byte.
    EXPECT_EQ(save_checkpoint(trainer.model(), trainer.data().tokenizer(), &trainer), before);
    EXPECT_NO_THROW(load_checkpoint(before));
    // The same step on the same batch is refused again: nothing moved.
    EXPECT_THROW(trainer.step(), Error);
    EXPECT_EQ(save_checkpoint(trainer.model(), trainer.data().tokenizer(), &trainer), before);
}

TEST(Trainer, InfiniteHyperParametersAreRefused) {
    // Regression: eps or weightDecay = Infinity were accepted and gave NaN weights at step 2.
    for (const auto& [edit, name] : std::vector<std::pair<std::function<void(TrainConfig&)>, std::string>>{
             {[](TrainConfig& c) { c.adamw.eps = INFINITY; }, "eps"},
             {[](TrainConfig& c) { c.adamw.weight_decay = INFINITY; }, "weight_decay"},
             {[](TrainConfig& c) { c.lr.learning_rate = INFINITY; }, "learning_rate"},
             {[](TrainConfig& c) { c.grad_clip = INFINITY; }, "grad_clip"},
         }) {
        TrainConfig t = quick();
        edit(t);
        try {
            Trainer(tiny(), t, text());
            ADD_FAILURE() << name << " = Infinity was accepted";
        } catch (const Error& e) {
            EXPECT_NE(std::string(e.what()).find(name), std::string::npos) << e.what();
        }
    }
}

TEST(AdamW, AnUpdateThatWouldBeNonFiniteChangesNothing) {
    GPT model(tiny());
    GPT grads = model.zeros_like();
    grads.h[0].mlp_c_fc_weight[0] = 1.0f;
    AdamW opt(model, AdamWOptions{0.9f, 0.999f, 1e-8f, 0.0f});
    const GPT original = model;
    EXPECT_THROW(opt.step(model, grads, 3e38f), Error);  // |Δθ| ≈ lr: overflows float
    EXPECT_EQ(opt.steps, 0);
    for (const Tensor& m : opt.exp_avg) EXPECT_TRUE(std::all_of(m.data.begin(), m.data.end(), [](float x) { return x == 0.0f; }));
    const auto a = model.named_parameters();
    const auto b = original.named_parameters();
    for (size_t i = 0; i < a.size(); ++i) EXPECT_TRUE(golden::near(*a[i].second, *b[i].second, 0.0f)) << a[i].first;
    opt.step(model, grads, 1e-3f);  // a sane step still works
    EXPECT_EQ(opt.steps, 1);
}

TEST(Checkpoint, NonFiniteValuesAreNeverWritten) {
    GPT model(tiny());
    model.h[1].attn_c_proj_weight[7] = NAN;
    try {
        save_checkpoint(model, kVocab);
        ADD_FAILURE() << "a NaN weight was written";
    } catch (const Error& e) {
        EXPECT_EQ(std::string(e.what()),
                  "saveCheckpoint: tensor \"transformer.h.1.attn.c_proj.weight\" holds a non-finite value; a checkpoint "
                  "of it could not be loaded");
    }
}

TEST(Checkpoint, DigestRefusesEveryFlippedByteThatWouldChangeTheModel) {
    // Regression: 4,367 of 5,000 random byte flips loaded with silently
    // changed weights, and 36 of 2,000 header flips with a changed vocabulary.
    const std::string good = save_checkpoint(GPT(tiny()), kVocab);
    const Checkpoint original = load_checkpoint(good);
    EXPECT_TRUE(original.verified);
    Generator gen(11);
    int weight_flips = 0, weight_flips_refused_as_damaged = 0;
    for (int trial = 0; trial < 3000; ++trial) {
        std::string b = good;
        // Half the flips in the header (vocabulary, config, offsets), half in the weights.
        const size_t header_end = 8 + (static_cast<unsigned char>(good[0]) | static_cast<unsigned char>(good[1]) << 8);
        const size_t at = trial % 2 ? 8 + gen.random() % (header_end - 8) : header_end + gen.random() % (good.size() - header_end);
        const auto flip = static_cast<char>(1 + gen.random() % 255);
        b[at] = static_cast<char>(b[at] ^ flip);
        try {
            const Checkpoint ck = load_checkpoint(b);
            // Only a flip that changes nothing the file means may load (e.g. in the header's padding).
            EXPECT_EQ(ck.tokenizer.pieces(), original.tokenizer.pieces()) << "byte " << at;
            const auto x = ck.model.named_parameters(), y = original.model.named_parameters();
            for (size_t i = 0; i < x.size(); ++i) EXPECT_TRUE(golden::near(*x[i].second, *y[i].second, 0.0f)) << "byte " << at;
        } catch (const Error& e) {
            // A header flip may break the JSON or the length field before the digest is read.
            weight_flips_refused_as_damaged +=
                at >= header_end && std::string(e.what()) == "loadCheckpoint: the file is damaged: its digest does not match its contents";
        }
        weight_flips += at >= header_end;
    }
    EXPECT_EQ(weight_flips_refused_as_damaged, weight_flips);
}

TEST(Checkpoint, FilesWithoutADigestStillLoadUnverified) {
    const std::string good = save_checkpoint(GPT(tiny()), kVocab);
    const Checkpoint ck = load_checkpoint(with_header(good, [](nlohmann::json&) {}));
    EXPECT_FALSE(ck.verified);
    EXPECT_EQ(message_of(with_header(good, [](nlohmann::json& h) { h["__metadata__"]["digest"] = "sha1:abc"; })),
              "loadCheckpoint: __metadata__.digest \"sha1:abc\" is not an xxh3-128: digest");
}

TEST(Checkpoint, FilesOfVersion01ReadTheirOldFieldNames) {
    // 0.1 wrote the feed-forward width as "d_ff" and the schedule switch as
    // "cosine", and kept the optimizer's step count inside train_config.
    Trainer trainer(tiny(), quick(), text());
    trainer.step();
    const std::string bytes = save_checkpoint(trainer.model(), trainer.data().tokenizer(), &trainer);
    const std::string old = with_header(bytes, [](nlohmann::json& h) {
        auto c = nlohmann::json::parse(h["__metadata__"]["config"].get<std::string>());
        c["d_ff"] = c["n_inner"];
        c.erase("n_inner");
        h["__metadata__"]["config"] = c.dump();
        auto t = nlohmann::json::parse(h["__metadata__"]["train_config"].get<std::string>());
        t["cosine"] = false;
        t.erase("decay_lr");
        t["optimizer_steps"] = 1;
        h["__metadata__"].erase("optimizer_steps");
        h["__metadata__"]["train_config"] = t.dump();
    });
    const Checkpoint ck = load_checkpoint(old);
    EXPECT_EQ(ck.model.config().n_inner, trainer.model().config().n_inner);
    EXPECT_FALSE(ck.training->config.lr.decay_lr);
    EXPECT_EQ(ck.training->optimizer.steps, 1);
}

TEST(Config, OneSchemaReadsWritesAndNamesEveryField) {
    GPTConfig c = GPTConfig::nanogpt(50, 32, 3, 2, 16, false, true);
    c.dropout = 0.25f;
    for (Naming n : {Naming::Snake, Naming::Camel, Naming::Flag}) {
        // Written and read back, in every spelling, the config is the same.
        const std::string text = to_json(c, n);
        EXPECT_EQ(to_json(gpt_config_from_json(text, n, "test"), n), text);
    }
    EXPECT_NE(to_json(c, Naming::Snake).find("\"n_embd\":16"), std::string::npos);
    EXPECT_NE(to_json(c, Naming::Camel).find("\"nEmbd\":16"), std::string::npos);
    auto message = [](auto f) {
        try {
            f();
        } catch (const Error& e) {
            return std::string(e.what());
        }
        return std::string();
    };
    EXPECT_EQ(message([] { gpt_config_from_json(R"({"nEmbed": 8})", Naming::Camel, "GPT"); }),
              "GPT: unknown config field \"nEmbed\"; did you mean \"nEmbd\"?");
    EXPECT_EQ(message([] { gpt_config_from_json(R"({"n_head": 2.5})", Naming::Snake, "f"); }),
              "f: expected n_head to be an integer in [1, 4096], got 2.5");
    EXPECT_EQ(message([] { gpt_config_from_json(R"({"dropout": 1})", Naming::Camel, "GPT"); }),
              "GPT: expected dropout to be a number in [0, 1), got 1");
    EXPECT_EQ(message([] { gpt_config_from_json(R"({"norm": "middle"})", Naming::Camel, "GPT"); }),
              "GPT: expected norm to be one of post|pre, got \"middle\"");
    EXPECT_EQ(message([] { train_config_from_json(R"({"decayLr": "no"})", Naming::Camel, "Trainer"); }),
              "Trainer: expected decayLr to be true or false, got \"no\"");
    TrainConfig t;
    set_field(t, "--learning-rate", "3e-3", Naming::Flag, "attn-train");
    set_field(t, "--decay-lr", "false", Naming::Flag, "attn-train");
    EXPECT_FLOAT_EQ(t.lr.learning_rate, 3e-3f);
    EXPECT_FALSE(t.lr.decay_lr);
    EXPECT_EQ(message([&] { set_field(t, "--lr", "1", Naming::Flag, "attn-train"); }),
              "attn-train: unknown flag \"--lr\"");  // nanoGPT's name is --learning-rate
}

TEST(Checkpoint, CorruptFilesAreClearErrors) {
    const std::string good = save_checkpoint(GPT(tiny()), kVocab);
    ASSERT_NO_THROW(load_checkpoint(good));
    EXPECT_EQ(message_of("abc"), "loadCheckpoint: a file of 3 bytes is too short for a safetensors header");
    std::string huge = good;
    huge[7] = '\x7f';
    EXPECT_NE(message_of(huge).find("exceeds the file"), std::string::npos);
    EXPECT_EQ(message_of(good.substr(0, good.size() / 2)), "loadCheckpoint: the file is damaged: its digest does not match its contents");
    const std::string unsigned_file = with_header(good, [](nlohmann::json&) {});  // as another tool writes it
    EXPECT_NE(message_of(unsigned_file.substr(0, good.size() / 2)).find("outside the"), std::string::npos);  // truncated data
    std::string bad_json = good;
    bad_json[8] = '#';  // the header's opening brace
    EXPECT_EQ(message_of(bad_json), "loadCheckpoint: the header is not valid JSON");
    EXPECT_NE(message_of(with_header(good, [](nlohmann::json& h) { h["transformer.wpe.weight"]["dtype"] = "F16"; })).find("expected \"F32\""),
              std::string::npos);
    EXPECT_NE(message_of(with_header(good, [](nlohmann::json& h) { h["transformer.wpe.weight"]["shape"] = {4, 4}; })).find("bytes for"),
              std::string::npos);
    EXPECT_NE(message_of(with_header(good, [](nlohmann::json& h) {
                  h["transformer.wpe.weight"]["data_offsets"] = h["transformer.wte.weight"]["data_offsets"];
                  h["transformer.wpe.weight"]["shape"] = h["transformer.wte.weight"]["shape"];
              })).find("overlap"),
              std::string::npos);
    EXPECT_NE(message_of(with_header(good, [](nlohmann::json& h) { h.erase("transformer.ln_f.weight"); })).find("is missing"),
              std::string::npos);
    EXPECT_NE(message_of(with_header(good, [](nlohmann::json& h) {
                  auto c = nlohmann::json::parse(h["__metadata__"]["config"].get<std::string>());
                  c["n_embd"] = 15;
                  h["__metadata__"]["config"] = c.dump();
              })).find("divisible"),
              std::string::npos);
    EXPECT_NE(message_of(with_header(good, [](nlohmann::json& h) { h["__metadata__"]["vocabulary"] = "ba"; })).find("vocabulary"),
              std::string::npos);
    EXPECT_EQ(message_of(with_header(good, [](nlohmann::json& h) { h["__metadata__"]["tokenizer"] = "bpe"; })),
              "loadCheckpoint: __metadata__.tokenizer is \"bpe\", expected \"char\" or \"word\"");
    EXPECT_EQ(message_of(with_header(good, [](nlohmann::json& h) { h["__metadata__"]["tokenizer"] = "word"; })),
              "loadCheckpoint: __metadata__.vocabulary must hold 36 distinct words (a JSON array of strings) in sorted order");
    // Checkpoints written before word tokenizers carry no "tokenizer": characters.
    EXPECT_EQ(load_checkpoint(with_header(good, [](nlohmann::json& h) { h["__metadata__"].erase("tokenizer"); })).tokenizer.kind(),
              TokenizerKind::Char);
    EXPECT_NE(message_of(with_header(good, [](nlohmann::json& h) { h["__metadata__"].erase("config"); })).find("config"),
              std::string::npos);
    std::string nan = unsigned_file;
    const uint64_t n = static_cast<unsigned char>(nan[0]) | (static_cast<uint64_t>(static_cast<unsigned char>(nan[1])) << 8) |
                       (static_cast<uint64_t>(static_cast<unsigned char>(nan[2])) << 16);
    const float bad = std::nanf("");
    std::memcpy(&nan[8 + n], &bad, 4);
    EXPECT_NE(message_of(nan).find("non-finite"), std::string::npos);
}

TEST(Checkpoint, EveryTruncationAndRandomByteFlipsFailCleanly) {
    const std::string good = save_checkpoint(GPT(tiny()), kVocab);
    for (size_t len = 0; len < good.size(); len += 7) EXPECT_THROW(load_checkpoint(good.substr(0, len)), Error) << len;
    Generator gen(5);
    for (int trial = 0; trial < 300; ++trial) {
        std::string b = good;
        for (int k = 0; k < 3; ++k) b[gen.random() % std::min<size_t>(b.size(), 600)] = static_cast<char>(gen.random());
        try {
            load_checkpoint(b);  // a flip inside float data may still load
        } catch (const Error&) {
        }
    }
}
