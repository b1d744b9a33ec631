// How many threads the library's kernels use. One setting for the whole
// process (natively) or the whole module (WebAssembly).
//
// The work of a kernel is split so that no thread ever computes part of a sum
// another thread finishes: a matrix product is split over tiles of its output,
// attention over (batch, head, block of queries), row-wise layers over rows,
// the optimizer over elements; a training step of a small model over its
// micro-batches and a model's forward of a batch over parts of whole sequences,
// whose numbers the model and the batch fix, never the thread count
// (trainer.hpp: micro_batches; gpt.hpp: inference_parts). Each value is therefore computed by the same
// instructions in the same order whatever the thread count, and results are
// bit-identical for 1, 2, 3, … threads (tests/cpp/threads_test.cpp).
#pragma once

namespace attn {

// The most threads the library will use; a request for more is refused. Far
// above what helps a model of this library's size, and a bound on the workers
// a WebAssembly module starts.
constexpr int kMaxThreads = 16;
// The count when none is asked for: the machine's cores, at most this many (natively by default, attn-train
// without --threads, JS's threads: 'auto'). The models this library runs gain little beyond it.
constexpr int kDefaultMaxThreads = 8;

// The threads kernels use now (1: the calling thread alone). Natively the
// default is the machine's cores (at most kDefaultMaxThreads); in WebAssembly it is 1
// until the JS package sets it for a threaded module.
int num_threads();

// Sets the thread count, n in [1, kMaxThreads]; fn names the caller in the
// Error for any other n. Workers are started on first need and kept (a
// smaller n leaves them idle). Not to be called while a kernel runs.
void set_num_threads(int n, const char* fn = "set_num_threads");

}  // namespace attn
