// load_state_dict (state_dict.hpp): weights set by their PyTorch names, checked
// whole before any is assigned.
#include "attn/multi_head_attention.hpp"
#include "attn/self_attention.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <string>

using namespace attn;

namespace {
std::string message_of(const std::function<void()>& f) {
    try {
        f();
    } catch (const Error& e) {
        return e.what();
    }
    return "(no error)";
}
Tensor filled(Shape shape, float v) {
    Tensor t(shape);
    for (float& x : t.data) x = v;
    return t;
}
}  // namespace

TEST(StateDict, LoadedWeightsAreTheOnesForwardUses) {
    manual_seed(123);
    SelfAttentionV1 sa(3, 2);
    Tensor identity_ish({3, 2}, {1, 0, 0, 1, 0, 0});
    sa.load_state_dict({{"W_query", identity_ish}, {"W_key", identity_ish}, {"W_value", identity_ish}});
    // Q = K = V = the inputs' first two columns, so the scores are their dot products.
    const SelfAttentionTrace t = sa.forward(Tensor({2, 3}, {1, 2, 9, 3, 4, 9}));
    EXPECT_FLOAT_EQ(t.scores.data[1], 1 * 3 + 2 * 4);
    EXPECT_FLOAT_EQ(t.values.data[3], 4);
}

TEST(StateDict, NonStrictKeepsTheMissingWeights) {
    manual_seed(123);
    SelfAttentionV1 sa(3, 2);
    const Tensor value = sa.W_value;
    sa.load_state_dict({{"W_query", filled({3, 2}, 0.5f)}}, /*strict=*/false);
    EXPECT_EQ(sa.W_query.data[0], 0.5f);
    EXPECT_EQ(sa.W_value.data, value.data);
}

TEST(StateDict, ARefusedDictChangesNothing) {
    manual_seed(0);
    MultiHeadAttention mha(4, 2);
    const Tensor before = mha.W_q.weight;
    // The first entry is good; the second's shape is wrong: neither is assigned.
    EXPECT_EQ(message_of([&] { mha.load_state_dict({{"W_q.weight", filled({4, 4}, 1)}, {"W_k.weight", filled({4, 3}, 1)}}); }),
              "MultiHeadAttention.loadStateDict: expected 'W_k.weight' of shape [4, 4] (its shape in this module), got [4, 3]");
    EXPECT_EQ(mha.W_q.weight.data, before.data);
}

TEST(StateDict, UnknownMissingRepeatedAndNonFiniteAreRefused) {
    manual_seed(0);
    MultiHeadAttention mha(4, 2);
    const Tensor ok = filled({4, 4}, 1);
    EXPECT_EQ(message_of([&] { mha.load_state_dict({{"W_q.weigth", ok}}); }),
              "MultiHeadAttention.loadStateDict: unexpected key 'W_q.weigth' in the state dict (did you mean "
              "'W_q.weight'?); expected W_q.weight, W_k.weight, W_v.weight, W_o.weight");
    EXPECT_EQ(message_of([&] { mha.load_state_dict({{"W_q.weight", ok}, {"W_k.weight", ok}}); }),
              "MultiHeadAttention.loadStateDict: missing key(s) W_v.weight, W_o.weight in the state dict (pass strict: "
              "false to keep their current values)");
    EXPECT_EQ(message_of([&] { mha.load_state_dict({{"W_q.weight", ok}, {"W_q.weight", ok}}, false); }),
              "MultiHeadAttention.loadStateDict: key 'W_q.weight' given twice");
    Tensor bad = ok;
    bad.data[5] = std::nanf("");
    EXPECT_NE(message_of([&] { mha.load_state_dict({{"W_o.weight", bad}}, false); }).find("W_o.weight"), std::string::npos);
}
