// libFuzzer target: GPT-2's tokenizer (GPT-2's own vocab.json and merges.txt, from ATTN_GPT2_VOCAB and
// ATTN_GPT2_MERGES) on arbitrary bytes. Every input must encode, its pre-tokenized pieces must be the input cut
// into consecutive parts, and decoding its ids must give the bytes back; a violation aborts, and AddressSanitizer
// and UBSan catch the rest.
#include "attn/bpe_tokenizer.hpp"
#include "attn/tensor.hpp"

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>

namespace {
std::unique_ptr<attn::BPETokenizer> tokenizer;

std::string read(const char* variable) {
    const char* path = std::getenv(variable);
    std::ifstream in(path ? path : "");
    if (!in) {
        std::fprintf(stderr, "bpe_fuzzer: set %s to GPT-2's file\n", variable);
        std::abort();
    }
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}
}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
    tokenizer = std::make_unique<attn::BPETokenizer>(attn::BPETokenizer::from_files(read("ATTN_GPT2_VOCAB"), read("ATTN_GPT2_MERGES")));
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string text(reinterpret_cast<const char*>(data), size);
    std::string joined;
    for (const std::string& piece : tokenizer->pre_tokenize(text)) {
        if (piece.empty()) std::abort();  // an empty piece would never advance
        joined += piece;
    }
    if (joined != text) std::abort();
    if (tokenizer->decode(tokenizer->encode(text)) != text) std::abort();
    return 0;
}
