// A synthetic corpus where attention has something visible to learn:
// subject–verb number agreement across a relative clause, as in notebook 001's
// "The cat, which was sitting on the mat, purrs." / "The cats, which were
// sitting on the mat, purr."
//
// One sentence per line:
//
//   The <subject>, which|who <past verb> <prep> the <noun>, <verb>.
//   The cats, which slept near the dog, purr.
//   The doctor, who waited beside the kings, listens.
//
// The subject decides two things about the verb: its number (cats purr, the
// cat purrs) and, since each noun does four verbs of its own (cats purr,
// sleep, hide, yawn; dogs bark, run, play, swim), which verb it is. Only the
// subject carries them: the clause is in the past tense (no was/were to copy
// from), and its noun (an attractor) has its own verbs and a random number,
// so "follow the nearest noun" is wrong. Why both: with number alone, a model
// can detect "plural subject" and default to singular otherwise, and one
// trained that way put its largest weight on the subject only when it was
// plural (48% of sentences, the rest on "which"); needing the subject's
// identity too, the shipped recipe trained with four different seeds had a
// head on the subject in 100% of held-out sentences every time.
//
// In the corpus every third sentence is the short form  The <subject> <verb>.
// Why: with word tokens, " cats" and " cat" are unrelated ids, and the model
// must first learn which nouns are plural. Next to each other ("The cats
// purr.") that takes a few hundred steps; across the clause alone, where the
// verb is one token in twelve and its noun seven tokens back, training sat on
// the plateau of a number-blind model for 8000 steps (2 layers, 4 heads,
// n_embd 64). Held-out sentences for probing (agreement_sentences) always have
// the clause.
//
// With 32 subjects, 24 clause verbs, 10 prepositions, 64 attractor forms and 4
// verbs per subject there are about 2 million sentences per subject number: a
// model cannot memorise them from a corpus of thousands.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace attn {

struct AgreementSentence {
    std::string text;          // the whole sentence, without the newline
    bool plural = false;       // the subject's number
    std::string prefix;        // up to and including ", " before the verb
    std::string verb_correct;  // the agreeing form, e.g. "purr" after a plural subject
    std::string verb_wrong;    // the other form, e.g. "purrs"
    int64_t subject_begin = 0; // [begin, end) character span of the subject noun in text
    int64_t subject_end = 0;
};

// n sentences drawn from a generator seeded with seed, for probing: at most kMaxAgreementSentences (each costs
// ~250 bytes as a struct of strings).
constexpr int64_t kMaxAgreementSentences = 100'000;
std::vector<AgreementSentence> agreement_sentences(int64_t n, uint64_t seed);
// The same sentences as a text, one per line, every third in its short form, written one at a time. At most
// max_corpus_sentences(): as many as fit a training text (kMaxElements bytes) at the longest a sentence can be,
// checked before anything is built (10,000,000 sentences, once allowed, asked for gigabytes and ended in bad_alloc).
std::string agreement_corpus(int64_t n, uint64_t seed);
int64_t max_corpus_sentences();

}  // namespace attn
