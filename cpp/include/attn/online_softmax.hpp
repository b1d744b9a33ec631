// The softmax of a row of scores computed in one pass, block by block, as FlashAttention streams the keys
// (Dao et al. 2022, algorithm 1; the "online normalizer" of Milakov & Gimelshein 2018) and as this library's
// attention kernel does (cpp/src/attention_kernel.cpp): a running maximum m and a running sum l of e^(ω − m);
// when a block raises the maximum, the sum so far is rescaled by e^(m_old − m_new). At the end e^(ω − m) / l is
// softmax(ω), and a query never needed its whole row of weights at once: O(1) memory per query instead of O(T).
//
//   attn::OnlineSoftmaxTrace t = attn::online_softmax(scores, 2);  // scores (6): 3 steps of 2 keys
//   // t.maxima (3), t.sums (3): m and l after each step; t.weights (6) == attn::softmax(scores)
#pragma once

#include "attn/tensor.hpp"

#include <cstdint>

namespace attn {

struct OnlineSoftmaxTrace {
    Tensor maxima;   // (S): the running maximum m after each of the S = ⌈n / block⌉ steps
    Tensor sums;     // (S): the running sum l = Σ e^(ω − m) over the keys seen, after each step
    Tensor weights;  // (n): e^(ω − m) / l with the last m and l: the softmax of the row
};

// scores (n), finite or −∞ (a masked key); block ≥ 1 keys per step. A row of only −∞ gets weights of 0, as
// softmax() gives it. Error for another shape, NaN or +∞, or a block < 1.
OnlineSoftmaxTrace online_softmax(const Tensor& scores, int64_t block = 1);

}  // namespace attn
