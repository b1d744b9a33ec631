#include "flags.hpp"

#include <algorithm>
#include <cctype>
#include <sstream>

namespace attn::cli {

namespace {
// The model's config fields that are flags: its vocabulary comes from the text,
// its initial weights from the run's --seed.
bool is_model_flag(const std::string& name) { return name != "--vocab-size" && name != "--seed"; }
}  // namespace

const std::vector<Command>& commands() {
    static const std::vector<Command> list = {
        {"train", "train a model on a text file (nanoGPT's loop); Ctrl-C saves a checkpoint",
         {{"--data", "FILE", "the UTF-8 text to train on"},
          {"--out", "CKPT", "where to write the checkpoint (with --model: the folder to write, made if missing)"},
          {"--model", "DIR", "fine-tune a Hugging Face model folder (GPT-2, Llama, Mistral, Qwen2, Qwen3, Gemma 3) on --data, "
                             "which its tokenizer encodes; saved as a folder of the same files in float32 (AdamW starts afresh)"},
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
        {"generate", "generate text from a checkpoint or a Hugging Face model folder",
         {{"--checkpoint", "CKPT", "the model"},
          {"--model", "DIR", "or a model folder: GPT-2, Llama, Mistral, Qwen2, Qwen3 or Gemma 3 (config.json, safetensors, tokenizer)"},
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

// nanoGPT's train_shakespeare_char at laptop size.
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

int64_t Args::integer(const std::string& k, int64_t def, int64_t min) const {
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

Args parse(int argc, char** argv) {
    if (argc < 2) throw UsageError("missing command");
    Args a;
    std::vector<std::string> names;
    // `--help` and `-h`, what a user of any command-line tool tries first, are the help command too.
    const std::string asked = argv[1] == std::string("--help") || argv[1] == std::string("-h") ? "help" : argv[1];
    for (const Command& c : commands()) {
        names.push_back(c.name);
        if (asked == c.name) a.command = &c;
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
    list("generation flags of generate (seed null: PyTorch's default generator; with --model, the folder's "
         "generation_config.json, or config.json's eos_token_id, changes the defaults first):",
         fields(default_generation(), Naming::Flag), false);
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

}  // namespace attn::cli
