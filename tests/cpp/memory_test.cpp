// keep_freed_memory (attn/memory.hpp): once asked, glibc serves a buffer of
// several MiB from the heap (no pages of its own to map and unmap) and keeps it
// in the heap when freed (no trim). Each ctest case runs in a process of its
// own, so malloc starts here at its defaults, which do both.
#include "attn/memory.hpp"

#include <gtest/gtest.h>

#include <memory>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace {

#if defined(__GLIBC__)
TEST(KeepFreedMemory, ServesLargeBuffersFromTheHeapAndKeepsThemThere) {
    ASSERT_TRUE(attn::keep_freed_memory());
    const size_t mapped = mallinfo2().hblkhd;  // bytes in buffers with pages of their own
    auto buffer = std::make_unique<float[]>(size_t{2} << 20);  // 8 MiB, far above glibc's default 128 KiB
    buffer[0] = 1.0f;
    EXPECT_EQ(mallinfo2().hblkhd, mapped);
    const size_t heap = mallinfo2().arena;  // the heap's bytes, this buffer's among them
    buffer.reset();
    EXPECT_EQ(mallinfo2().arena, heap);  // not trimmed: the next step's buffers reuse it
}
#else
TEST(KeepFreedMemory, ChangesNothingWithoutGlibc) { EXPECT_FALSE(attn::keep_freed_memory()); }
#endif

}  // namespace
