// attn-train: train the tiny language model on a UTF-8 text file, resume from
// a checkpoint, generate from one, write or probe the agreement corpus.
//
//   attn-train train --data FILE --out CKPT [--n-layer 4 --learning-rate 1e-3 ...]
//   attn-train train --data FILE --resume CKPT --out CKPT [--max-iters N]
//   attn-train generate --checkpoint CKPT [--prompt TEXT] [--max-new-tokens N]
//   attn-train help
//
// Flags are strict: an unknown flag or a bad value is an error that names it.
// Ctrl-C during training saves a checkpoint before exiting.
#include "attn/agreement_probe.hpp"
#include "attn/checkpoint.hpp"
#include "attn/generate.hpp"
#include "attn/head_scores.hpp"
#include "attn/memory.hpp"
#include "attn/synthetic_corpus.hpp"
#include "attn/threads.hpp"
#include "attn/tokenizer.hpp"
#include "attn/trainer.hpp"
#include "files.hpp"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <iostream>
#include <map>
#include <memory>
#include <set>
#include <sstream>
#include <string>

using namespace attn;
using attn::cli::check_directory;
using attn::cli::check_writable;
using attn::cli::read_file;
using attn::cli::same_file;
using attn::cli::write_file;

namespace {
// The largest files read: a training text as TextDataset takes it, and a checkpoint of the largest model with
// AdamW's two moments (three float32 copies of kMaxElements parameters) after its header.
constexpr uint64_t kMaxTextBytes = static_cast<uint64_t>(kMaxElements);
constexpr uint64_t kMaxCheckpointBytes = 8 + static_cast<uint64_t>(kMaxHeaderBytes) + 3 * 4 * static_cast<uint64_t>(kMaxElements);

volatile std::sig_atomic_t interrupted = 0;
void on_stop_signal(int signal) { interrupted = signal; }  // 0: not interrupted

// A mistake in the command line itself (as opposed to, say, a missing file).
struct UsageError : Error {
    using Error::Error;
};

// ---- commands and their flags -------------------------------------------------------
//
// Each command takes its own flags; `train` also takes every field of the
// model and training configs (config.hpp) and `generate` every generation
// option (generate.hpp) as --kebab-case flags, a switch as --bias / --no-bias:
// those flags, their help and their limits come from the library's tables.
// Anything else is an error that names the flag and the nearest known one,
// never a silently ignored setting.

struct Flag {
    const char* name;   // "--max-iters"
    const char* value;  // "N", "FILE", ...
    const char* help;
    const char* fallback = nullptr;  // the value when the flag is not given, as typed (help shows it)
};

// Which of the library's tables give a command flags too.
enum class Tables { None, Configs, Generation };

struct Command {
    const char* name;
    const char* summary;
    std::vector<Flag> flags;
    Tables tables = Tables::None;
};

const std::vector<Command>& commands() {
    static const std::vector<Command> list = {
        {"train", "train a model on a text file (nanoGPT's loop); Ctrl-C saves a checkpoint",
         {{"--data", "FILE", "the UTF-8 text to train on"},
          {"--out", "CKPT", "where to write the checkpoint"},
          {"--resume", "CKPT", "continue the run saved in CKPT (its model and settings; training flags override)"},
          {"--recipe", "NAME", "start from a recipe's model and training settings (flags override): induction, the "
                               "attention-only model that forms induction heads on the repeats task"},
          {"--max-iters", "N", "train until step N", "2000"},
          {"--eval-interval", "N", "evaluate every N steps, 0 = never", "250"},
          {"--log-interval", "N", "print a progress line every N steps, 0 = never", "10"},
          {"--save-every", "N", "also write the checkpoint every N steps, 0 = only at the end (Ctrl-C and SIGTERM save too)", "0"},
          {"--final-eval-iters", "N", "batches per split in the final evaluation (default: --eval-iters)"},
          {"--threads", "N", "threads the kernels use, 1 to 16 (default: every core, at most 8); the numbers are the same on any count"},
          {"--snapshots", "STEPS", "also write the model alone before the given steps, as 0,100,250 (with --snapshot-dir)"},
          {"--snapshot-dir", "DIR", "where --snapshots go, as step-NNNNN.safetensors"}},
         Tables::Configs},
        {"generate", "generate text from a checkpoint",
         {{"--checkpoint", "CKPT", "the model"},
          {"--prompt", "TEXT", "what to continue (default a newline)"}},
         Tables::Generation},
        {"corpus", "write the synthetic agreement corpus",
         {{"--out", "FILE", "where to write it"},
          {"--sentences", "N", "how many", "20000"},
          {"--seed", "S", "which", "1337"}}},
        {"probe", "measure what a model learned on the agreement corpus",
         {{"--checkpoint", "CKPT", "the model"},
          {"--sentences", "N", "held-out sentences", "500"},
          {"--seed", "S", "which sentences (held out from the corpus's 1337)", "4242"},
          {"--ablate", "HEADS", "switch heads off, as LAYER.HEAD[,LAYER.HEAD...] (0-based), or \"each\" in turn"}}},
        {"export", "write the model of a checkpoint alone (no optimizer state), for shipping",
         {{"--checkpoint", "CKPT", "the checkpoint"}, {"--out", "FILE", "the model file"}}},
        {"help", "list the commands and every flag", {}},
    };
    return list;
}

// The defaults of `train`: nanoGPT's train_shakespeare_char at laptop size.
GPTConfig default_model() { return GPTConfig::nanogpt(1, 64, 4, 4, 128, false, true); }

// The defaults of `generate`, as nanoGPT's sample.py sets them for a reader at
// a terminal: a longer run, a little cooler than temperature 1, and seeded so
// that a command gives the same text twice. The rest are the library's.
GenerateOptions default_generation() {
    GenerateOptions o;
    o.max_new_tokens = 200;
    o.sampling.temperature = 0.8f;
    o.seed = 1337;
    return o;
}

// The model's config fields that are flags: its vocabulary comes from the text,
// its initial weights from the run's --seed.
bool is_model_flag(const std::string& name) { return name != "--vocab-size" && name != "--seed"; }

struct Args {
    const Command* command = nullptr;
    std::map<std::string, std::string> values;                  // the command's own flags
    std::vector<std::pair<std::string, std::string>> model;     // config flags, in order
    std::vector<std::pair<std::string, std::string>> training;
    std::vector<std::pair<std::string, std::string>> generation;

    bool has(const std::string& k) const { return values.count(k) > 0; }
    std::string str(const std::string& k, const std::string& def = "") const {
        const auto it = values.find(k);
        return it == values.end() ? def : it->second;
    }
    // The flag's value, or its fallback in the command's table (or `def` where the table has none).
    int64_t integer(const std::string& k, int64_t def = 0, int64_t min = 0) const {
        std::string v;
        if (values.count(k)) {
            v = values.at(k);
        } else {
            const auto f = std::find_if(command->flags.begin(), command->flags.end(), [&](const Flag& x) { return k == x.name; });
            if (f == command->flags.end() || !f->fallback) return def;
            v = f->fallback;
        }
        size_t used = 0;
        long long x = 0;
        try {
            x = std::stoll(v, &used);
        } catch (const std::exception&) {
            used = 0;
        }
        if (used == 0 || used != v.size() || x < min) {
            throw UsageError(k + ": expected an integer >= " + std::to_string(min) + ", got \"" + v + "\"");
        }
        return x;
    }
};

Args parse(int argc, char** argv) {
    if (argc < 2) throw UsageError("missing command");
    Args a;
    std::vector<std::string> names;
    for (const Command& c : commands()) {
        names.push_back(c.name);
        if (argv[1] == std::string(c.name)) a.command = &c;
    }
    if (!a.command) {
        const std::string near = nearest_name(argv[1], names);
        throw UsageError("unknown command \"" + std::string(argv[1]) + "\"" + (near.empty() ? "" : "; did you mean \"" + near + "\"?"));
    }
    // Every flag this command knows, and whether it is a config switch.
    // 'o' own; 'm' model, 't' training, 'g' generation field (upper case: a switch)
    std::map<std::string, char> known;
    for (const Flag& f : a.command->flags) known[f.name] = 'o';
    const auto table = [&](const std::vector<FieldInfo>& info, char kind) {
        for (const FieldInfo& f : info)
            if (kind != 'm' || is_model_flag(f.name)) known[f.name] = f.kind == "true|false" ? static_cast<char>(std::toupper(kind)) : kind;
    };
    if (a.command->tables == Tables::Configs) {
        table(fields(GPTConfig{}, Naming::Flag), 'm');
        table(fields(TrainConfig{}, Naming::Flag), 't');
    }
    if (a.command->tables == Tables::Generation) table(fields(GenerateOptions{}, Naming::Flag), 'g');
    const auto is_switch = [&](const std::string& n) { return known.count(n) && std::isupper(static_cast<unsigned char>(known[n])); };
    std::set<std::string> seen;  // a flag given twice is a mistake, not "the last one wins"
    for (int i = 2; i < argc; ++i) {
        std::string name = argv[i];
        if (name.rfind("--", 0) != 0) throw UsageError("unexpected argument \"" + name + "\" (flags start with --)");
        std::string value;
        // A switch: --bias, or --no-bias.
        const std::string negated = name.rfind("--no-", 0) == 0 ? "--" + name.substr(5) : "";
        if (!negated.empty() && is_switch(negated)) {
            name = negated;
            value = "false";
        } else if (is_switch(name)) {
            value = "true";
        } else if (known.count(name) && known[name]) {
            if (i + 1 >= argc) throw UsageError(name + " needs a value");
            value = argv[++i];
        } else {
            std::vector<std::string> all;
            for (const auto& [k, kind] : known)
                if (kind) all.push_back(k);
            const std::string near = nearest_name(name, all);
            throw UsageError("unknown flag " + name + " for " + a.command->name + (near.empty() ? "" : "; did you mean " + near + "?"));
        }
        if (!seen.insert(name).second) throw UsageError(name + " is given twice");
        const char kind = static_cast<char>(std::tolower(static_cast<unsigned char>(known[name])));
        if (kind == 'o') a.values[name] = value;
        else if (kind == 'm') a.model.emplace_back(name, value);
        else if (kind == 't') a.training.emplace_back(name, value);
        else a.generation.emplace_back(name, value);
    }
    return a;
}

std::string help_text() {
    std::ostringstream out;
    out << "usage: attn-train COMMAND [flags]\n";
    for (const Command& c : commands()) {
        out << "\n  " << c.name << ": " << c.summary << "\n";
        for (const Flag& f : c.flags) {
            out << "    " << f.name << " " << f.value << "  " << f.help << (f.fallback ? std::string(" (default ") + f.fallback + ")" : "")
                << "\n";
        }
    }
    auto list = [&](const char* title, const std::vector<FieldInfo>& info, bool model) {
        out << "\n" << title << "\n";
        for (const FieldInfo& f : info) {
            if (model && !is_model_flag(f.name)) continue;
            out << "    " << f.name << " " << (f.kind == "true|false" ? "(or --no-" + f.name.substr(2) + ")" : f.kind)
                << "  " << f.help << " (default " << f.value << ")\n";
        }
    };
    list("model flags of train (nanoGPT's shakespeare_char at laptop size; --n-inner follows 4 · --n-embd):",
         fields(default_model(), Naming::Flag), true);
    list("training flags of train:", fields(TrainConfig{}, Naming::Flag), false);
    list("generation flags of generate (seed null: PyTorch's default generator):", fields(default_generation(), Naming::Flag),
         false);
    return out.str();
}

// "0,100,250": the steps a comma-separated list names (empty: none).
std::set<int64_t> steps_of(const std::string& list, const char* flag) {
    std::set<int64_t> steps;
    std::stringstream in(list);
    for (std::string item; std::getline(in, item, ',');) {
        size_t used = 0;
        long long x = -1;
        try {
            x = std::stoll(item, &used);
        } catch (const std::exception&) {
            used = 0;
        }
        if (used != item.size() || item.empty() || x < 0) {
            throw UsageError(std::string(flag) + ": expected steps as 0,100,250, got \"" + list + "\"");
        }
        steps.insert(x);
    }
    return steps;
}

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

int train(const Args& a) {
    const std::string data_path = a.str("--data"), out = a.str("--out");
    if (data_path.empty() || out.empty()) throw UsageError("train needs --data FILE and --out CKPT");
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
    const GPTConfig fresh_model = a.has("--resume") ? GPTConfig{} : model_config(a);
    if (a.has("--resume") && a.has("--recipe")) throw UsageError("--recipe starts a run; a resumed run keeps its settings");
    const TrainConfig fresh_training =
        a.has("--resume") ? TrainConfig{} : train_config(a, a.has("--recipe") ? TrainConfig::induction() : TrainConfig{});
    if (a.has("--final-eval-iters")) a.integer("--final-eval-iters", 0, 1);
    // Every path too, before the first step: a bad --out or --snapshot-dir once failed only when the run saved,
    // and the trained model was lost.
    check_writable(out, "--out");
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
    const std::string path = a.str("--checkpoint");
    if (path.empty()) throw UsageError("generate needs --checkpoint CKPT");
    // Every flag is checked before any work is done.
    GenerateOptions o = default_generation();
    try {
        for (const auto& [name, value] : a.generation) set_field(o, name, value, Naming::Flag, "attn-train");
        o.validate("attn-train", Naming::Flag);
    } catch (const Error& e) {
        throw UsageError(e.what());
    }
    const Checkpoint ck = load_checkpoint(read_file(path, kMaxCheckpointBytes, "--checkpoint"));
    const Tokenizer& tok = ck.tokenizer;
    const std::string prompt = a.str("--prompt", "\n");
    const std::vector<int64_t> ids = tok.encode(prompt);  // an unknown piece fails before anything is printed
    std::cout << prompt;
    generate(ck.model, ids, 1, o, [&](const std::vector<int64_t>& step) {
        std::cout << tok.decode(step) << std::flush;
        return !interrupted;
    });
    std::cout << "\n";
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
