#include "attn/trainer.hpp"

#include "attn/cross_entropy.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#ifdef _OPENMP
#include <omp.h>
#endif

namespace attn {

namespace {
int parts_for(int64_t batch_size, float dropout) {
#ifdef _OPENMP
    // Dropout draws from one generator in a fixed order: keep it sequential.
    if (dropout > 0) return 1;
    return static_cast<int>(std::max<int64_t>(1, std::min<int64_t>(omp_get_max_threads(), batch_size)));
#else
    (void)batch_size;
    (void)dropout;
    return 1;
#endif
}

// The model's config for the text's vocabulary, checked against the text and the step before the model is
// allocated: a step computes in parallel parts, which cannot carry an Error out (a word vocabulary of 1.3 M pieces
// ended the process).
GPTConfig for_data(GPTConfig c, const TextDataset& data, int64_t batch_size) {
    c.vocab_size = data.tokenizer().vocab_size();
    c.validate("Trainer");
    data.check_block_size(c.block_size, "Trainer");
    GPT::check_pass_fits(c, batch_size, c.block_size, c.block_size, "Trainer");
    return c;
}
}  // namespace

Trainer::Trainer(GPTConfig model_config, const TrainConfig& config, const std::string& text)
    : config_((config.validate("Trainer"), config)),
      gen_(config.seed),
      data_(text, Tokenizer(config.tokenizer, text)),
      model_(for_data(model_config, data_, config.batch_size), gen_),
      grads_(static_cast<size_t>(parts_for(config.batch_size, model_config.dropout)), model_.zeros_like()),
      optimizer_(model_, config.adamw),
      acts_(grads_.size()) {
    next_ = data_.get_batch(Split::Train, config_.batch_size, model_.config().block_size, gen_);
}

Trainer::Trainer(GPT model, AdamW optimizer, int64_t iter, Tokenizer tokenizer, const TrainConfig& config,
                 const std::string& text)
    : config_((config.validate("Trainer"), config)),
      gen_(config.seed + static_cast<uint64_t>(iter)),
      data_(text, std::move(tokenizer)),
      model_(std::move(model)),
      grads_(static_cast<size_t>(parts_for(config.batch_size, model_.config().dropout)), model_.zeros_like()),
      optimizer_(std::move(optimizer)),
      acts_(grads_.size()),
      iter_(iter) {
    if (data_.tokenizer().vocab_size() != model_.config().vocab_size) {
        throw Error("Trainer: the vocabulary has " + std::to_string(data_.tokenizer().vocab_size()) +
                    " pieces but the model expects " + std::to_string(model_.config().vocab_size));
    }
    optimizer_.options = config.adamw;
    config_.tokenizer = data_.tokenizer().kind();
    data_.check_block_size(model_.config().block_size, "Trainer");
    GPT::check_pass_fits(model_.config(), config_.batch_size, model_.config().block_size, model_.config().block_size, "Trainer");
    next_ = data_.get_batch(Split::Train, config_.batch_size, model_.config().block_size, gen_);
}

float Trainer::forward_backward(const Batch& batch) {
    const auto parts = static_cast<int64_t>(grads_.size());
    const int64_t T = batch.T, V = model_.config().vocab_size, N = batch.B * T;
    std::vector<double> losses(static_cast<size_t>(parts));
    // Dropout (parts == 1) draws its masks from the run's generator, after the
    // batch and before the next one, as train.py does.
    Generator* dropout = model_.config().dropout > 0 ? &gen_ : nullptr;
#pragma omp parallel for num_threads(static_cast<int>(parts)) schedule(static, 1)
    for (int64_t part = 0; part < parts; ++part) {
        const int64_t b0 = batch.B * part / parts, b1 = batch.B * (part + 1) / parts;
        const std::vector<int64_t> x(batch.x.begin() + b0 * T, batch.x.begin() + b1 * T);
        GPT& g = grads_[static_cast<size_t>(part)];
        GPTActivations& acts = acts_[static_cast<size_t>(part)];
        const Tensor logits = model_.forward_train(x, b1 - b0, acts, dropout);
        std::vector<float> dlogits(logits.data.size());
        const int64_t n = (b1 - b0) * T;
        losses[static_cast<size_t>(part)] = static_cast<double>(cross_entropy_forward_backward(
                                                logits.data.data(), batch.y.data() + b0 * T, n, V, dlogits.data())) *
                                            static_cast<double>(n) / static_cast<double>(N);
        // The part's gradient of the mean over all N rows, not over its own n.
        const float rescale = static_cast<float>(n) / static_cast<float>(N);
        for (float& d : dlogits) d *= rescale;
        for (auto& [name, t] : g.named_parameters()) std::fill(t->data.begin(), t->data.end(), 0.0f);
        model_.backward(acts, dlogits.data(), g);
    }
    // The parts' gradients summed into the first, one tensor per core.
    std::vector<std::vector<std::pair<std::string, Tensor*>>> tensors;
    for (GPT& g : grads_) tensors.push_back(g.named_parameters());
    const auto count = static_cast<int64_t>(tensors[0].size());
#pragma omp parallel for schedule(dynamic, 1) if (parts > 1)
    for (int64_t i = 0; i < count; ++i) {
        Tensor& total = *tensors[0][static_cast<size_t>(i)].second;
        for (int64_t part = 1; part < parts; ++part) {
            const Tensor& other = *tensors[static_cast<size_t>(part)][static_cast<size_t>(i)].second;
            Eigen::Map<Eigen::ArrayXf>(total.data.data(), total.numel()) +=
                Eigen::Map<const Eigen::ArrayXf>(other.data.data(), other.numel());
        }
    }
    double loss = 0;
    for (double l : losses) loss += l;
    return static_cast<float>(loss);
}

StepResult Trainer::step() {
    StepResult r;
    r.iter = iter_;
    r.lr = config_.lr.at(iter_);
    // A diverged step is refused and undone: the run keeps its generator and
    // its prefetched batch, and the model and optimizer are only written by
    // AdamW::step, which checks every new value before it writes one.
    const Generator gen_before = gen_;
    Batch upcoming;
    if (grads_.size() == 1) {
        // Sequential order of train.py: forward (dropout draws), next batch, backward.
        r.loss = forward_backward(next_);
        upcoming = data_.get_batch(Split::Train, config_.batch_size, model_.config().block_size, gen_);
    } else {
        // No dropout: the forward draws nothing, so fetching first is the same stream.
        upcoming = data_.get_batch(Split::Train, config_.batch_size, model_.config().block_size, gen_);
        r.loss = forward_backward(next_);
    }
    const auto refuse = [&](const std::string& what) {
        gen_ = gen_before;
        diverged(what);
    };
    if (!std::isfinite(r.loss)) refuse("a loss of " + format_number(r.loss));
    r.grad_norm = clip_grad_norm(grads_[0], config_.grad_clip > 0 ? config_.grad_clip : INFINITY);
    if (!std::isfinite(r.grad_norm)) refuse("a gradient norm of " + format_number(r.grad_norm));
    try {
        optimizer_.step(model_, grads_[0], r.lr);
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

EvalResult Trainer::evaluate(int64_t eval_iters) {
    if (eval_iters <= 0) throw Error("Trainer.evaluate: expected eval_iters > 0, got " + std::to_string(eval_iters));
    EvalResult r;
    for (Split split : {Split::Train, Split::Val}) {
        // Batches are drawn in order, then evaluated on every core.
        std::vector<Batch> batches;
        for (int64_t k = 0; k < eval_iters; ++k)
            batches.push_back(data_.get_batch(split, config_.batch_size, model_.config().block_size, gen_));
        std::vector<double> losses(batches.size());
#pragma omp parallel for schedule(dynamic, 1)
        for (int64_t k = 0; k < eval_iters; ++k) losses[static_cast<size_t>(k)] = loss(batches[static_cast<size_t>(k)]);
        double sum = 0;
        for (double l : losses) sum += l;
        (split == Split::Train ? r.train : r.val) = static_cast<float>(sum / static_cast<double>(eval_iters));
    }
    return r;
}

}  // namespace attn
