// A synthetic corpus where attention has something visible to learn:
// subject–verb number agreement across a relative clause, as in notebook 001's
// "The cat, which was sitting on the mat, purrs." / "The cats, which were
// sitting on the mat, purr."
//
// One sentence per line:  The <subject>, which <past verb> <prep> the <noun>, <verb>.
// In the corpus every third sentence is the short form  The <subject> <verb>.
// Why: with word tokens, " cats" and " cat" are unrelated ids, and the model
// must first learn which nouns are plural. Next to each other ("The cats
// purr.") that takes a few hundred steps; across the clause alone, where the
// verb is one token in twelve and its noun seven tokens back, training sat on
// the plateau of a model that ignores number for 8000 steps (2 layers, 4 heads,
// n_embd 64). Held-out sentences for probing (agreement_sentences) always have
// the clause.
// Only the subject carries the number the verb must agree with: the clause is
// in the past tense (no was/were to copy from), and its noun (an attractor) has
// a random number of its own, so "agree with the nearest noun" is wrong half
// the time. With 32 subjects, 24 clause verbs, 10 prepositions, 64 attractor
// forms and 32 verbs there are about 16 million sentences per subject
// number: a model cannot memorise them from a corpus of thousands.
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

// n sentences drawn from a generator seeded with seed.
std::vector<AgreementSentence> agreement_sentences(int64_t n, uint64_t seed);
// The same sentences as a text, one per line, every third in its short form.
std::string agreement_corpus(int64_t n, uint64_t seed);

}  // namespace attn
