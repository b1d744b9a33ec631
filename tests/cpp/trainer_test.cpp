// Training: nanoGPT's schedule, AdamW and clipping, and the trainer's loop.
#include "attn/checkpoint.hpp"
#include "attn/lr_schedule.hpp"
#include "attn/trainer.hpp"
#include "fixtures.hpp"
#include "golden.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>

using namespace attn;
using namespace fixtures;

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

// --eval-iters 1048576 drew every batch before evaluating any (bad_alloc at 8 GB), and SIGTERM waited for them all.
TEST(Trainer, EvaluationDrewEveryBatchFirstAndCouldNotBeStopped) {
    Trainer t(tiny(), quick(), text());
    int asked = 0;
    const auto stop = [&] { return ++asked == 3; };
    EXPECT_FALSE(t.evaluate(int64_t{1} << 40, stop).has_value());  // 2^40 batches: two groups drawn, then stopped
    EXPECT_EQ(asked, 3);
    EXPECT_EQ(t.evaluate(5, {}).has_value(), true);
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

// A step's micro-batches come from the model and the run alone (never the thread count): the largest power of
// two up to 8 that divides the batch, 1 with dropout or when eight copies of the gradients would be too large.
// Their gradient is the whole batch's: PyTorchGolden.FiveStepsOfNanoGPTsTrainPy trains a batch of 4 in 4 of them.
TEST(Trainer, MicroBatchesDependOnTheModelAndTheRunAlone) {
    TrainConfig t = quick();
    const GPTConfig small = tiny();
    for (const auto& [batch, expected] : std::vector<std::pair<int64_t, int64_t>>{{32, 8}, {12, 4}, {6, 2}, {7, 1}, {1, 1}, {64, 8}}) {
        t.batch_size = batch;
        EXPECT_EQ(micro_batches(small, t), expected) << "batch " << batch;
    }
    t.batch_size = 32;
    EXPECT_EQ(micro_batches(tiny(0.1f), t), 1);
    // GPT-2 small's shape: 124 M parameters, one copy of the gradients is ~500 MB.
    const GPTConfig large = GPTConfig::nanogpt(50257, 1024, 12, 12, 768, true, true);
    EXPECT_EQ(micro_batches(large, t), 1);
    // 3.4 M parameters: four copies (54 MB) fit in kMaxMicroBatchGradientBytes, eight would not.
    const GPTConfig middle = GPTConfig::nanogpt(1000, 64, 4, 4, 256, true, true);
    ASSERT_GT(8 * 4 * middle.matrix_parameters(), kMaxMicroBatchGradientBytes);
    ASSERT_LE(4 * 4 * middle.matrix_parameters(), kMaxMicroBatchGradientBytes);
    EXPECT_EQ(micro_batches(middle, t), 4);
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

// A word vocabulary of 1.3 M pieces (a 20 MB text of random words) made a step's logits too large: the Error was
// thrown inside the step's parallel parts and ended the process ("terminate called"). It is refused at the start,
// before the model is allocated.
TEST(Trainer, AStepTooLargeForTheLibraryIsRefusedAtTheStartNotACrash) {
    TrainConfig big = quick();
    big.batch_size = 1 << 16;
    GPTConfig model = tiny();
    model.block_size = 64;
    model.n_head = 1;  // attention weights (B, 1 head, 64, 64) and the feed-forward (B, 64, 64): exactly 2^28
    const std::string text(2000, 'a');  // a vocabulary of one; with 65,536 × 64 tokens the logits still fit
    EXPECT_NO_THROW(Trainer(model, big, text));
    std::string varied;
    for (int i = 0; i < 2000; ++i) varied += static_cast<char>('!' + i % 90);  // 90 distinct characters
    EXPECT_EQ(error_of([&] { Trainer(model, big, varied); }),
              "Trainer: a pass of 65536 × 64 tokens needs logits of 377487360 elements (sequences × tokens × vocabulary = 65536 × 64 × "
              "90), more than the library's limit of 268435456; use fewer or shorter sequences or a smaller vocabulary");
}

// Fine-tuning a loaded model: a Llama-shaped one kept in bfloat16 (as a bf16 folder loads) is widened to float32,
// trains on ids its folder's tokenizer made, in windows of the run's context rather than its block size, and
// learns them; what cannot be is refused before anything is allocated.
TEST(Trainer, FineTuningALoadedModelWidensItAndLearnsItsText) {
    const Tokenizer characters(TokenizerKind::Char, text());
    GPTConfig c = tiny();
    c.vocab_size = characters.vocab_size();
    c.block_size = 64;
    c.norm_type = NormType::RMSNorm;
    c.positions = Positions::Rope;
    c.n_kv_head = 1;
    c.gated_mlp = true;
    c.activation = Activation::SiLU;
    c.attention_bias = c.bias = false;
    const GPT source(c);
    GPT narrow = GPT::zeros(c, [](const std::string&) { return Half::BF16; });
    auto from = source.named_parameters();
    auto to = narrow.named_parameters();
    for (size_t i = 0; i < from.size(); ++i) {
        Tensor& t = *to[i].second;
        if (!t.is_half()) {
            t.data = from[i].second->data;
            continue;
        }
        for (size_t k = 0; k < t.half.size(); ++k) {  // bfloat16 is float32's top half: truncated here
            uint32_t bits;
            std::memcpy(&bits, &from[i].second->data[k], 4);
            t.half[k] = static_cast<uint16_t>(bits >> 16);
        }
    }
    const std::vector<int64_t> encoded = characters.encode(text());
    const std::vector<int32_t> ids(encoded.begin(), encoded.end());
    TrainConfig t = quick();
    t.context = 16;
    Trainer run(GPT(narrow), t, ids);
    EXPECT_FALSE(run.model().has_half_weights());
    EXPECT_EQ(run.context(), 16);
    const float first = run.evaluate().val;
    for (int i = 0; i < 60; ++i) run.step();
    EXPECT_LT(run.evaluate().val, first - 0.4f);
    EXPECT_EQ(error_of([&] { run.data().tokenizer(); }).rfind("TextDataset: the text was encoded by a model folder's tokenizer", 0), 0u);

    TrainConfig too_long = t;
    too_long.context = 65;
    EXPECT_EQ(error_of([&] { Trainer(GPT(narrow), too_long, ids); }),
              "Trainer: expected a context of at most the model's block size 64, got 65");
    TrainConfig repeats = t;
    repeats.task = Task::Repeats;
    EXPECT_EQ(error_of([&] { Trainer(GPT(narrow), repeats, ids); }),
              "Trainer: a loaded model is fine-tuned on a text (task text), got task repeats");
    const int32_t V = static_cast<int32_t>(c.vocab_size);
    EXPECT_EQ(error_of([&] { Trainer(GPT(narrow), t, {1, 2, V}); }),
              "TextDataset: expected token ids in [0, " + std::to_string(V) + "), got " + std::to_string(V) + " at index 2");
}
