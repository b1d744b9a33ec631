// The thread pool and the kernels on it: results bit-identical for 1, 2 and 3
// threads (threads.hpp says why they must be), errors carried out of a task,
// and the thread count's bounds.
#include "attn/activations.hpp"
#include "attn/agreement_probe.hpp"
#include "attn/cross_entropy.hpp"
#include "attn/layer_norm.hpp"
#include "attn/multi_head_attention.hpp"
#include "attn/scaled_dot_product_attention.hpp"
#include "attn/softmax.hpp"
#include "attn/threads.hpp"
#include "attn/torch_rng.hpp"
#include "attn/trainer.hpp"
#include "fixtures.hpp"

#include "../../cpp/src/gemm.hpp"
#include "../../cpp/src/thread_pool.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <cstring>
#include <functional>
#include <stdexcept>
#include <vector>

using namespace attn;
using namespace fixtures;

namespace {
// Restores the thread count a test changed.
struct ThreadCount {
    int saved = num_threads();
    ~ThreadCount() { set_num_threads(saved); }
};

std::vector<float> random_values(int64_t n, uint64_t seed) {
    Generator g(seed);
    return randn({n}, g).data;
}

bool same_bits(const std::vector<float>& a, const std::vector<float>& b) {
    return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

// run() computed with 1, 2 and 3 threads: every result bit for bit the one-thread result.
void expect_same_on_any_thread_count(const std::function<std::vector<float>()>& run) {
    ThreadCount restore;
    set_num_threads(1);
    const std::vector<float> one = run();
    for (int threads : {2, 3}) {
        set_num_threads(threads);
        const std::vector<float> many = run();
        size_t first = 0;
        while (first < one.size() && first < many.size() && std::memcmp(&one[first], &many[first], sizeof(float)) == 0) ++first;
        EXPECT_TRUE(same_bits(many, one)) << "with " << threads << " threads: first difference at " << first << " of "
                                          << one.size();
    }
}

// nanoGPT's model at a small size (vocabulary 36, 64 positions, 2 layers × 4 heads × 128), weights from seed.
GPT small_gpt(uint64_t seed) {
    Generator g(seed);
    return GPT(GPTConfig::nanogpt(36, 64, 2, 4, 128, true, true), g);
}

// A batch (8, 64) for it: token i·step mod 36 at index i.
std::vector<int64_t> batch_of_8(int64_t step) {
    std::vector<int64_t> ids(8 * 64);
    for (size_t i = 0; i < ids.size(); ++i) ids[i] = static_cast<int64_t>(i) * step % 36;
    return ids;
}
}  // namespace

TEST(ThreadPool, RunsEveryIndexOnceOnAnyThreadCount) {
    ThreadCount restore;
    for (int threads : {1, 2, 3, kMaxThreads}) {
        set_num_threads(threads);
        std::vector<std::atomic<int>> hits(1000);
        parallel_for(1000, [&](int64_t i) { hits[static_cast<size_t>(i)]++; }, 7);
        for (const auto& h : hits) ASSERT_EQ(h.load(), 1) << threads << " threads";
    }
}

TEST(ThreadPool, CarriesTheFirstErrorOutAfterEveryTaskEnds) {
    ThreadCount restore;
    set_num_threads(3);
    std::atomic<int> finished{0};
    EXPECT_THROW(parallel_for(64, [&](int64_t i) {
        if (i == 5) throw Error("task 5 failed");
        finished++;
    }), Error);
    EXPECT_LE(finished.load(), 63);
    // The pool is usable afterwards.
    std::atomic<int> count{0};
    parallel_for(100, [&](int64_t) { count++; });
    EXPECT_EQ(count.load(), 100);
}

TEST(ThreadPool, NestedLoopsRunOnTheirOwnThread) {
    ThreadCount restore;
    set_num_threads(2);
    std::atomic<int> inner{0};
    parallel_for(4, [&](int64_t) {
        EXPECT_TRUE(in_parallel_region());
        parallel_for(10, [&](int64_t) { inner++; });
    });
    EXPECT_EQ(inner.load(), 40);
    EXPECT_FALSE(in_parallel_region());
}

TEST(ThreadPool, RefusesThreadCountsOutsideItsBounds) {
    ThreadCount restore;
    EXPECT_EQ(error_of([] { set_num_threads(0, "createAttention"); }),
              "createAttention: expected a thread count from 1 to 16, got 0");
    EXPECT_EQ(error_of([] { set_num_threads(kMaxThreads + 1); }),
              "set_num_threads: expected a thread count from 1 to 16, got 17");
    set_num_threads(kMaxThreads);
    EXPECT_EQ(num_threads(), kMaxThreads);
}

// Shapes that split by rows, by columns, not at all, with transposed operands, accumulating, rows
// over more columns than one packed block holds (1050 > NC = 1024, the last panel partly empty), and
// one or two rows against a large matrix (a decoded token: column strips, N not a multiple of 4).
TEST(ThreadedKernels, GemmIsBitIdenticalOnAnyThreadCount) {
    struct Case {
        int64_t M, N, K;
        bool ta, tb, acc;
    };
    for (const Case& c : {Case{517, 129, 301, false, false, false}, Case{37, 1031, 70, false, true, true},
                          Case{700, 700, 64, true, false, false}, Case{3, 2000, 128, false, true, false},
                          Case{300, 260, 1024, true, true, true}, Case{16, 16, 16, false, false, false},
                          Case{1100, 1050, 40, false, true, true}, Case{1, 5003, 1300, false, false, true},
                          Case{2, 4001, 900, true, true, false}}) {
        const std::vector<float> a = random_values(c.M * c.K, 1), b = random_values(c.K * c.N, 2),
                                 c0 = random_values(c.M * c.N, 3);
        const GemmOperand A{a.data(), c.ta ? c.M : c.K, c.ta}, B{b.data(), c.tb ? c.K : c.N, c.tb};
        for (auto* product : {&gemm_simd, &gemm_eigen}) {
            expect_same_on_any_thread_count([&] {
                std::vector<float> out = c0;
                product(c.M, c.N, c.K, A, B, out.data(), c.N, c.acc);
                return out;
            });
        }
    }
}

TEST(ThreadedKernels, AttentionIsBitIdenticalOnAnyThreadCount) {
    // One long causal sequence (the query blocks split), and a batch of heads (the slices split).
    for (const Shape& shape : {Shape{1, 1, 700, 64}, Shape{3, 4, 200, 16}}) {
        const int64_t n = shape[0] * shape[1] * shape[2] * shape[3];
        const Tensor q(shape, random_values(n, 4)), k(shape, random_values(n, 5)), v(shape, random_values(n, 6));
        AttentionOptions causal;
        causal.causal = true;
        expect_same_on_any_thread_count([&] { return attention(q, k, v, causal).data; });
        expect_same_on_any_thread_count([&] { return scaled_dot_product_attention(q, k, v, causal).weights.data; });
    }
}

TEST(ThreadedKernels, SoftmaxIsBitIdenticalOnAnyThreadCount) {
    const Tensor scores({30, 70, 50}, random_values(30 * 70 * 50, 7));
    for (int64_t dim : {-1, 0, 1}) expect_same_on_any_thread_count([&] { return softmax(scores, dim).data; });
}

// Row-wise layers large enough to split (a model of the tests' size keeps its rows on one thread).
TEST(ThreadedKernels, LayerNormCrossEntropyAndGeluAreBitIdenticalOnAnyThreadCount) {
    const int64_t N = 8192, C = 128, V = 5000;
    const std::vector<float> x = random_values(N * C, 8), w = random_values(C, 9), b = random_values(C, 10),
                             dy = random_values(N * C, 11), logits = random_values(1024 * V, 12);
    std::vector<int64_t> targets(1024);
    for (size_t i = 0; i < targets.size(); ++i) targets[i] = static_cast<int64_t>(i * 37 % V);
    expect_same_on_any_thread_count([&] {
        std::vector<float> out(static_cast<size_t>(N * C)), mean(N), rstd(N), dx(static_cast<size_t>(N * C)), dw(C), db(C);
        layer_norm_forward(out.data(), x.data(), w.data(), b.data(), N, C, 1e-5f, mean.data(), rstd.data());
        layer_norm_backward(dx.data(), dw.data(), db.data(), dy.data(), x.data(), w.data(), mean.data(), rstd.data(), N, C);
        std::vector<float> dlogits(logits.size());
        const float loss = cross_entropy_forward_backward(logits.data(), targets.data(), 1024, V, dlogits.data());
        std::vector<float> gelu = x;
        gelu_forward(gelu.data(), N * C);
        for (const auto* part : {&dx, &dw, &db, &dlogits, &gelu}) out.insert(out.end(), part->begin(), part->end());
        out.push_back(loss);
        return out;
    });
}

// The forward's logits and every gradient of the backward. Bias gradients once differed in the last bit
// between runs (an Eigen column sum vectorised from the buffer's alignment of the moment).
TEST(ThreadedKernels, ModelForwardAndBackwardAreBitIdenticalOnAnyThreadCount) {
    const GPT model = small_gpt(1);
    const std::vector<int64_t> ids = batch_of_8(7);
    expect_same_on_any_thread_count([&] {
        GPTActivations acts;
        std::vector<float> out = model.forward_train(ids, 8, acts, nullptr).data;
        GPT grads = model.zeros_like();
        model.backward(acts, out.data(), grads);  // the logits as the upstream gradient: any values will do
        for (const auto& [name, p] : grads.named_parameters()) out.insert(out.end(), p->data.begin(), p->data.end());
        return out;
    });
}

// A batch's forward runs as parts of whole sequences, one task each (gpt.hpp: inference_parts): its logits the
// same on any thread count, and each sequence's the same as in a forward of its own part.
TEST(ThreadedKernels, InferenceIsBitIdenticalOnAnyThreadCount) {
    const GPT model = small_gpt(2);
    const GPTConfig& config = model.config();
    const std::vector<int64_t> ids = batch_of_8(5);
    ASSERT_GT(inference_parts(config, 8, 64), 1);
    EXPECT_EQ(inference_parts(config, 1, 64), 1);
    expect_same_on_any_thread_count([&] { return model.forward(ids, 8).data; });
    const int64_t parts = inference_parts(config, 8, 64), rows = 8 / parts * 64;
    const std::vector<float> whole = model.forward(ids, 8).data;
    const std::vector<int64_t> last(ids.end() - rows, ids.end());
    const std::vector<float> alone = model.forward(last, 8 / parts).data;
    EXPECT_TRUE(same_bits(std::vector<float>(whole.end() - static_cast<std::ptrdiff_t>(alone.size()), whole.end()), alone));
}

// Both ways a step uses the threads: eight micro-batches of one sequence, one per task; and, with dropout (whose
// masks are drawn over the whole batch), the whole batch with its kernels split: 512 rows of width 128, 32
// attention slices.
TEST(ThreadedKernels, TrainingIsBitIdenticalOnAnyThreadCount) {
    for (const float dropout : {0.0f, 0.1f}) {
        GPTConfig config = GPTConfig::nanogpt(36, 64, 2, 4, 128, true, true);
        config.dropout = dropout;
        TrainConfig t = quick();
        t.batch_size = 8;
        ASSERT_EQ(micro_batches(config, t), dropout > 0 ? 1 : 8);
        expect_same_on_any_thread_count([&] {
            Trainer trainer(config, t, text());
            std::vector<float> out;
            for (int i = 0; i < 3; ++i) out.push_back(trainer.step().loss);
            const EvalResult e = trainer.evaluate(7);  // groups of one batch per thread: 7 leaves a part group
            out.push_back(e.train);
            out.push_back(e.val);
            for (const auto& [name, p] : trainer.model().named_parameters()) out.insert(out.end(), p->data.begin(), p->data.end());
            return out;
        });
    }
}

// The probe runs one task per sentence and counts in sentence order: its accuracy and every head's share the same
// on any thread count (an untrained model of the agreement corpus's words: its heads look anywhere).
TEST(ThreadedKernels, AgreementProbeIsTheSameOnAnyThreadCount) {
    const Tokenizer tok(TokenizerKind::Word, agreement_corpus(2000, 1337));
    Generator g(3);
    const GPT model(GPTConfig::nanogpt(tok.vocab_size(), 32, 2, 4, 64, false, false), g);
    const std::vector<AgreementSentence> sentences = agreement_sentences(40, 4242);
    expect_same_on_any_thread_count([&] {
        const AgreementReport r = probe_agreement(model, tok, sentences);
        std::vector<float> out(r.subject_attention.begin(), r.subject_attention.end());
        out.push_back(static_cast<float>(r.accuracy));
        return out;
    });
}
