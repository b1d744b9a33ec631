// The native anchor of `npm run bench` (bench/run.mjs): the cases the JS
// benchmark times, run by the C++ library natively, on one thread unless
// --threads says more. Prints one JSON object, case name -> median milliseconds.
//
//   build/native/attn-bench [--quick] [--threads N] TEXT_FILE
#include "attn/attn.hpp"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstdio>
#include <fstream>
#include <functional>
#include <iterator>
#include <string>
#include <vector>

using namespace attn;

namespace {
// Median of `rounds` timings of f, each the mean over enough calls to take ~20 ms.
double median_ms(const std::function<void()>& f, int rounds) {
    using clock = std::chrono::steady_clock;
    f();
    int reps = 1;
    for (;;) {
        const auto t0 = clock::now();
        for (int r = 0; r < reps; ++r) f();
        if (std::chrono::duration<double, std::milli>(clock::now() - t0).count() > 20 || reps > 1 << 16) break;
        reps *= 2;
    }
    std::vector<double> times;
    for (int i = 0; i < rounds; ++i) {
        const auto t0 = clock::now();
        for (int r = 0; r < reps; ++r) f();
        times.push_back(std::chrono::duration<double, std::milli>(clock::now() - t0).count() / reps);
    }
    std::sort(times.begin(), times.end());
    return times[times.size() / 2];
}
}  // namespace

int main(int argc, char** argv) {
    bool quick = false;
    int threads = 1;
    std::string text_path;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        if (arg == "--quick") {
            quick = true;
        } else if (arg == "--threads" && i + 1 < argc) {
            threads = std::atoi(argv[++i]);
        } else {
            text_path = arg;
        }
    }
    if (text_path.empty()) {
        std::fprintf(stderr, "usage: attn-bench [--quick] [--threads N] TEXT_FILE\n");
        return 2;
    }
    set_num_threads(threads, "attn-bench");
    std::ifstream file(text_path, std::ios::binary);
    const std::string text((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
    const int rounds = quick ? 3 : 7;
    std::string out = "{";
    auto record = [&](const std::string& name, double ms) {
        char entry[128];
        std::snprintf(entry, sizeof entry, "%s\"%s\": %.4f", out.size() > 1 ? ", " : "", name.c_str(), ms);
        out += entry;
    };

    const std::vector<int64_t> lengths = quick ? std::vector<int64_t>{256, 1024} : std::vector<int64_t>{64, 256, 1024, 4096};
    for (int64_t T : lengths) {
        manual_seed(0);
        const Tensor q = randn({T, 64}), k = randn({T, 64}), v = randn({T, 64});
        for (bool causal : {false, true}) {
            AttentionOptions o;
            o.causal = causal;
            record("attention/" + std::string(causal ? "causal/" : "full/") + std::to_string(T),
                   median_ms([&] { attention(q, k, v, o); }, rounds));
        }
    }
    for (int64_t T : {int64_t{256}, int64_t{1024}}) {
        manual_seed(0);
        const MultiHeadAttention mha(128, 4);
        const Tensor x = randn({1, T, 128});
        record("mha/" + std::to_string(T), median_ms([&] { mha.forward(x, {}, false); }, rounds));
    }
    for (int64_t N : {64, 128, 256, 512, 1024}) {
        manual_seed(0);
        const Linear linear(N, N, false);
        const Tensor x = randn({N, N});
        record("linear/" + std::to_string(N), median_ms([&] { linear.forward(x); }, rounds));
    }
    GPTConfig config = GPTConfig::nanogpt(65, 64, 4, 4, 128, false, true);
    config.seed = 0;
    const GPT gpt(config);
    std::vector<int64_t> ids(12 * 64);
    for (size_t i = 0; i < ids.size(); ++i) ids[i] = static_cast<int64_t>((i * 7) % 65);
    record("gpt/forward", median_ms([&] { gpt.forward(ids, 12); }, rounds));
    GenerateOptions greedy;
    greedy.max_new_tokens = 64 - 1;
    greedy.sampling.temperature = 0;
    record("gpt/generate-token", median_ms([&] { generate(gpt, {0}, 1, greedy); }, rounds) / 63);
    GPTConfig train_model = config;
    TrainConfig training;
    Trainer trainer(train_model, training, text);
    record("gpt/train-step", median_ms([&] { trainer.step(); }, rounds));
    std::printf("%s}\n", out.c_str());
}
