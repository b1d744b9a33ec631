#include "attn/trainer.hpp"

#include "attn/cross_entropy.hpp"

#include "parameter_chunks.hpp"
#include "thread_pool.hpp"

#include <algorithm>
#include <cmath>
#include <string>

namespace attn {

namespace {
// The windows a run trains on (TrainConfig::context, at most the block size) against the text and the step's memory.
void check_windows(const GPTConfig& c, const TextDataset& data, const TrainConfig& t) {
    if (t.context > c.block_size) {
        throw Error("Trainer: expected a context of at most the model's block size " + std::to_string(c.block_size) + ", got " +
                    std::to_string(t.context));
    }
    const int64_t T = t.context > 0 ? t.context : c.block_size;
    data.check_block_size(T, "Trainer");
    GPT::check_pass_fits(c, t.batch_size, T, T, "Trainer");
}

// The model's config for the text's vocabulary, checked against the text and the step before the model is
// allocated (a word vocabulary of 1.3 M pieces once made a model before the step was found too large).
GPTConfig for_data(GPTConfig c, const TextDataset& data, const TrainConfig& t) {
    c.vocab_size = data.vocab_size();
    c.validate("Trainer");
    check_windows(c, data, t);
    return c;
}
}  // namespace

int64_t micro_batches(const GPTConfig& model, const TrainConfig& config) {
    if (model.dropout > 0) return 1;
    int64_t k = 1;
    while (k * 2 <= kMaxMicroBatches && config.batch_size % (k * 2) == 0 &&
           static_cast<double>(k * 2) * 4.0 * model.matrix_parameters() <= kMaxMicroBatchGradientBytes) {
        k *= 2;
    }
    return k;
}

Trainer::Trainer(GPTConfig model_config, const TrainConfig& config, const std::string& text)
    : config_((config.validate("Trainer"), config)),
      gen_(config.seed),
      data_(text, Tokenizer(config.tokenizer, text), config.task),
      model_(for_data(model_config, data_, config_), gen_),
      grads_(model_.zeros_like()),
      optimizer_(model_, config.adamw) {
    next_ = data_.get_batch(Split::Train, config_.batch_size, context(), gen_);
    prepare_micro_batches();
}

void Trainer::prepare_micro_batches() {
    const int64_t K = micro_batches(model_.config(), config_);
    if (K == 1) return;
    micro_acts_.resize(static_cast<size_t>(K));
    for (int64_t k = 1; k < K; ++k) micro_grads_.push_back(model_.zeros_like());
}

Trainer::Trainer(GPT model, AdamW optimizer, int64_t iter, Tokenizer tokenizer, const TrainConfig& config,
                 const std::string& text)
    : config_((config.validate("Trainer"), config)),
      gen_(config.seed + static_cast<uint64_t>(iter)),
      data_(text, std::move(tokenizer), config.task),
      model_(std::move(model)),
      grads_(model_.zeros_like()),
      optimizer_(std::move(optimizer)),
      iter_(iter) {
    if (data_.vocab_size() != model_.config().vocab_size) {
        throw Error("Trainer: the vocabulary has " + std::to_string(data_.vocab_size()) +
                    " pieces but the model expects " + std::to_string(model_.config().vocab_size));
    }
    optimizer_.options = config.adamw;
    config_.tokenizer = data_.tokenizer().kind();
    check_windows(model_.config(), data_, config_);
    next_ = data_.get_batch(Split::Train, config_.batch_size, context(), gen_);
    prepare_micro_batches();
}

namespace {
const TrainConfig& fine_tuning(const TrainConfig& config) {
    config.validate("Trainer");
    if (config.task != Task::Text) throw Error("Trainer: a loaded model is fine-tuned on a text (task text), got task repeats");
    return config;
}

// The model in float32, checked against the text's windows before its gradients are allocated.
GPT widened(GPT model, const TextDataset& data, const TrainConfig& config) {
    check_windows(model.config(), data, config);
    model.widen_weights();
    return model;
}
}  // namespace

Trainer::Trainer(GPT model, const TrainConfig& config, std::vector<int32_t> ids)
    : config_(fine_tuning(config)),
      gen_(config.seed),
      data_(std::move(ids), model.config().vocab_size),
      model_(widened(std::move(model), data_, config_)),
      grads_(model_.zeros_like()),
      optimizer_(model_, config.adamw) {
    next_ = data_.get_batch(Split::Train, config_.batch_size, context(), gen_);
    prepare_micro_batches();
}

float Trainer::forward_backward(const Batch& batch) {
    if (!micro_acts_.empty()) return forward_backward_micro(batch);
    const int64_t N = batch.B * batch.T, V = model_.config().vocab_size;
    // Dropout draws its masks from the run's generator, after the batch and
    // before the next one, as train.py does.
    Generator* dropout = model_.config().dropout > 0 ? &gen_ : nullptr;
    const Tensor logits = model_.forward_train(batch.x, batch.B, acts_, dropout);
    std::vector<float> dlogits(logits.data.size());
    const float loss = cross_entropy_forward_backward(logits.data.data(), batch.y.data(), N, V, dlogits.data());
    for (auto& [name, t] : grads_.named_parameters()) std::fill(t->data.begin(), t->data.end(), 0.0f);
    model_.backward(acts_, dlogits.data(), grads_);
    return loss;
}

float Trainer::forward_backward_micro(const Batch& batch) {
    const int64_t K = static_cast<int64_t>(micro_acts_.size());
    const int64_t b = batch.B / K, rows = b * batch.T, V = model_.config().vocab_size;
    const float share = 1.0f / static_cast<float>(K);  // exact: K is a power of two
    std::vector<float> losses(static_cast<size_t>(K));
    parallel_for(K, [&](int64_t k) {
        GPT& grads = k == 0 ? grads_ : micro_grads_[static_cast<size_t>(k - 1)];
        const std::vector<int64_t> x(batch.x.begin() + k * rows, batch.x.begin() + (k + 1) * rows);  // (b, T)
        GPTActivations& acts = micro_acts_[static_cast<size_t>(k)];
        const Tensor logits = model_.forward_train(x, b, acts, nullptr);  // (b, T, V)
        std::vector<float> dlogits(logits.data.size());
        losses[static_cast<size_t>(k)] =
            cross_entropy_forward_backward(logits.data.data(), batch.y.data() + k * rows, rows, V, dlogits.data());
        // (softmax - onehot) / rows of this part; its share of the whole batch's mean loss is 1 / K of that.
        for (float& d : dlogits) d *= share;
        for (auto& [name, t] : grads.named_parameters()) std::fill(t->data.begin(), t->data.end(), 0.0f);
        model_.backward(acts, dlogits.data(), grads);
    });
    // grads_ = ((g₀ + g₁) + g₂) + …: every element summed in the order of the parts, whichever thread adds it.
    const auto total = grads_.named_parameters();
    std::vector<std::vector<std::pair<std::string, Tensor*>>> parts;
    for (GPT& g : micro_grads_) parts.push_back(g.named_parameters());
    // Over chunks of every tensor, so that a small model's sum spreads over the threads too (chapter 8's took
    // ~0.4 ms of a 36 ms two-thread step on the calling thread alone). An addition here streams memory.
    const std::vector<ParameterChunk> chunks = parameter_chunks(total);
    parallel_for(static_cast<int64_t>(chunks.size()), [&](int64_t c) {
        const ParameterChunk& k = chunks[static_cast<size_t>(c)];
        float* out = total[k.tensor].second->data.data();
        for (const auto& part : parts) {
            const float* in = part[k.tensor].second->data.data();
            for (int64_t j = k.begin; j < k.end; ++j) out[j] += in[j];
        }
    }, grain_for_work(kMovedFloatWork * static_cast<double>(parts.size()) * static_cast<double>(kParameterChunk)));
    double sum = 0;
    for (float loss : losses) sum += loss;
    return static_cast<float>(sum / static_cast<double>(K));
}

StepResult Trainer::step() {
    StepResult r;
    r.iter = iter_;
    r.lr = config_.lr.at(iter_);
    // A diverged step is refused and undone: the run keeps its generator and
    // its prefetched batch, and the model and optimizer are only written by
    // AdamW::step, which checks every new value before it writes one.
    const Generator gen_before = gen_;
    // The order of train.py: forward (dropout draws) and backward, then the next batch.
    r.loss = forward_backward(next_);
    Batch upcoming = data_.get_batch(Split::Train, config_.batch_size, context(), gen_);
    const auto refuse = [&](const std::string& what) {
        gen_ = gen_before;
        diverged(what);
    };
    if (!std::isfinite(r.loss)) refuse("a loss of " + format_number(r.loss));
    r.grad_norm = clip_grad_norm(grads_, config_.grad_clip > 0 ? config_.grad_clip : INFINITY);
    if (!std::isfinite(r.grad_norm)) refuse("a gradient norm of " + format_number(r.grad_norm));
    try {
        optimizer_.step(model_, grads_, r.lr);
    } catch (const Error& e) {
        refuse(e.what());
    }
    next_ = std::move(upcoming);
    ++iter_;
    return r;
}

void Trainer::diverged(const std::string& what) const {
    throw Error("Trainer.step: training diverged at step " + std::to_string(iter_) + " (" + what +
                "); the model and optimizer are as they were before this step. Try a lower learningRate (now " +
                format_number(config_.lr.learning_rate) + ")" +
                (config_.grad_clip > 0 ? std::string() : std::string(" or gradient clipping (gradClip 1)")));
}

float Trainer::loss(const Batch& batch) const {
    const Tensor logits = model_.forward(batch.x, batch.B);
    return cross_entropy_forward_backward(logits.data.data(), batch.y.data(), batch.B * batch.T,
                                          model_.config().vocab_size);
}

std::optional<EvalResult> Trainer::evaluate(int64_t eval_iters, const std::function<bool()>& stop) {
    if (eval_iters <= 0) throw Error("Trainer.evaluate: expected eval_iters > 0, got " + std::to_string(eval_iters));
    EvalResult r;
    const int64_t group = num_threads();
    for (Split split : {Split::Train, Split::Val}) {
        // Batches are drawn in order, a group at a time, and evaluated one per thread; the sum runs in order, so
        // the result is the same on any thread count.
        double sum = 0;
        for (int64_t first = 0; first < eval_iters; first += group) {
            if (stop && stop()) return std::nullopt;
            const int64_t n = std::min(group, eval_iters - first);
            std::vector<Batch> batches;
            for (int64_t k = 0; k < n; ++k) batches.push_back(data_.get_batch(split, config_.batch_size, context(), gen_));
            std::vector<double> losses(static_cast<size_t>(n));
            parallel_for(n, [&](int64_t k) { losses[static_cast<size_t>(k)] = loss(batches[static_cast<size_t>(k)]); });
            for (double l : losses) sum += l;
        }
        (split == Split::Train ? r.train : r.val) = static_cast<float>(sum / static_cast<double>(eval_iters));
    }
    return r;
}

}  // namespace attn
