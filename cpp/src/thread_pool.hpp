// The library's thread pool: workers started once and kept, and one
// primitive, parallel_for, that every threaded kernel is written with.
// Threads are std::threads, which the WebAssembly build turns into pthreads
// on Web Workers (Emscripten has no OpenMP for WASM; one pool serves both builds).
#pragma once

#include "attn/threads.hpp"

#include <cstdint>
#include <functional>

namespace attn {

// Runs body(i) for every i in [0, n) on the pool's threads and the caller's,
// and returns when all are done. Which thread runs which i varies from run to
// run, so body(i) must compute its outputs from i alone, writing only what no
// other i writes: then results do not depend on the thread count
// (threads.hpp). Indices are handed out in chunks of `grain`.
//
// A parallel_for inside another (a kernel called from a parallel task) runs
// sequentially on its thread; so does any with n = 1 or one thread set.
// An exception thrown by a body is rethrown on the caller after every task
// has finished (the first one thrown; an attn::Error, std::bad_alloc and
// std::length_error keep their type, any other becomes a std::runtime_error).
void parallel_for(int64_t n, const std::function<void(int64_t)>& body, int64_t grain = 1);

// body(begin, end) over [0, n) cut into chunks of `chunk` elements (the last
// shorter), for element-wise loops. The cuts depend on n and chunk alone, so a
// vectorised loop splits into the same vector and scalar steps on any thread count.
void parallel_chunks(int64_t n, int64_t chunk, const std::function<void(int64_t, int64_t)>& body);

// How many indices of work_per_item operations each (multiply-adds, or
// comparable steps) one task should take, so that a task outweighs the cost of
// handing it to another thread (tens of microseconds to wake one in WebAssembly).
// A loop whose whole work is smaller than one task then runs on its thread.
int64_t grain_for_work(double work_per_item);

// What grain_for_work counts for a float read from one place and written to
// another (packed, converted, summed): memory traffic, not arithmetic, sets its
// time, some 8 multiply-adds' worth.
constexpr double kMovedFloatWork = 8;

// The number of parts worth splitting `work` multiply-adds (or comparable
// steps) into, for a kernel that splits by thread: at most num_threads(), and
// one per task's worth of work (grain_for_work).
int64_t parts_for_work(double work, int64_t max_parts);

// True on a pool worker or inside a parallel_for: a kernel called there runs on its own thread.
bool in_parallel_region();

}  // namespace attn
