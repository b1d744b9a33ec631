// What several test files share: the message of a refused call, vocab.json's
// spelling of bytes, a matrix transposed, and for the training, checkpoint and config tests a tiny model,
// a quick run and a text.
#pragma once

#include "attn/config.hpp"
#include "attn/synthetic_corpus.hpp"
#include "attn/tensor.hpp"
#include "attn/tokenizer.hpp"

#include <string>

namespace fixtures {

using namespace attn;

// The message of the Error f throws ("no error" if it returns).
template <typename F>
std::string error_of(F f) {
    try {
        f();
    } catch (const Error& e) {
        return e.what();
    }
    return "no error";
}

// How GPT-2's vocab.json spells bytes (encoder.py's bytes_to_unicode), written out independently of the library's
// table: the printable bytes stand for themselves, the others for U+0100 on, in byte order.
inline std::string spelled(const std::string& bytes) {
    std::string out;
    for (unsigned char b : bytes) {
        const auto printable = [](int x) { return (x >= '!' && x <= '~') || (x >= 0xA1 && x <= 0xAC) || x >= 0xAE; };
        char32_t c = b;
        if (!printable(b)) {
            int k = 0;
            for (int x = 0; x < b; ++x) k += !printable(x);
            c = 256 + static_cast<char32_t>(k);
        }
        utf8_append(out, c);
    }
    return out;
}

// A (rows, cols) tensor as (cols, rows): PyTorch's .T of a Linear weight.
inline Tensor transposed(const Tensor& m) { return from_matrix(matrix(m).transpose()); }

// 36 distinct characters in sorted order, for checkpoints of tiny().
inline const Tokenizer& vocab() {
    static const Tokenizer v(TokenizerKind::Char, "abcdefghijklmnopqrstuvwxyz0123456789");
    return v;
}

inline GPTConfig tiny(float dropout = 0.0f) {
    GPTConfig c = GPTConfig::nanogpt(36, 16, 2, 2, 16, true, true);  // Trainer resets the vocabulary size
    c.dropout = dropout;
    return c;
}

inline TrainConfig quick() {
    TrainConfig t;
    t.batch_size = 4;
    t.lr.learning_rate = 3e-3f;
    t.lr.warmup_iters = 5;
    t.lr.lr_decay_iters = 60;
    t.eval_iters = 4;
    return t;
}

inline const std::string& text() {
    static const std::string t = agreement_corpus(400, 7);
    return t;
}

}  // namespace fixtures
