// Whether freed tensors' memory stays in the process for the next ones: a
// process-wide choice, for programs that train.
//
// glibc's malloc gives every allocation above 128 KiB pages of its own (mmap)
// and hands them back to the kernel when freed; it also trims the heap once
// 128 KiB at its top are free. A training step allocates and frees hundreds of
// such buffers (activations, their gradients, the optimizer's temporaries), so
// every step asks the kernel for fresh zeroed pages again and faults them in.
// On nanoGPT's laptop model (4 layers x 4 heads x 128, batch 12 x 64) a step
// took 80-90 ms on two threads and 140-150 ms on one; with freed memory kept,
// 24 and 44 ms (`attn-train`, bench/native_bench.cpp, on this project's
// 2-vCPU AMD EPYC machine).
//
//     attn::keep_freed_memory();  // once, at the start of main
//
// It changes malloc for the whole process (the peak of the heap stays the
// process's), so the library never calls it: attn-train and the native bench
// do (bench/run.mjs reads these two figures to set its Node process the same
// way through glibc's environment). WebAssembly's malloc keeps freed memory
// anyway; so do jemalloc and tcmalloc, with which a program needs none of this.
#pragma once

namespace attn {

// Keeps freed buffers of up to kKeptBufferBytes for reuse, and trims the heap
// only above kTrimBytes. Returns false, changing nothing, where the C library
// is not glibc.
constexpr long kKeptBufferBytes = 32L << 20;  // glibc's own ceiling for its adaptive threshold
constexpr long kTrimBytes = 64L << 20;
bool keep_freed_memory();

}  // namespace attn
