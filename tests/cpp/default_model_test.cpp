// What the shipped model (web/lib/models/agreement.safetensors, trained by
// tools/train-default-model.sh) learned, on sentences it never saw.
#include "attn/agreement_probe.hpp"
#include "attn/checkpoint.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <set>
#include <sstream>

using namespace attn;

namespace {
Checkpoint shipped() {
    std::ifstream in(std::string(ATTN_SOURCE_DIR) + "/web/lib/models/agreement.safetensors", std::ios::binary);
    if (!in) throw std::runtime_error("web/lib/models/agreement.safetensors is missing: run npm run train:model");
    std::stringstream bytes;
    bytes << in.rdbuf();
    return load_checkpoint(bytes.str());
}

// Held out: seed 4242, while training used seed 1337 (30000 sentences).
std::vector<AgreementSentence> held_out() {
    std::set<std::string> seen;
    for (const AgreementSentence& s : agreement_sentences(30000, 1337)) seen.insert(s.text);
    std::vector<AgreementSentence> out;
    for (AgreementSentence& s : agreement_sentences(600, 4242))
        if (!seen.count(s.text)) out.push_back(std::move(s));
    return out;
}
}  // namespace

TEST(DefaultModel, IsSmallAndWellFormed) {
    std::ifstream in(std::string(ATTN_SOURCE_DIR) + "/web/lib/models/agreement.safetensors", std::ios::binary | std::ios::ate);
    ASSERT_TRUE(in);
    EXPECT_LE(static_cast<int64_t>(in.tellg()), 1 << 20);  // <= 1 MB
    const Checkpoint ck = shipped();
    EXPECT_FALSE(ck.training.has_value());
    EXPECT_EQ(ck.tokenizer.kind(), TokenizerKind::Word);
    EXPECT_EQ(ck.tokenizer.vocab_size(), ck.model.config().vocab_size);
}

TEST(DefaultModel, ChoosesTheAgreeingVerbForm) {
    const Checkpoint ck = shipped();
    const std::vector<AgreementSentence> sentences = held_out();
    ASSERT_GE(sentences.size(), 590u);
    const AgreementReport r = probe_agreement(ck.model, ck.tokenizer, sentences);
    EXPECT_GE(r.accuracy, 0.95) << r.accuracy;
    ::testing::Test::RecordProperty("agreement", std::to_string(r.accuracy));
}

TEST(DefaultModel, AHeadAtTheVerbLooksAtTheSubject) {
    const Checkpoint ck = shipped();
    const AgreementReport r = probe_agreement(ck.model, ck.tokenizer, held_out());
    // At the "," before the verb, the head's largest weight is on the subject
    // noun (" cats"), seven tokens back across the clause and its own noun.
    EXPECT_GE(r.best_subject_attention, 0.8) << "layer " << r.best_layer << " head " << r.best_head;
    // Not every head: the others attend elsewhere (a probe that always said
    // "subject" would pass the line above for a wrong reason).
    const auto others = std::count_if(r.subject_attention.begin(), r.subject_attention.end(), [](double f) { return f < 0.2; });
    EXPECT_GE(others, 1);
}
