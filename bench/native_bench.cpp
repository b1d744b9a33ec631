// The native anchor of `npm run bench` (bench/run.mjs): the cases the JS
// benchmark times, run by the C++ library natively. It serves timings, one
// line per request, so that the JS bench can time it in the same interleaved
// rounds as the WebAssembly runtimes: on this project's noisy 2-vCPU machines a
// run minutes apart can be 1.5-2x slower or faster, which made the ratio
// "WebAssembly ÷ native" a measure of the machine's phase, not of the code.
//
//   build/native/attn-bench TEXT_FILE
//   stdin:  CASE THREADS        e.g. "gpt/train-step 2"
//   stdout: MS                  milliseconds per call, the mean over enough calls to take ~20 ms
//           error: MESSAGE      for a request it cannot serve (an unknown case, a thread count out of range)
//
// Cases: attention/full/T, attention/causal/T (d = 64), mha/T (d_model 128, 4 heads), linear/N, gpt/forward
// (nanoGPT's 4 layers x 4 heads x 128 on a batch of 12 x 64), gpt/generate-token (63 greedy tokens per call), gpt/train-step.
// Each is built on its first request, with the seeds of the JS bench's inputs.
#include "attn/attn.hpp"

#include <chrono>
#include <cstdio>
#include <fstream>
#include <functional>
#include <iostream>
#include <iterator>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

using namespace attn;

namespace {

using clock_type = std::chrono::steady_clock;

double elapsed_ms(clock_type::time_point t0) { return std::chrono::duration<double, std::milli>(clock_type::now() - t0).count(); }

/** Calls per timing so that one takes ~20 ms (as bench/timing.mjs's calibrate), after one call to warm up. */
int calibrate(const std::function<void()>& f) {
    f();
    for (int reps = 1;; reps *= 2) {
        const auto t0 = clock_type::now();
        for (int r = 0; r < reps; ++r) f();
        if (elapsed_ms(t0) > 20 || reps > 1 << 16) return reps;
    }
}

/** The call a case times, built with its inputs (and the objects they need kept alive) on first use. */
class Cases {
public:
    explicit Cases(std::string text) : text_(std::move(text)) {}

    /** The case's call, or an empty function for a name it does not know. */
    std::function<void()> make(const std::string& name) {
        int64_t n = 0;
        if (parse(name, "attention/full/", n)) return attention_case(n, false);
        if (parse(name, "attention/causal/", n)) return attention_case(n, true);
        if (parse(name, "mha/", n)) {
            manual_seed(0);
            auto mha = std::make_shared<MultiHeadAttention>(128, 4);
            auto x = std::make_shared<Tensor>(randn({1, n, 128}));
            return [mha, x] { mha->forward(*x, {}, false); };
        }
        if (parse(name, "linear/", n)) {
            manual_seed(0);
            auto linear = std::make_shared<Linear>(n, n, false);
            auto x = std::make_shared<Tensor>(randn({n, n}));
            return [linear, x] { linear->forward(*x); };
        }
        if (name == "gpt/forward") {
            auto gpt = std::make_shared<GPT>(gpt_config());
            std::vector<int64_t> ids(12 * 64);
            for (size_t i = 0; i < ids.size(); ++i) ids[i] = static_cast<int64_t>((i * 7) % 65);
            return [gpt, ids] { gpt->forward(ids, 12); };
        }
        if (name == "gpt/generate-token") {
            auto gpt = std::make_shared<GPT>(gpt_config());
            GenerateOptions greedy;
            greedy.max_new_tokens = 64 - 1;
            greedy.sampling.temperature = 0;
            return [gpt, greedy] { generate(*gpt, {0}, 1, greedy); };
        }
        if (name == "gpt/train-step") {
            auto trainer = std::make_shared<Trainer>(gpt_config(), TrainConfig{}, text_);
            return [trainer] { trainer->step(); };
        }
        return {};
    }

private:
    static bool parse(const std::string& name, const std::string& prefix, int64_t& n) {
        if (name.rfind(prefix, 0) != 0) return false;
        std::istringstream rest(name.substr(prefix.size()));
        return static_cast<bool>(rest >> n) && rest.eof() && n > 0 && n <= 1 << 14;
    }

    static std::function<void()> attention_case(int64_t T, bool causal) {
        manual_seed(0);
        auto q = std::make_shared<Tensor>(randn({T, 64}));
        auto k = std::make_shared<Tensor>(randn({T, 64}));
        auto v = std::make_shared<Tensor>(randn({T, 64}));
        AttentionOptions options;
        options.causal = causal;
        return [q, k, v, options] { attention(*q, *k, *v, options); };
    }

    static GPTConfig gpt_config() {
        GPTConfig config = GPTConfig::nanogpt(65, 64, 4, 4, 128, false, true);
        config.seed = 0;
        return config;
    }

    std::string text_;
};

}  // namespace

int main(int argc, char** argv) {
    if (argc != 2) {
        std::fprintf(stderr, "usage: attn-bench TEXT_FILE, then lines \"CASE THREADS\" on stdin (bench/native_bench.cpp)\n");
        return 2;
    }
    keep_freed_memory();  // as attn-train does: the library's steady state, not malloc's first-use cost (attn/memory.hpp)
    std::ifstream file(argv[1], std::ios::binary);
    Cases cases(std::string((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>()));
    struct Timed {
        std::function<void()> call;
        std::map<int, int> reps;  // threads -> calls per timing
    };
    std::map<std::string, Timed> made;
    std::string line;
    while (std::getline(std::cin, line)) {
        try {
            std::istringstream request(line);
            std::string name;
            int threads = 0;
            if (!(request >> name >> threads)) throw Error("expected \"CASE THREADS\", got \"" + line + "\"");
            set_num_threads(threads, "attn-bench");
            if (!made.count(name)) {
                auto call = cases.make(name);
                if (!call) throw Error("no case named " + name);
                made[name].call = std::move(call);
            }
            Timed& timed = made[name];
            int& reps = timed.reps[threads];
            if (reps == 0) reps = calibrate(timed.call);
            const auto t0 = clock_type::now();
            for (int r = 0; r < reps; ++r) timed.call();
            std::printf("%.6f\n", elapsed_ms(t0) / reps);
        } catch (const std::exception& e) {
            std::printf("error: %s\n", e.what());
        }
        std::fflush(stdout);
    }
}
