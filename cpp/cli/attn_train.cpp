// attn-train: train the tiny language model on a UTF-8 text file, resume from
// a checkpoint, generate from one, write or probe the agreement corpus.
//
//   attn-train train --data FILE --out CKPT [--n-layer 4 --learning-rate 1e-3 ...]
//   attn-train train --data FILE --resume CKPT --out CKPT [--max-iters N]
//   attn-train train --data FILE --model DIR --out DIR [--context 256 ...]   (fine-tuning a model folder)
//   attn-train generate --checkpoint CKPT | --model DIR [--prompt TEXT] [--max-new-tokens N --top-p P ...]
//   attn-train help
//
// Flags are strict: an unknown flag or a bad value is an error that names it
// (flags.hpp: the commands, their flags and the help). Ctrl-C during training
// saves a checkpoint before exiting.
#include "attn/agreement_probe.hpp"
#include "attn/checkpoint.hpp"
#include "attn/pretrained.hpp"
#include "attn/generate.hpp"
#include "attn/generation_config.hpp"
#include "attn/head_scores.hpp"
#include "attn/memory.hpp"
#include "attn/synthetic_corpus.hpp"
#include "attn/threads.hpp"
#include "attn/tokenizer.hpp"
#include "attn/trainer.hpp"
#include "files.hpp"
#include "flags.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <sstream>
#include <string>

using namespace attn;
using attn::cli::check_directory;
using attn::cli::check_writable;
using attn::cli::Args;
using attn::cli::UsageError;
using attn::cli::default_generation;
using attn::cli::default_model;
using attn::cli::help_text;
using attn::cli::parse;
using attn::cli::read_file;
using attn::cli::same_file;
using attn::cli::steps_of;
using attn::cli::write_file;

namespace {
// The largest files read: a training text as TextDataset takes it, and a checkpoint of the largest model with
// AdamW's two moments (three float32 copies of kMaxElements parameters) after its header.
constexpr uint64_t kMaxTextBytes = static_cast<uint64_t>(kMaxElements);
constexpr uint64_t kMaxCheckpointBytes = 8 + static_cast<uint64_t>(kMaxHeaderBytes) + 3 * 4 * static_cast<uint64_t>(kMaxElements);

volatile std::sig_atomic_t interrupted = 0;
void on_stop_signal(int signal) { interrupted = signal; }  // 0: not interrupted
}  // namespace

#ifdef __EMSCRIPTEN__
// The WebAssembly build for Node (the package's `attn-train`, web/bin/attn-train.cjs): Node hears Ctrl-C and
// SIGTERM, not the program, so its launcher passes each on through this, to take the course the signal takes
// natively (the handler above while a run is going, the default's exit before).
extern "C" void attn_train_signal(int signal) { std::raise(signal); }

namespace {
// WebAssembly's libc starts with a umask of 0777, so a saved file got no permission bits at all; the launcher
// passes the process's own (cpp/cli/node_prelude.js), which saves then honour as natively.
void adopt_process_umask() {
    if (const char* mask = std::getenv("ATTN_TRAIN_UMASK")) umask(static_cast<mode_t>(std::strtol(mask, nullptr, 8)));
}
}  // namespace
#endif

namespace {

// A recipe's configs (config.hpp), named by --recipe; the command line's defaults without one.
void check_recipe(const Args& a) {
    if (a.has("--recipe") && a.str("--recipe") != "induction") {
        throw UsageError("--recipe: expected induction, got \"" + a.str("--recipe") + "\"");
    }
}

// The model of a fresh run: the defaults (or the recipe's), then the flags in order.
GPTConfig model_config(const Args& a) {
    check_recipe(a);
    GPTConfig c = a.has("--recipe") ? GPTConfig::induction() : default_model();
    bool inner = a.has("--recipe");  // a recipe states its own width
    try {
        for (const auto& [name, value] : a.model) {
            set_field(c, name, value, Naming::Flag, "attn-train");
            inner = inner || name == "--n-inner";
        }
        if (!inner) c.n_inner = 4 * c.n_embd;  // nanoGPT's MLP width follows n_embd
        c.validate("attn-train", Naming::Flag);
    } catch (const Error& e) {
        throw UsageError(e.what());
    }
    return c;
}

TrainConfig train_config(const Args& a, TrainConfig t) {
    try {
        for (const auto& [name, value] : a.training) set_field(t, name, value, Naming::Flag, "attn-train");
        t.validate("attn-train", Naming::Flag);
    } catch (const Error& e) {
        throw UsageError(e.what());
    }
    return t;
}

// After an evaluation of a repeats run: the losses on the two copies and the heads scoring highest, the
// induction head's phase change as it happens (head_scores.hpp; the evaluation's own loss averages over every
// token, most of them random).
void print_induction(const GPT& model) {
    if (model.config().n_layer < 2) return;
    const HeadScores s = head_scores(model, HeadScoreOptions{32, 0, 0, false});
    const auto best = [&](const Tensor& t) {
        const auto top = std::max_element(t.data.begin(), t.data.end()) - t.data.begin();
        char text[48];
        std::snprintf(text, sizeof text, "%.2f (layer %lld head %lld)", static_cast<double>(t.data[static_cast<size_t>(top)]),
                      static_cast<long long>(top / model.config().n_head), static_cast<long long>(top % model.config().n_head));
        return std::string(text);
    };
    std::printf("  repeats: loss %.3f on the first copy, %.3f on the second; prefix matching %s, previous token %s\n",
                static_cast<double>(s.first_repeat_loss), static_cast<double>(s.second_repeat_loss),
                best(s.prefix_matching).c_str(), best(s.previous_token).c_str());
}

// Where --snapshots writes the model of a step.
std::string snapshot_path(const std::string& dir, int64_t step) {
    char name[32];
    std::snprintf(name, sizeof name, "/step-%05lld.safetensors", static_cast<long long>(step));
    return dir + name;
}

// A fine-tuning run's output: the model folder it started from, with its weights replaced. The folder's other files
// (config.json, the tokenizer's, generation settings) are read before the first step and copied as they are.
class FolderOut {
public:
    FolderOut(const std::string& source, const std::string& out) : out_(out) {
        if (same_file(source, out)) throw UsageError("--out \"" + out + "\" is the --model folder; saving would overwrite the model");
        config_json_ = read_file(source + "/config.json", kMaxTextBytes, "--model");
        std::error_code error;
        std::filesystem::create_directory(out, error);  // an existing folder is kept; a bad path is named next
        check_directory(out, "--out");
        check_writable(out + "/config.json", "--out");
        for (const char* name : {"tokenizer.json", "vocab.json", "merges.txt", "tokenizer_config.json", "special_tokens_map.json",
                                 "generation_config.json"}) {
            const std::string path = source + "/" + name;
            if (!std::filesystem::is_regular_file(path, error)) continue;
            files_.emplace_back(name, read_file(path, kMaxTextBytes, "--model"));
            check_writable(out + "/" + name, "--out");
        }
        check_writable(out + "/model.safetensors", "--out");
    }
    void save(const GPT& model) const {
        const std::string weights = pretrained_weights_file(model, config_json_);
        write_file(out_ + "/config.json", config_json_);
        for (const auto& [name, bytes] : files_) write_file(out_ + "/" + name, bytes);
        write_file(out_ + "/model.safetensors", weights);
    }

private:
    std::string out_, config_json_;
    std::vector<std::pair<std::string, std::string>> files_;  // the other files copied: name, bytes
};

int train(const Args& a) {
    const std::string data_path = a.str("--data"), out = a.str("--out"), model_dir = a.str("--model");
    if (data_path.empty() || out.empty()) throw UsageError("train needs --data FILE and --out CKPT (with --model: --out DIR)");
    // Ctrl-C and a polite kill (SIGTERM) both save the run before exiting, from the moment there is a run to save
    // (caught from here, so that one arriving while the model is built is not the default's exit).
    std::signal(SIGINT, on_stop_signal);
    std::signal(SIGTERM, on_stop_signal);
    // Every flag is checked before any work is done.
    const int64_t max_iters = a.integer("--max-iters");
    const int64_t eval_interval = a.integer("--eval-interval");
    const int64_t log_interval = a.integer("--log-interval");
    const int64_t save_every = a.integer("--save-every");
    if (a.has("--threads")) {
        try {
            // A count beyond an int is as refused as 17: named by set_num_threads's own limit.
            set_num_threads(static_cast<int>(std::min<int64_t>(a.integer("--threads", 0, 1), kMaxThreads + 1)), "--threads");
        } catch (const Error& e) {
            throw UsageError(e.what());
        }
    }
    const std::set<int64_t> snapshots = steps_of(a.str("--snapshots"), "--snapshots");
    const std::string snapshot_dir = a.str("--snapshot-dir");
    if (snapshots.empty() != snapshot_dir.empty()) throw UsageError("--snapshots and --snapshot-dir go together");
    if (!model_dir.empty()) {
        if (a.has("--resume") || a.has("--recipe")) throw UsageError("--model starts a fine-tuning run; --resume and --recipe start other runs");
        if (!a.model.empty()) throw UsageError(a.model.front().first + " cannot change a loaded model");
        if (!snapshot_dir.empty()) {
            throw UsageError("--snapshots write checkpoints, which cannot hold a model folder's tokenizer; use --save-every");
        }
    }
    const GPTConfig fresh_model = a.has("--resume") ? GPTConfig{} : model_config(a);
    if (a.has("--resume") && a.has("--recipe")) throw UsageError("--recipe starts a run; a resumed run keeps its settings");
    const TrainConfig fresh_training =
        a.has("--resume") ? TrainConfig{} : train_config(a, a.has("--recipe") ? TrainConfig::induction() : TrainConfig{});
    if (a.has("--final-eval-iters")) a.integer("--final-eval-iters", 0, 1);
    // Every path too, before the first step: a bad --out or --snapshot-dir once failed only when the run saved,
    // and the trained model was lost.
    std::optional<FolderOut> folder_out;
    if (model_dir.empty()) {
        check_writable(out, "--out");
    } else {
        folder_out.emplace(model_dir, out);
    }
    if (same_file(out, data_path)) throw UsageError("--out \"" + out + "\" is the --data file; saving would overwrite the corpus");
    if (!snapshot_dir.empty()) {
        check_directory(snapshot_dir, "--snapshot-dir");
        for (int64_t step : snapshots) check_writable(snapshot_path(snapshot_dir, step), "--snapshot-dir");
    }
    const std::string text = read_file(data_path, kMaxTextBytes, "--data");
    std::unique_ptr<Trainer> trainer;
    if (a.has("--resume")) {
        Checkpoint ck = load_checkpoint(read_file(a.str("--resume"), kMaxCheckpointBytes, "--resume"));
        if (!ck.training) throw Error("\"" + a.str("--resume") + "\" holds no training state to resume from");
        if (!a.model.empty()) throw UsageError(a.model.front().first + " cannot change the model of a resumed run");
        TrainConfig t = train_config(a, ck.training->config);
        trainer = std::make_unique<Trainer>(std::move(ck.model), std::move(ck.training->optimizer), ck.training->iter,
                                            std::move(ck.tokenizer), t, text);
    } else if (!model_dir.empty()) {
        Pretrained p = load_pretrained(model_dir);
        std::vector<int32_t> ids = std::visit([&](const auto& tok) {
            const std::vector<int64_t> wide = tok.encode(text);
            return std::vector<int32_t>(wide.begin(), wide.end());
        }, p.tokenizer);
        trainer = std::make_unique<Trainer>(std::move(p.model), fresh_training, std::move(ids));
    } else {
        trainer = std::make_unique<Trainer>(fresh_model, fresh_training, text);
    }
    const int64_t final_eval_iters = a.integer("--final-eval-iters", trainer->config().eval_iters, 1);
    const GPT& model = trainer->model();
    const int64_t tokens_per_step = trainer->config().batch_size * model.config().block_size;
    std::printf("model: %lld parameters (non-embedding), vocabulary %lld, %lld layers, %lld heads, n_embd %lld, block %lld\n",
                static_cast<long long>(model.num_parameters()), static_cast<long long>(model.config().vocab_size),
                static_cast<long long>(model.config().n_layer), static_cast<long long>(model.config().n_head),
                static_cast<long long>(model.config().n_embd), static_cast<long long>(model.config().block_size));
    std::fflush(stdout);

    auto save = [&] {
        if (folder_out) return folder_out->save(trainer->model());
        write_file(out, save_checkpoint(trainer->model(), trainer->data().tokenizer(), trainer.get()));
    };
    const auto start = std::chrono::steady_clock::now();
    auto elapsed = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(); };
    double train_time = 0;
    int64_t trained_tokens = 0;
    const auto snapshot = [&] {
        write_file(snapshot_path(snapshot_dir, trainer->iter()), save_checkpoint(trainer->model(), trainer->data().tokenizer()));
    };
    const auto stop_requested = [] { return interrupted != 0; };
    const auto stop = [&] {
        save();
        std::printf("interrupted at step %lld: saved %s\n", static_cast<long long>(trainer->iter()), out.c_str());
        return 128 + interrupted;  // as a shell reports a process the signal stopped
    };
    while (trainer->iter() < max_iters) {
        if (snapshots.count(trainer->iter())) snapshot();
        if (interrupted) return stop();
        if (eval_interval > 0 && trainer->iter() % eval_interval == 0) {
            // A signal abandons an evaluation in progress (it changes nothing to save): SIGTERM once waited 216 s
            // for one of --eval-iters 1000000, and `docker stop` would have killed the run first.
            const std::optional<EvalResult> evaluated = trainer->evaluate(trainer->config().eval_iters, stop_requested);
            if (!evaluated) return stop();
            const EvalResult& e = *evaluated;
            std::printf("step %lld: train loss %.4f, val loss %.4f, elapsed %.1fs\n", static_cast<long long>(trainer->iter()),
                        e.train, e.val, elapsed());
            if (trainer->config().task == Task::Repeats) print_induction(trainer->model());
            std::fflush(stdout);
        }
        const auto t0 = std::chrono::steady_clock::now();
        const StepResult r = trainer->step();
        if (save_every > 0 && (r.iter + 1) % save_every == 0) save();
        train_time += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        trained_tokens += tokens_per_step;
        if (log_interval > 0 && r.iter % log_interval == 0) {
            std::printf("iter %lld: loss %.4f, lr %.2e, grad norm %.3f, %.0f tokens/s, elapsed %.1fs\n",
                        static_cast<long long>(r.iter), r.loss, r.lr, r.grad_norm, trained_tokens / train_time, elapsed());
            std::fflush(stdout);
        }
    }
    if (interrupted) return stop();
    const std::optional<EvalResult> evaluated = trainer->evaluate(final_eval_iters, stop_requested);
    if (!evaluated) return stop();
    const EvalResult& e = *evaluated;
    std::printf("step %lld: train loss %.4f, val loss %.4f (%lld eval batches), elapsed %.1fs\n",
                static_cast<long long>(trainer->iter()), e.train, e.val, static_cast<long long>(final_eval_iters), elapsed());
    if (trainer->config().task == Task::Repeats) print_induction(trainer->model());
    if (snapshots.count(trainer->iter())) snapshot();
    save();
    std::printf("saved %s\n", out.c_str());
    return 0;
}

int generate_cmd(const Args& a) {
    const std::string path = a.str("--checkpoint"), folder = a.str("--model");
    if (path.empty() == folder.empty()) throw UsageError("generate needs --checkpoint CKPT or --model DIR (one of them)");
    // A model folder's generation settings are the base the flags change (generation_config.hpp): its sampling and
    // stop tokens, as transformers' generate() would use them.
    GenerateOptions o = default_generation();
    std::error_code error;
    if (!folder.empty() && std::filesystem::is_regular_file(folder + "/config.json", error)) {  // else load_pretrained names what is missing
        const std::string settings = folder + "/generation_config.json";
        const std::optional<std::string> file = std::filesystem::exists(settings, error)
                                                    ? std::optional<std::string>(read_file(settings, kMaxTextBytes, "--model"))
                                                    : std::nullopt;
        o = generation_options_from_files(file, read_file(folder + "/config.json", kMaxTextBytes, "--model"), o, "--model");
    }
    // Every flag is checked before the model is read.
    try {
        for (const auto& [name, value] : a.generation) set_field(o, name, value, Naming::Flag, "attn-train");
        o.validate("attn-train", Naming::Flag);
    } catch (const Error& e) {
        throw UsageError(e.what());
    }
    const std::string prompt = a.str("--prompt", "\n");
    const auto run = [&](const GPT& model, const auto& tok) {
        const std::vector<int64_t> ids = tok.encode(prompt);  // an unknown piece fails before anything is printed
        std::cout << prompt;
        const std::vector<int64_t>& stop = o.eos_token_ids;
        generate(model, ids, 1, o, [&](const std::vector<int64_t>& step) {
            // The stop token ends the text and is not printed: it marks the end (<|im_end|>, <eos>), it is not text.
            if (std::find(stop.begin(), stop.end(), step[0]) == stop.end()) std::cout << tok.decode(step) << std::flush;
            return !interrupted;
        });
        std::cout << "\n";
    };
    if (!folder.empty()) {
        const Pretrained p = load_pretrained(folder);
        std::visit([&](const auto& tok) { run(p.model, tok); }, p.tokenizer);
        return 0;
    }
    const Checkpoint ck = load_checkpoint(read_file(path, kMaxCheckpointBytes, "--checkpoint"));
    run(ck.model, ck.tokenizer);
    return 0;
}

// The heads of --ablate ("1.3,0.2") as a head mask (n_layer, n_head) with zeros there.
Tensor head_mask_of(const std::string& spec, const GPTConfig& c) {
    Tensor mask({c.n_layer, c.n_head}, std::vector<float>(static_cast<size_t>(c.n_layer * c.n_head), 1.0f));
    std::stringstream items(spec);
    for (std::string item; std::getline(items, item, ',');) {
        int layer = -1, head = -1;
        char dot = 0, extra = 0;
        std::stringstream one(item);
        if (!(one >> layer >> dot >> head) || dot != '.' || (one >> extra) || layer < 0 || layer >= c.n_layer ||
            head < 0 || head >= c.n_head) {
            throw UsageError("--ablate: expected LAYER.HEAD with layer < " + std::to_string(c.n_layer) + " and head < " +
                             std::to_string(c.n_head) + " (0-based), or \"each\", got \"" + item + "\"");
        }
        mask.data[static_cast<size_t>(layer * c.n_head + head)] = 0.0f;
    }
    return mask;
}

int probe_cmd(const Args& a) {
    const std::string path = a.str("--checkpoint");
    if (path.empty()) throw UsageError("probe needs --checkpoint CKPT");
    const Checkpoint ck = load_checkpoint(read_file(path, kMaxCheckpointBytes, "--checkpoint"));
    const GPTConfig& c = ck.model.config();
    const std::vector<AgreementSentence> sentences =
        agreement_sentences(a.integer("--sentences"), static_cast<uint64_t>(a.integer("--seed")));
    const std::string ablate = a.str("--ablate");
    if (ablate == "each") {
        // Agreement with one head switched off at a time: which heads the model needs.
        const AgreementReport all = probe_agreement(ck.model, ck.tokenizer, sentences);
        std::printf("agreement: %.1f%% of %lld held-out sentences with every head\n", 100 * all.accuracy,
                    static_cast<long long>(all.sentences));
        for (int64_t l = 0; l < c.n_layer; ++l)
            for (int64_t h = 0; h < c.n_head; ++h) {
                const Tensor mask = head_mask_of(std::to_string(l) + "." + std::to_string(h), c);
                const AgreementReport r = probe_agreement(ck.model, ck.tokenizer, sentences, &mask);
                std::printf("  without layer %lld head %lld: %.1f%%\n", static_cast<long long>(l),
                            static_cast<long long>(h), 100 * r.accuracy);
            }
        return 0;
    }
    const Tensor mask = ablate.empty() ? Tensor() : head_mask_of(ablate, c);
    const AgreementReport r = probe_agreement(ck.model, ck.tokenizer, sentences, ablate.empty() ? nullptr : &mask);
    std::printf("agreement: %.1f%% of %lld held-out sentences choose the agreeing verb form%s\n", 100 * r.accuracy,
                static_cast<long long>(r.sentences), ablate.empty() ? "" : (" (heads " + ablate + " switched off)").c_str());
    for (size_t i = 0; i < r.subject_attention.size(); ++i)
        std::printf("  layer %lld head %lld: verb attends most to the subject in %.1f%%\n",
                    static_cast<long long>(i) / static_cast<long long>(c.n_head),
                    static_cast<long long>(i) % static_cast<long long>(c.n_head), 100 * r.subject_attention[i]);
    return 0;
}

int export_cmd(const Args& a) {
    const std::string in = a.str("--checkpoint"), out = a.str("--out");
    if (in.empty() || out.empty()) throw UsageError("export needs --checkpoint CKPT and --out FILE");
    check_writable(out, "--out");
    const Checkpoint ck = load_checkpoint(read_file(in, kMaxCheckpointBytes, "--checkpoint"));
    const std::string bytes = save_checkpoint(ck.model, ck.tokenizer);
    write_file(out, bytes);
    std::printf("wrote %s: the model without optimizer state, %zu bytes\n", out.c_str(), bytes.size());
    return 0;
}

int corpus_cmd(const Args& a) {
    const std::string out = a.str("--out");
    if (out.empty()) throw UsageError("corpus needs --out FILE");
    check_writable(out, "--out");
    write_file(out, agreement_corpus(a.integer("--sentences"), static_cast<uint64_t>(a.integer("--seed"))));
    return 0;
}
}  // namespace

// An error as printed: under the tool's name (the config schema's messages already carry it).
std::string said(const std::exception& e) {
    const std::string what = e.what();
    return what.rfind("attn-train:", 0) == 0 ? what : "attn-train: " + what;
}

int main(int argc, char** argv) {
#ifdef __EMSCRIPTEN__
    adopt_process_umask();
#endif
    keep_freed_memory();  // every command runs models; training 2-3x faster with glibc's malloc (attn/memory.hpp)
    try {
        const Args a = parse(argc, argv);
        const std::string command = a.command->name;
        if (command == "train") return train(a);
        if (command == "generate") return generate_cmd(a);
        if (command == "corpus") return corpus_cmd(a);
        if (command == "probe") return probe_cmd(a);
        if (command == "export") return export_cmd(a);
        std::cout << help_text();
        return 0;
    } catch (const UsageError& e) {
        std::cerr << said(e) << " (attn-train help lists every command and flag)\n";
        return 2;
    } catch (const std::exception& e) {
        std::cerr << said(e) << "\n";
        return 1;
    }
}
