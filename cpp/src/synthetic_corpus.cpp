#include "attn/synthetic_corpus.hpp"

#include "attn/tensor.hpp"
#include "attn/torch_rng.hpp"

#include <algorithm>
#include <array>
#include <cstring>

namespace attn {

namespace {
// Main verbs: {plural form, singular form}.
const std::array<std::array<const char*, 2>, 32> kVerbs = {{
    {"purr", "purrs"},     {"bark", "barks"},   {"sing", "sings"},     {"run", "runs"},       {"sleep", "sleeps"},
    {"swim", "swims"},     {"smile", "smiles"}, {"wait", "waits"},     {"shout", "shouts"},   {"dance", "dances"},
    {"jump", "jumps"},     {"walk", "walks"},   {"eat", "eats"},       {"laugh", "laughs"},   {"cry", "cries"},
    {"watch", "watches"},  {"fly", "flies"},    {"hide", "hides"},     {"play", "plays"},     {"rest", "rests"},
    {"sigh", "sighs"},     {"yawn", "yawns"},   {"hum", "hums"},       {"nod", "nods"},       {"wave", "waves"},
    {"snore", "snores"},   {"listen", "listens"}, {"think", "thinks"}, {"work", "works"},     {"read", "reads"},
    {"pray", "prays"},     {"cheer", "cheers"},
}};
enum Verb { purr, bark, sing, run, sleep, swim, smile, wait, shout, dance, jump, walk, eat, laugh, cry, watch,
            fly, hide, play, rest, sigh, yawn, hum, nod, wave, snore, listen, think, work, read, pray, cheer };

// Regular nouns (the plural adds "s"), each with the four verbs it does:
// cats purr, dogs bark. The subject decides the verb's number and its word.
// People take "who", the others "which".
struct Noun {
    const char* word;
    std::array<Verb, 4> verbs;
    bool person = false;
};
const std::array<Noun, 32> kNouns = {{
    {"cat", {purr, sleep, hide, yawn}},      {"dog", {bark, run, play, swim}},
    {"bird", {sing, fly, hide, watch}},      {"horse", {run, jump, eat, rest}},
    {"rabbit", {jump, hide, eat, sleep}},    {"farmer", {work, wait, walk, sigh}, true},
    {"teacher", {read, think, smile, listen}, true}, {"doctor", {listen, work, think, wait}, true},
    {"pilot", {fly, wave, nod, wait}, true},       {"singer", {sing, dance, hum, cheer}, true},
    {"baker", {work, hum, smile, yawn}, true},     {"lawyer", {think, read, shout, sigh}, true},
    {"writer", {read, think, sigh, work}, true},   {"player", {play, run, cheer, jump}, true},
    {"driver", {wait, wave, yawn, shout}, true},   {"nurse", {listen, smile, work, rest}, true},
    {"king", {wave, pray, laugh, shout}, true},    {"queen", {wave, smile, pray, dance}, true},
    {"robot", {work, wait, nod, walk}},      {"donkey", {eat, rest, walk, snore}},
    {"camel", {walk, rest, eat, snore}},     {"parrot", {sing, fly, laugh, watch}},
    {"monkey", {jump, play, laugh, eat}},    {"tiger", {run, hide, watch, swim}},
    {"lion", {sleep, yawn, watch, run}},     {"frog", {jump, swim, hide, sing}},
    {"snake", {hide, watch, rest, swim}},    {"eagle", {fly, watch, cry, rest}},
    {"otter", {swim, play, eat, sleep}},     {"bear", {sleep, eat, snore, swim}},
    {"goat", {jump, eat, cry, walk}},        {"duck", {swim, walk, fly, nod}},
}};
// Clause verbs in the past tense: no number.
const std::array<const char*, 24> kPast = {
    "sat",    "slept",   "waited", "stood",  "hid",    "danced", "rested",  "played", "jumped", "walked", "sang",  "ate",
    "looked", "worked",  "stayed", "sulked", "hopped", "napped", "laughed", "cried",  "paused", "lived",  "dozed", "read"};
const std::array<const char*, 10> kPrep = {"on",     "under", "near",  "behind", "beside",
                                           "beyond", "above", "below", "past",   "around"};
template <size_t N, typename T>
const T& pick(const std::array<T, N>& a, Generator& gen) {
    return a[gen.random() % N];
}

// One sentence, its words drawn from gen in a fixed order.
AgreementSentence draw_sentence(Generator& gen) {
    AgreementSentence s;
    s.plural = gen.random() % 2 == 1;
    const Noun& noun = pick(kNouns, gen);
    const std::string subject = std::string(noun.word) + (s.plural ? "s" : "");
    const bool attractor_plural = gen.random() % 2 == 1;
    const std::string attractor = std::string(pick(kNouns, gen).word) + (attractor_plural ? "s" : "");
    const char* past = pick(kPast, gen);
    const char* prep = pick(kPrep, gen);
    const auto& verb = kVerbs[pick(noun.verbs, gen)];
    s.prefix = "The " + subject + (noun.person ? ", who " : ", which ") + past + " " + prep + " the " + attractor + ", ";
    s.verb_correct = verb[s.plural ? 0 : 1];
    s.verb_wrong = verb[s.plural ? 1 : 0];
    s.text = s.prefix + s.verb_correct + ".";
    s.subject_begin = 4;
    s.subject_end = 4 + static_cast<int64_t>(subject.size());
    return s;
}

// The longest word of a list.
template <typename List, typename Word>
size_t longest(const List& list, Word word) {
    size_t n = 0;
    for (const auto& item : list) n = std::max(n, std::strlen(word(item)));
    return n;
}
}  // namespace

int64_t max_corpus_sentences() {
    // "The " subject+s ", which " past " " prep " the " attractor+s ", " verb "." "\n": every part at its longest.
    const size_t noun = longest(kNouns, [](const Noun& n) { return n.word; }) + 1;
    const size_t verb = std::max(longest(kVerbs, [](const auto& v) { return v[0]; }), longest(kVerbs, [](const auto& v) { return v[1]; }));
    const size_t sentence = 4 + noun + 8 + longest(kPast, [](const char* w) { return w; }) + 1 +
                            longest(kPrep, [](const char* w) { return w; }) + 5 + noun + 2 + verb + 2;
    return kMaxElements / static_cast<int64_t>(sentence);
}

std::vector<AgreementSentence> agreement_sentences(int64_t n, uint64_t seed) {
    if (n < 0 || n > kMaxAgreementSentences) {
        throw Error("agreementSentences: expected 0 to " + std::to_string(kMaxAgreementSentences) + " sentences, got " + std::to_string(n));
    }
    Generator gen(seed);
    std::vector<AgreementSentence> out;
    out.reserve(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) out.push_back(draw_sentence(gen));
    return out;
}

std::string agreement_corpus(int64_t n, uint64_t seed) {
    if (n < 0 || n > max_corpus_sentences()) {
        throw Error("agreementCorpus: expected 0 to " + std::to_string(max_corpus_sentences()) + " sentences (a corpus within the " +
                    std::to_string(kMaxElements) + " bytes of a training text), got " + std::to_string(n));
    }
    Generator gen(seed);
    std::string text;
    for (int64_t i = 1; i <= n; ++i) {
        const AgreementSentence s = draw_sentence(gen);
        // Every third sentence drops its clause: "The cats purr."
        text += i % 3 == 0 ? s.prefix.substr(0, static_cast<size_t>(s.subject_end)) + " " + s.verb_correct + "." : s.text;
        text += "\n";
    }
    return text;
}

}  // namespace attn
