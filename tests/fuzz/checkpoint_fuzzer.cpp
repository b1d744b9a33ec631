// libFuzzer target: load_checkpoint on arbitrary bytes must either return a
// checkpoint or throw attn::Error; AddressSanitizer and UBSan catch anything
// else (out-of-bounds reads, overflows, leaks).
#include "attn/checkpoint.hpp"

#include <cstddef>
#include <cstdint>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    try {
        const attn::Checkpoint ck = attn::load_checkpoint(std::string(reinterpret_cast<const char*>(data), size));
        (void)ck;
    } catch (const attn::Error&) {
    }
    return 0;
}
