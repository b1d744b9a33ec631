// Training the language model the way nanoGPT's train.py does, one step at a
// time so that a caller (the CLI, a Web Worker) can report progress between
// steps: learning rate from the schedule, forward on the prefetched batch,
// fetch the next batch, backward, clip, AdamW.
//
// Random numbers follow train.py's order on one generator: manual_seed(seed),
// the model's initialisation, the first training batch; then per step the
// dropout masks and the next batch; evaluation batches when evaluate() is called.
#pragma once

#include "attn/adamw.hpp"
#include "attn/dataset.hpp"
#include "attn/gpt.hpp"
#include "attn/lr_schedule.hpp"

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace attn {

struct StepResult {
    int64_t iter = 0;      // the step just taken (0-based)
    float lr = 0;
    float loss = 0;        // training loss of the step's batch
    float grad_norm = 0;   // before clipping
};

struct EvalResult {
    float train = 0;  // mean loss over eval_iters random training batches
    float val = 0;    // and validation batches
};

// How many micro-batches a step cuts its batch into, from the model and the run alone (never the thread
// count, so a run's numbers are the same on any number of threads): up to kMaxMicroBatches equal parts, a
// power of two (so that scaling their gradients by 1 / K is exact), each part's forward and backward on one
// thread and their gradients summed in order. A small model's products are too small to split well across
// threads (chapter 8's default step of 2 layers × 64 ran 1.2× faster on two threads split by kernel); whole
// sequences on each thread are. 1 (the whole batch, its kernels split instead) when dropout draws masks (train.py
// draws them over the whole batch, layer by layer) or when the K copies of the gradients would exceed
// kMaxMicroBatchGradientBytes.
inline constexpr int64_t kMaxMicroBatches = 8;
inline constexpr double kMaxMicroBatchGradientBytes = 64.0 * (1 << 20);
int64_t micro_batches(const GPTConfig& model, const TrainConfig& config);

class Trainer {
public:
    // A fresh run. model_config.vocab_size is set to the text's vocabulary
    // (its characters or words, config.tokenizer).
    Trainer(GPTConfig model_config, const TrainConfig& config, const std::string& text);
    // A resumed run: the model, optimizer state and iteration from a
    // checkpoint; the text is encoded with the checkpoint's tokenizer. The
    // generator restarts from seed + iter (a resumed run is statistically, not
    // bitwise, the continuation).
    Trainer(GPT model, AdamW optimizer, int64_t iter, Tokenizer tokenizer, const TrainConfig& config,
            const std::string& text);
    // Fine-tuning a loaded model (load_pretrained) on a text its folder's tokenizer encoded: ids each below the
    // model's vocab_size. 16-bit weights are widened to float32 first (GPT::widen_weights); AdamW starts fresh.
    // The text task only; windows of config.context tokens (a loaded model's block size is often thousands).
    Trainer(GPT model, const TrainConfig& config, std::vector<int32_t> ids);

    // One optimisation step. A step whose loss, gradient norm or new weights
    // are not finite throws Error and leaves the run as it was before it.
    StepResult step();
    // The mean loss of eval_iters batches of each split. The batches are drawn and freed a few at a time (one per
    // thread), so that memory does not grow with eval_iters: drawing them all first asked 8 GB for
    // --eval-iters 1048576. `stop`, when given, is asked between those groups; when it says true the evaluation is
    // abandoned and the result is empty (a training run stopped by a signal does not wait for it).
    std::optional<EvalResult> evaluate(int64_t eval_iters, const std::function<bool()>& stop);
    EvalResult evaluate(int64_t eval_iters) { return *evaluate(eval_iters, {}); }
    EvalResult evaluate() { return evaluate(config_.eval_iters); }

    const GPT& model() const { return model_; }
    const AdamW& optimizer() const { return optimizer_; }
    const TextDataset& data() const { return data_; }
    const TrainConfig& config() const { return config_; }
    int64_t iter() const { return iter_; }
    // The tokens of a training window: config().context, or the model's block size when that is 0.
    int64_t context() const { return config_.context > 0 ? config_.context : model_.config().block_size; }

private:
    float loss(const Batch& batch) const;
    [[noreturn]] void diverged(const std::string& what) const;
    // Forward and backward of one batch into grads_ (the kernels use the library's threads: threads.hpp).
    float forward_backward(const Batch& batch);
    // The same with the batch in micro-batches, one per task on the library's threads (micro_batches()).
    float forward_backward_micro(const Batch& batch);
    void prepare_micro_batches();
    TrainConfig config_;
    Generator gen_;
    TextDataset data_;
    GPT model_;
    GPT grads_;                           // the step's gradients, shaped like the model
    AdamW optimizer_;
    GPTActivations acts_;                 // what the forward keeps for the backward (the whole batch)
    // With micro_batches() > 1: each micro-batch's activations, and the gradients of all but the first (which go
    // into grads_), each shaped like the model.
    std::vector<GPTActivations> micro_acts_;
    std::vector<GPT> micro_grads_;
    Batch next_;
    int64_t iter_ = 0;
};

}  // namespace attn
