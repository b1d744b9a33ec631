#include "thread_pool.hpp"

#include "attn/error.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <condition_variable>
#include <exception>
#include <new>
#include <stdexcept>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace attn {

namespace {
thread_local bool tls_in_region = false;

// What a task threw, carried to the caller as a value and thrown again there as
// the same type with the same message. (Emscripten 3.1.6's WebAssembly exceptions
// rethrow a std::exception_ptr as an exception of no type a catch clause knows.)
struct Carried {
    enum Kind { None, LibraryError, OutOfMemory, TooLong, Other } kind = None;
    std::string what;

    static Carried current() {
        try {
            throw;
        } catch (const Error& e) {
            return {LibraryError, e.what()};
        } catch (const std::bad_alloc&) {
            return {OutOfMemory, {}};
        } catch (const std::length_error& e) {
            return {TooLong, e.what()};
        } catch (const std::exception& e) {
            return {Other, e.what()};
        } catch (...) {
            return {Other, "unexpected C++ exception"};
        }
    }

    [[noreturn]] void rethrow() const {
        switch (kind) {
            case LibraryError: throw Error(what);
            case OutOfMemory: throw std::bad_alloc();
            case TooLong: throw std::length_error(what);
            default: throw std::runtime_error(what);
        }
    }
};

int default_threads() {
#if defined(__EMSCRIPTEN__)
    return 1;  // the JS package sets the count when it loads a threaded module
#else
    const unsigned cores = std::thread::hardware_concurrency();
    return std::clamp(static_cast<int>(cores == 0 ? 1 : cores), 1, kDefaultMaxThreads);
#endif
}

// One job at a time: a parallel_for publishes its body and range under a new
// generation number, wakes the workers it needs, works on the range itself
// and waits for the workers' chunks. Indices are claimed with one atomic
// counter, so a slow thread simply claims fewer.
class Pool {
public:
    ~Pool() {
        {
            std::lock_guard<std::mutex> lock(mutex_);
            stopping_ = true;
        }
        wake_.notify_all();
        for (std::thread& t : workers_) t.join();
    }

    int threads() const { return threads_.load(std::memory_order_relaxed); }

    void set_threads(int n) {
        std::lock_guard<std::mutex> busy(busy_);
        threads_ = n;
        start_workers(n - 1);
    }

    void run(int64_t n, const std::function<void(int64_t)>& body, int64_t grain) {
        // Another thread of the program has the pool: this call runs on its own thread.
        std::unique_lock<std::mutex> busy(busy_, std::try_to_lock);
        const int64_t chunks = (n + grain - 1) / grain;
        const int helpers = static_cast<int>(std::min<int64_t>(threads() - 1, chunks - 1));
        if (!busy.owns_lock() || helpers <= 0) return sequential(n, body);
        start_workers(helpers);
        {
            std::lock_guard<std::mutex> lock(mutex_);
            body_ = &body;
            n_ = n;
            grain_ = grain;
            next_.store(0, std::memory_order_relaxed);
            helpers_ = helpers;
            running_.store(helpers, std::memory_order_relaxed);
            error_ = Carried();
            generation_.fetch_add(1, std::memory_order_release);
        }
        wake_.notify_all();
        tls_in_region = true;
        work();
        tls_in_region = false;
        spin_until([&] { return running_.load(std::memory_order_acquire) == 0; });
        std::unique_lock<std::mutex> lock(mutex_);
        finished_.wait(lock, [&] { return running_.load(std::memory_order_acquire) == 0; });
        body_ = nullptr;
        if (error_.kind != Carried::None) std::exchange(error_, Carried()).rethrow();
    }

private:
    static void sequential(int64_t n, const std::function<void(int64_t)>& body) {
        const bool outer = tls_in_region;
        tls_in_region = true;
        try {
            for (int64_t i = 0; i < n; ++i) body(i);
        } catch (...) {
            tls_in_region = outer;
            throw;
        }
        tls_in_region = outer;
    }

    // Claims chunks until the range is exhausted; the first exception stops further claims.
    void work() {
        for (;;) {
            const int64_t start = next_.fetch_add(grain_, std::memory_order_relaxed);
            if (start >= n_) return;
            const int64_t end = std::min(n_, start + grain_);
            try {
                for (int64_t i = start; i < end; ++i) (*body_)(i);
            } catch (...) {
                next_.store(n_, std::memory_order_relaxed);
                Carried error = Carried::current();
                std::lock_guard<std::mutex> lock(mutex_);
                if (error_.kind == Carried::None) error_ = std::move(error);
            }
        }
    }

    void start_workers(int count) {
        while (static_cast<int>(workers_.size()) < count) {
            const int index = static_cast<int>(workers_.size());
            workers_.emplace_back([this, index] { worker_loop(index); });
        }
    }

    // A forward pass is dozens of short parallel loops: a thread that finds the
    // next one published within a few tens of microseconds skips the cost of
    // sleeping and being woken (a futex round trip, slower still in WebAssembly).
    template <typename Ready>
    static void spin_until(Ready ready) {
        constexpr int kSpins = 1 << 14;
        for (int i = 0; i < kSpins && !ready(); ++i) {
        }
    }

    void worker_loop(int index) {
        tls_in_region = true;
        uint64_t seen = 0;
        for (;;) {
            spin_until([&] { return generation_.load(std::memory_order_acquire) != seen; });
            {
                std::unique_lock<std::mutex> lock(mutex_);
                wake_.wait(lock, [&] { return stopping_ || generation_.load(std::memory_order_relaxed) != seen; });
                if (stopping_) return;
                seen = generation_.load(std::memory_order_relaxed);
                if (index >= helpers_) continue;  // not needed for this job
            }
            work();
            if (running_.fetch_sub(1, std::memory_order_acq_rel) == 1) {
                std::lock_guard<std::mutex> lock(mutex_);  // the caller checks running_ under the lock before it sleeps
                finished_.notify_one();
            }
        }
    }

    std::atomic<int> threads_{default_threads()};
    std::mutex busy_;  // held by the one parallel_for the pool runs
    std::mutex mutex_;
    std::condition_variable wake_, finished_;
    std::vector<std::thread> workers_;
    bool stopping_ = false;
    std::atomic<uint64_t> generation_{0};  // written under mutex_, read by spinning workers
    const std::function<void(int64_t)>* body_ = nullptr;
    int64_t n_ = 0, grain_ = 1;
    std::atomic<int64_t> next_{0};
    int helpers_ = 0;
    std::atomic<int> running_{0};  // helpers still working on the current job
    Carried error_;
};

Pool& pool() {
    static Pool p;
    return p;
}
}  // namespace

int num_threads() { return pool().threads(); }

void set_num_threads(int n, const char* fn) {
    if (n < 1 || n > kMaxThreads) {
        throw Error(std::string(fn) + ": expected a thread count from 1 to " + std::to_string(kMaxThreads) + ", got " +
                    std::to_string(n));
    }
    if (tls_in_region) throw Error(std::string(fn) + ": cannot change the thread count from inside a parallel task");
    pool().set_threads(n);
}

bool in_parallel_region() { return tls_in_region; }

void parallel_for(int64_t n, const std::function<void(int64_t)>& body, int64_t grain) {
    if (n <= 0) return;
    grain = std::max<int64_t>(1, grain);
    if (n <= grain || tls_in_region || num_threads() == 1) {
        for (int64_t i = 0; i < n; ++i) body(i);
        return;
    }
    pool().run(n, body, grain);
}

void parallel_chunks(int64_t n, int64_t chunk, const std::function<void(int64_t, int64_t)>& body) {
    if (n <= 0) return;
    parallel_for((n + chunk - 1) / chunk, [&](int64_t c) { body(c * chunk, std::min(n, (c + 1) * chunk)); });
}

namespace {
// Operations in one task: ~0.2 ms on one WebAssembly thread. Waking a sleeping worker costs ~0.1 ms there
// (measured: a 128 × 128 product split in two took 380 µs against 224 µs whole).
constexpr double kTaskWork = 1 << 21;
}  // namespace

int64_t grain_for_work(double work_per_item) {
    if (!(work_per_item > 0)) return 1;
    return std::max<int64_t>(1, static_cast<int64_t>(std::ceil(kTaskWork / work_per_item)));
}

int64_t parts_for_work(double work, int64_t max_parts) {
    if (tls_in_region) return 1;
    const auto by_work = static_cast<int64_t>(work / kTaskWork);
    return std::clamp<int64_t>(std::min<int64_t>(by_work, num_threads()), 1, std::max<int64_t>(1, max_parts));
}

}  // namespace attn
