#include "attn/memory.hpp"

#include <cstdlib>  // defines __GLIBC__ where the C library is glibc

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace attn {

bool keep_freed_memory() {
#if defined(__GLIBC__)
    // Both are needed: with the mmap threshold raised alone, freed buffers go to
    // the heap's top and are trimmed from there at once (as slow as before).
    return mallopt(M_MMAP_THRESHOLD, static_cast<int>(kKeptBufferBytes)) == 1 &&
           mallopt(M_TRIM_THRESHOLD, static_cast<int>(kTrimBytes)) == 1;
#else
    return false;
#endif
}

}  // namespace attn
