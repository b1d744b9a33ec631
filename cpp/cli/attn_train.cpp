// attn-train: train the tiny language model on a UTF-8 text file, resume from
// a checkpoint, or generate from one.
//
//   attn-train train --data FILE --out CKPT [model and training flags]
//   attn-train train --data FILE --resume CKPT --out CKPT [--max-iters N]
//   attn-train generate --checkpoint CKPT [--prompt TEXT] [--max-new-tokens N]
//   attn-train corpus --out FILE [--sentences N] [--seed S]
//
// Ctrl-C during training saves a checkpoint before exiting.
#include "attn/agreement_probe.hpp"
#include "attn/checkpoint.hpp"
#include "attn/generate.hpp"
#include "attn/synthetic_corpus.hpp"
#include "attn/tokenizer.hpp"
#include "attn/trainer.hpp"

#include <chrono>
#include <csignal>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <sstream>
#include <string>

using namespace attn;

namespace {
volatile std::sig_atomic_t interrupted = 0;
void on_sigint(int) { interrupted = 1; }

const char* kUsage = R"(usage:
  attn-train train --data FILE --out CKPT [flags]      train a model (nanoGPT's loop)
  attn-train train --data FILE --resume CKPT --out CKPT [--max-iters N]
  attn-train generate --checkpoint CKPT [--prompt TEXT] [--max-new-tokens 200] [--temperature 0.8] [--top-k 0] [--seed 1337]
  attn-train corpus --out FILE [--sentences 20000] [--seed 1337]   the synthetic agreement corpus
  attn-train probe --checkpoint CKPT [--sentences 500] [--seed 4242]  what a model learned on that corpus
  attn-train export --checkpoint CKPT --out FILE   the model alone (no optimizer state), for shipping

model flags (defaults: nanoGPT's train_shakespeare_char at laptop size):
  --n-layer 4 --n-head 4 --n-embd 128 --d-ff 4*n-embd --block-size 64 --dropout 0
  --norm pre|post --activation gelu|relu --bias (default off) --no-tie (default tied)
training flags:
  --batch-size 12 --max-iters 2000 --lr 1e-3 --min-lr 1e-4 --warmup-iters 100 --lr-decay-iters 2000
  --constant-lr --beta1 0.9 --beta2 0.99 --weight-decay 0.1 --grad-clip 1.0
  --eval-interval 250 --eval-iters 200 --final-eval-iters 200 --log-interval 10 --seed 1337
  --tokenizer char|word (default char; a resumed run keeps its checkpoint's)
)";

struct Args {
    std::string command;
    std::map<std::string, std::string> values;
    std::map<std::string, bool> flags;

    bool has(const std::string& k) const { return values.count(k) || flags.count(k); }
    std::string str(const std::string& k, const std::string& def = "") const {
        const auto it = values.find(k);
        return it == values.end() ? def : it->second;
    }
    int64_t integer(const std::string& k, int64_t def) const {
        if (!values.count(k)) return def;
        try {
            size_t used = 0;
            const long long v = std::stoll(values.at(k), &used);
            if (used != values.at(k).size()) throw std::invalid_argument("");
            return v;
        } catch (const std::exception&) {
            throw Error("--" + k + ": expected an integer, got \"" + values.at(k) + "\"");
        }
    }
    double number(const std::string& k, double def) const {
        if (!values.count(k)) return def;
        try {
            size_t used = 0;
            const double v = std::stod(values.at(k), &used);
            if (used != values.at(k).size()) throw std::invalid_argument("");
            return v;
        } catch (const std::exception&) {
            throw Error("--" + k + ": expected a number, got \"" + values.at(k) + "\"");
        }
    }
};

Args parse(int argc, char** argv) {
    static const std::map<std::string, bool> kBoolean = {{"bias", true}, {"no-tie", true}, {"constant-lr", true}};
    Args a;
    if (argc < 2) throw Error("missing command");
    a.command = argv[1];
    for (int i = 2; i < argc; ++i) {
        std::string k = argv[i];
        if (k.rfind("--", 0) != 0) throw Error("unexpected argument \"" + k + "\"");
        k = k.substr(2);
        if (kBoolean.count(k)) {
            a.flags[k] = true;
        } else {
            if (i + 1 >= argc) throw Error("--" + k + " needs a value");
            a.values[k] = argv[++i];
        }
    }
    return a;
}

std::string read_file(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw Error("cannot open \"" + path + "\"");
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

void write_file(const std::string& path, const std::string& bytes) {
    // Write next to the target, then rename: an interrupted save never leaves a
    // half-written checkpoint in place of a good one.
    const std::string tmp = path + ".tmp";
    {
        std::ofstream out(tmp, std::ios::binary);
        if (!out) throw Error("cannot write \"" + tmp + "\"");
        out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
        if (!out) throw Error("writing \"" + tmp + "\" failed");
    }
    if (std::rename(tmp.c_str(), path.c_str()) != 0) throw Error("cannot rename \"" + tmp + "\" to \"" + path + "\"");
}

GPTConfig model_config(const Args& a) {
    const int64_t n_embd = a.integer("n-embd", 128);
    GPTConfig c = GPTConfig::nanogpt(0, a.integer("block-size", 64), a.integer("n-layer", 4), a.integer("n-head", 4),
                                     n_embd, a.has("bias"), !a.has("no-tie"));
    c.d_ff = a.integer("d-ff", 4 * n_embd);
    c.dropout = static_cast<float>(a.number("dropout", 0.0));
    const std::string norm = a.str("norm", "pre"), act = a.str("activation", "gelu");
    if (norm != "pre" && norm != "post") throw Error("--norm: expected pre or post, got \"" + norm + "\"");
    if (act != "gelu" && act != "relu") throw Error("--activation: expected gelu or relu, got \"" + act + "\"");
    c.norm = norm == "pre" ? NormPlacement::Pre : NormPlacement::Post;
    c.activation = act == "gelu" ? Activation::GELU : Activation::ReLU;
    c.seed = static_cast<uint64_t>(a.integer("seed", 1337));
    return c;
}

TrainConfig train_config(const Args& a, TrainConfig t = {}) {
    t.batch_size = a.integer("batch-size", t.batch_size);
    t.lr.learning_rate = static_cast<float>(a.number("lr", t.lr.learning_rate));
    t.lr.min_lr = static_cast<float>(a.number("min-lr", t.lr.min_lr));
    t.lr.warmup_iters = a.integer("warmup-iters", t.lr.warmup_iters);
    t.lr.lr_decay_iters = a.integer("lr-decay-iters", t.lr.lr_decay_iters);
    if (a.has("constant-lr")) t.lr.cosine = false;
    t.adamw.beta1 = static_cast<float>(a.number("beta1", t.adamw.beta1));
    t.adamw.beta2 = static_cast<float>(a.number("beta2", t.adamw.beta2));
    t.adamw.weight_decay = static_cast<float>(a.number("weight-decay", t.adamw.weight_decay));
    t.grad_clip = static_cast<float>(a.number("grad-clip", t.grad_clip));
    t.eval_iters = a.integer("eval-iters", t.eval_iters);
    t.seed = static_cast<uint64_t>(a.integer("seed", static_cast<int64_t>(t.seed)));
    if (a.has("tokenizer")) t.tokenizer = parse_tokenizer_kind(a.str("tokenizer"), "attn-train");
    return t;
}

int train(const Args& a) {
    const std::string data_path = a.str("data"), out = a.str("out");
    if (data_path.empty() || out.empty()) throw Error("train needs --data FILE and --out CKPT");
    const std::string text = read_file(data_path);
    std::unique_ptr<Trainer> trainer;
    if (a.has("resume")) {
        Checkpoint ck = load_checkpoint(read_file(a.str("resume")));
        if (!ck.training) throw Error("\"" + a.str("resume") + "\" holds no training state to resume from");
        TrainConfig t = train_config(a, ck.training->config);
        trainer = std::make_unique<Trainer>(std::move(ck.model), std::move(ck.training->optimizer), ck.training->iter,
                                            std::move(ck.tokenizer), t, text);
    } else {
        trainer = std::make_unique<Trainer>(model_config(a), train_config(a), text);
    }
    const int64_t max_iters = a.integer("max-iters", 2000);
    const int64_t eval_interval = a.integer("eval-interval", 250);
    const int64_t log_interval = a.integer("log-interval", 10);
    const int64_t final_eval_iters = a.integer("final-eval-iters", trainer->config().eval_iters);
    const GPT& model = trainer->model();
    const int64_t tokens_per_step = trainer->config().batch_size * model.config().block_size;
    std::printf("model: %lld parameters (non-embedding), vocabulary %lld, %lld layers, %lld heads, n_embd %lld, block %lld\n",
                static_cast<long long>(model.num_parameters()), static_cast<long long>(model.config().vocab_size),
                static_cast<long long>(model.config().n_layers), static_cast<long long>(model.config().n_heads),
                static_cast<long long>(model.config().d_model), static_cast<long long>(model.config().block_size));
    std::fflush(stdout);

    auto save = [&] {
        write_file(out, save_checkpoint(trainer->model(), trainer->data().tokenizer(), trainer.get()));
    };
    std::signal(SIGINT, on_sigint);
    const auto start = std::chrono::steady_clock::now();
    auto elapsed = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(); };
    double train_time = 0;
    int64_t trained_tokens = 0;
    while (trainer->iter() < max_iters) {
        if (interrupted) {
            save();
            std::printf("interrupted at step %lld: saved %s\n", static_cast<long long>(trainer->iter()), out.c_str());
            return 130;
        }
        if (eval_interval > 0 && trainer->iter() % eval_interval == 0) {
            const EvalResult e = trainer->evaluate();
            std::printf("step %lld: train loss %.4f, val loss %.4f, elapsed %.1fs\n", static_cast<long long>(trainer->iter()),
                        e.train, e.val, elapsed());
            std::fflush(stdout);
        }
        const auto t0 = std::chrono::steady_clock::now();
        const StepResult r = trainer->step();
        train_time += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        trained_tokens += tokens_per_step;
        if (log_interval > 0 && r.iter % log_interval == 0) {
            std::printf("iter %lld: loss %.4f, lr %.2e, grad norm %.3f, %.0f tokens/s, elapsed %.1fs\n",
                        static_cast<long long>(r.iter), r.loss, r.lr, r.grad_norm, trained_tokens / train_time, elapsed());
            std::fflush(stdout);
        }
    }
    const EvalResult e = trainer->evaluate(final_eval_iters);
    std::printf("step %lld: train loss %.4f, val loss %.4f (%lld eval batches), elapsed %.1fs\n",
                static_cast<long long>(trainer->iter()), e.train, e.val, static_cast<long long>(final_eval_iters), elapsed());
    save();
    std::printf("saved %s\n", out.c_str());
    return 0;
}

int generate_cmd(const Args& a) {
    const std::string path = a.str("checkpoint");
    if (path.empty()) throw Error("generate needs --checkpoint CKPT");
    const Checkpoint ck = load_checkpoint(read_file(path));
    const Tokenizer& tok = ck.tokenizer;
    const std::string prompt = a.str("prompt", "\n");
    GenerateOptions o;
    o.max_new_tokens = a.integer("max-new-tokens", 200);
    o.sampling.temperature = static_cast<float>(a.number("temperature", 0.8));
    o.sampling.top_k = a.integer("top-k", 0);
    o.seed = static_cast<uint64_t>(a.integer("seed", 1337));
    const std::vector<int64_t> ids = tok.encode(prompt);  // an unknown piece fails before anything is printed
    std::cout << prompt;
    generate(ck.model, ids, 1, o, [&](const std::vector<int64_t>& step) {
        std::cout << tok.decode(step) << std::flush;
        return !interrupted;
    });
    std::cout << "\n";
    return 0;
}

int probe_cmd(const Args& a) {
    const std::string path = a.str("checkpoint");
    if (path.empty()) throw Error("probe needs --checkpoint CKPT");
    const Checkpoint ck = load_checkpoint(read_file(path));
    const AgreementReport r = probe_agreement(ck.model, ck.tokenizer,
                                              agreement_sentences(a.integer("sentences", 500), static_cast<uint64_t>(a.integer("seed", 4242))));
    std::printf("agreement: %.1f%% of %lld held-out sentences choose the agreeing verb form\n", 100 * r.accuracy,
                static_cast<long long>(r.sentences));
    for (size_t i = 0; i < r.subject_attention.size(); ++i)
        std::printf("  layer %lld head %lld: verb attends most to the subject in %.1f%%\n",
                    static_cast<long long>(i) / static_cast<long long>(ck.model.config().n_heads),
                    static_cast<long long>(i) % static_cast<long long>(ck.model.config().n_heads), 100 * r.subject_attention[i]);
    return 0;
}

int export_cmd(const Args& a) {
    const std::string in = a.str("checkpoint"), out = a.str("out");
    if (in.empty() || out.empty()) throw Error("export needs --checkpoint CKPT and --out FILE");
    const Checkpoint ck = load_checkpoint(read_file(in));
    const std::string bytes = save_checkpoint(ck.model, ck.tokenizer);
    write_file(out, bytes);
    std::printf("wrote %s: the model without optimizer state, %zu bytes\n", out.c_str(), bytes.size());
    return 0;
}

int corpus_cmd(const Args& a) {
    const std::string out = a.str("out");
    if (out.empty()) throw Error("corpus needs --out FILE");
    write_file(out, agreement_corpus(a.integer("sentences", 20000), static_cast<uint64_t>(a.integer("seed", 1337))));
    return 0;
}
}  // namespace

int main(int argc, char** argv) {
    try {
        const Args a = parse(argc, argv);
        if (a.command == "train") return train(a);
        if (a.command == "generate") return generate_cmd(a);
        if (a.command == "corpus") return corpus_cmd(a);
        if (a.command == "probe") return probe_cmd(a);
        if (a.command == "export") return export_cmd(a);
        if (a.command == "help" || a.command == "--help") {
            std::cout << kUsage;
            return 0;
        }
        throw Error("unknown command \"" + a.command + "\"");
    } catch (const std::exception& e) {
        std::cerr << "attn-train: " << e.what() << "\n" << kUsage;
        return 2;
    }
}
