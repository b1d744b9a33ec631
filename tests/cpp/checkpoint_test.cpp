// Checkpoints: safetensors files of a model, its vocabulary and a run's state, and
// every way a file can be wrong.
#include "attn/checkpoint.hpp"
#include "attn/trainer.hpp"
#include "fixtures.hpp"
#include "golden.hpp"

#include <algorithm>
#include <cstring>
#include <functional>

using namespace attn;
using namespace fixtures;

namespace {
std::string message_of(const std::string& bytes) {
    try {
        load_checkpoint(bytes);
    } catch (const Error& e) {
        return e.what();
    }
    return "";
}
// The file with its header edited, as another tool would write it: without
// this library's digest (which the edit would no longer match).
std::string with_header(const std::string& original, const std::function<void(nlohmann::json&)>& edit) {
    uint64_t n = 0;
    for (int i = 7; i >= 0; --i) n = (n << 8) | static_cast<unsigned char>(original[static_cast<size_t>(i)]);
    nlohmann::json h = nlohmann::json::parse(original.substr(8, n));
    h["__metadata__"].erase("digest");
    edit(h);
    const std::string text = h.dump();
    std::string out(8, '\0');
    for (int i = 0; i < 8; ++i) out[static_cast<size_t>(i)] = static_cast<char>((text.size() >> (8 * i)) & 0xFF);
    return out + text + original.substr(8 + n);
}
}  // namespace

TEST(Checkpoint, RoundTripsModelVocabularyAndTrainingState) {
    Trainer trainer(tiny(), quick(), text());
    for (int i = 0; i < 3; ++i) trainer.step();
    const Tokenizer& vocab = trainer.data().tokenizer();
    const std::string bytes = save_checkpoint(trainer.model(), vocab, &trainer);
    const Checkpoint ck = load_checkpoint(bytes);
    EXPECT_EQ(ck.tokenizer.pieces(), vocab.pieces());
    const auto a = trainer.model().named_parameters(), b = ck.model.named_parameters();
    ASSERT_EQ(a.size(), b.size());
    for (size_t i = 0; i < a.size(); ++i) {
        EXPECT_EQ(a[i].first, b[i].first);
        EXPECT_TRUE(golden::near(*a[i].second, *b[i].second, 0.0f)) << a[i].first;
    }
    ASSERT_TRUE(ck.training.has_value());
    EXPECT_EQ(ck.training->iter, 3);
    EXPECT_EQ(ck.training->optimizer.steps, 3);
    EXPECT_TRUE(golden::near(ck.training->optimizer.exp_avg_sq[5], trainer.optimizer().exp_avg_sq[5], 0.0f));
    EXPECT_EQ(ck.training->config.batch_size, 4);
    // Same logits from the loaded model; and a resumed trainer carries on.
    EXPECT_TRUE(golden::near(ck.model.forward({1, 2, 3}, 1), trainer.model().forward({1, 2, 3}, 1), 0.0f));
    Checkpoint copy = load_checkpoint(bytes);
    Trainer resumed(std::move(copy.model), std::move(copy.training->optimizer), copy.training->iter, copy.tokenizer,
                    copy.training->config, text());
    EXPECT_EQ(resumed.step().iter, 3);
    // A model-only checkpoint has no training state.
    EXPECT_FALSE(load_checkpoint(save_checkpoint(trainer.model(), vocab)).training.has_value());
}

TEST(Checkpoint, WordTokenizerTrainsSavesAndLoadsBack) {
    TrainConfig t = quick();
    t.tokenizer = TokenizerKind::Word;
    Trainer trainer(tiny(), t, text());
    // " cats", " purr", ",", ... : far fewer tokens than characters.
    EXPECT_EQ(trainer.data().tokenizer().kind(), TokenizerKind::Word);
    EXPECT_LT(trainer.data().train().size() * 3, text().size());
    trainer.step();
    const Checkpoint ck = load_checkpoint(save_checkpoint(trainer.model(), trainer.data().tokenizer(), &trainer));
    EXPECT_EQ(ck.tokenizer.kind(), TokenizerKind::Word);
    EXPECT_EQ(ck.tokenizer.pieces(), trainer.data().tokenizer().pieces());
    EXPECT_EQ(ck.training->config.tokenizer, TokenizerKind::Word);
    EXPECT_EQ(ck.tokenizer.encode("The cats purr."), trainer.data().tokenizer().encode("The cats purr."));
    // A vocabulary of the wrong size for the model is refused when saving.
    EXPECT_THROW(save_checkpoint(trainer.model(), vocab()), Error);
}

TEST(Checkpoint, LayoutIsSafetensors) {
    const GPT model(tiny());
    const std::string bytes = save_checkpoint(model, vocab());
    uint64_t n = 0;
    for (int i = 7; i >= 0; --i) n = (n << 8) | static_cast<unsigned char>(bytes[static_cast<size_t>(i)]);
    EXPECT_EQ((8 + n) % 8, 0u);  // data aligned to 8 bytes
    const auto header = nlohmann::json::parse(bytes.substr(8, n));
    const auto& wte = header.at("transformer.wte.weight");
    EXPECT_EQ(wte.at("dtype"), "F32");
    EXPECT_EQ(wte.at("data_offsets")[0], 0);
    EXPECT_TRUE(header.at("__metadata__").at("config").is_string());
    uint64_t covered = 0;
    for (const auto& [name, e] : header.items())
        if (name != "__metadata__") covered += e.at("data_offsets")[1].get<uint64_t>() - e.at("data_offsets")[0].get<uint64_t>();
    EXPECT_EQ(8 + n + covered, bytes.size());  // the tensors cover the data exactly
    EXPECT_FALSE(header.contains("lm_head.weight"));  // tied: stored once, as nanoGPT's wte
}

TEST(Checkpoint, NonFiniteValuesAreNeverWritten) {
    GPT model(tiny());
    model.h[1].attn_c_proj_weight[7] = NAN;
    try {
        save_checkpoint(model, vocab());
        ADD_FAILURE() << "a NaN weight was written";
    } catch (const Error& e) {
        EXPECT_EQ(std::string(e.what()),
                  "saveCheckpoint: tensor \"transformer.h.1.attn.c_proj.weight\" holds a non-finite value; a checkpoint "
                  "of it could not be loaded");
    }
}

TEST(Checkpoint, DigestRefusesEveryFlippedByteThatWouldChangeTheModel) {
    // Regression: 4,367 of 5,000 random byte flips loaded with silently
    // changed weights, and 36 of 2,000 header flips with a changed vocabulary.
    const std::string good = save_checkpoint(GPT(tiny()), vocab());
    const Checkpoint original = load_checkpoint(good);
    EXPECT_TRUE(original.verified);
    Generator gen(11);
    int weight_flips = 0, weight_flips_refused_as_damaged = 0;
    for (int trial = 0; trial < 3000; ++trial) {
        std::string b = good;
        // Half the flips in the header (vocabulary, config, offsets), half in the weights.
        const size_t header_end = 8 + (static_cast<unsigned char>(good[0]) | static_cast<unsigned char>(good[1]) << 8);
        const size_t at = trial % 2 ? 8 + gen.random() % (header_end - 8) : header_end + gen.random() % (good.size() - header_end);
        const auto flip = static_cast<char>(1 + gen.random() % 255);
        b[at] = static_cast<char>(b[at] ^ flip);
        try {
            const Checkpoint ck = load_checkpoint(b);
            // Only a flip that changes nothing the file means may load (e.g. in the header's padding).
            EXPECT_EQ(ck.tokenizer.pieces(), original.tokenizer.pieces()) << "byte " << at;
            const auto x = ck.model.named_parameters(), y = original.model.named_parameters();
            for (size_t i = 0; i < x.size(); ++i) EXPECT_TRUE(golden::near(*x[i].second, *y[i].second, 0.0f)) << "byte " << at;
        } catch (const Error& e) {
            // A header flip may break the JSON or the length field before the digest is read.
            weight_flips_refused_as_damaged +=
                at >= header_end && std::string(e.what()) == "loadCheckpoint: the file is damaged: its digest does not match its contents";
        }
        weight_flips += at >= header_end;
    }
    EXPECT_EQ(weight_flips_refused_as_damaged, weight_flips);
}

TEST(Checkpoint, FilesWithoutADigestStillLoadUnverified) {
    const std::string good = save_checkpoint(GPT(tiny()), vocab());
    const Checkpoint ck = load_checkpoint(with_header(good, [](nlohmann::json&) {}));
    EXPECT_FALSE(ck.verified);
    EXPECT_EQ(message_of(with_header(good, [](nlohmann::json& h) { h["__metadata__"]["digest"] = "sha1:abc"; })),
              "loadCheckpoint: __metadata__.digest \"sha1:abc\" is not an xxh3-128: digest");
}

TEST(Checkpoint, FilesOfVersion01ReadTheirOldFieldNames) {
    // 0.1 wrote the feed-forward width as "d_ff" and the schedule switch as
    // "cosine", and kept the optimizer's step count inside train_config.
    Trainer trainer(tiny(), quick(), text());
    trainer.step();
    const std::string bytes = save_checkpoint(trainer.model(), trainer.data().tokenizer(), &trainer);
    const std::string old = with_header(bytes, [](nlohmann::json& h) {
        auto c = nlohmann::json::parse(h["__metadata__"]["config"].get<std::string>());
        c["d_ff"] = c["n_inner"];
        c.erase("n_inner");
        h["__metadata__"]["config"] = c.dump();
        auto t = nlohmann::json::parse(h["__metadata__"]["train_config"].get<std::string>());
        t["cosine"] = false;
        t.erase("decay_lr");
        t["optimizer_steps"] = 1;
        h["__metadata__"].erase("optimizer_steps");
        h["__metadata__"]["train_config"] = t.dump();
    });
    const Checkpoint ck = load_checkpoint(old);
    EXPECT_EQ(ck.model.config().n_inner, trainer.model().config().n_inner);
    EXPECT_FALSE(ck.training->config.lr.decay_lr);
    EXPECT_EQ(ck.training->optimizer.steps, 1);
}

TEST(Checkpoint, CorruptFilesAreClearErrors) {
    const std::string good = save_checkpoint(GPT(tiny()), vocab());
    ASSERT_NO_THROW(load_checkpoint(good));
    EXPECT_EQ(message_of("abc"), "loadCheckpoint: a file of 3 bytes is too short for a safetensors header");
    std::string huge = good;
    huge[7] = '\x7f';
    EXPECT_NE(message_of(huge).find("exceeds the file"), std::string::npos);
    EXPECT_EQ(message_of(good.substr(0, good.size() / 2)), "loadCheckpoint: the file is damaged: its digest does not match its contents");
    const std::string unsigned_file = with_header(good, [](nlohmann::json&) {});  // as another tool writes it
    EXPECT_NE(message_of(unsigned_file.substr(0, good.size() / 2)).find("(truncated or damaged)"), std::string::npos);  // truncated data
    std::string bad_json = good;
    bad_json[8] = '#';  // the header's opening brace
    EXPECT_EQ(message_of(bad_json), "loadCheckpoint: the header is not valid JSON");
    EXPECT_NE(message_of(with_header(good, [](nlohmann::json& h) {  // F16 of the same bytes: twice the elements
                  h["transformer.wpe.weight"]["dtype"] = "F16";
                  h["transformer.wpe.weight"]["shape"][0] = h["transformer.wpe.weight"]["shape"][0].get<int64_t>() * 2;
              })).find("has dtype \"F16\", expected \"F32\""),
              std::string::npos);
    EXPECT_NE(message_of(with_header(good, [](nlohmann::json& h) { h["transformer.wpe.weight"]["shape"] = {4, 4}; })).find("(truncated or damaged)"),
              std::string::npos);
    EXPECT_NE(message_of(with_header(good, [](nlohmann::json& h) {
                  h["transformer.wpe.weight"]["data_offsets"] = h["transformer.wte.weight"]["data_offsets"];
                  h["transformer.wpe.weight"]["shape"] = h["transformer.wte.weight"]["shape"];
              })).find("overlap"),
              std::string::npos);
    EXPECT_NE(message_of(with_header(good, [](nlohmann::json& h) { h.erase("transformer.ln_f.weight"); })).find("is missing"),
              std::string::npos);
    EXPECT_NE(message_of(with_header(good, [](nlohmann::json& h) {
                  auto c = nlohmann::json::parse(h["__metadata__"]["config"].get<std::string>());
                  c["n_embd"] = 15;
                  h["__metadata__"]["config"] = c.dump();
              })).find("divisible"),
              std::string::npos);
    EXPECT_NE(message_of(with_header(good, [](nlohmann::json& h) { h["__metadata__"]["vocabulary"] = "ba"; })).find("vocabulary"),
              std::string::npos);
    EXPECT_EQ(message_of(with_header(good, [](nlohmann::json& h) { h["__metadata__"]["tokenizer"] = "bpe"; })),
              "loadCheckpoint: __metadata__.tokenizer is \"bpe\", expected \"char\" or \"word\"");
    EXPECT_EQ(message_of(with_header(good, [](nlohmann::json& h) { h["__metadata__"]["tokenizer"] = "word"; })),
              "loadCheckpoint: __metadata__.vocabulary must hold 36 distinct words (a JSON array of strings) in sorted order");
    // Checkpoints written before word tokenizers carry no "tokenizer": characters.
    EXPECT_EQ(load_checkpoint(with_header(good, [](nlohmann::json& h) { h["__metadata__"].erase("tokenizer"); })).tokenizer.kind(),
              TokenizerKind::Char);
    EXPECT_NE(message_of(with_header(good, [](nlohmann::json& h) { h["__metadata__"].erase("config"); })).find("config"),
              std::string::npos);
    std::string nan = unsigned_file;
    const uint64_t n = static_cast<unsigned char>(nan[0]) | (static_cast<uint64_t>(static_cast<unsigned char>(nan[1])) << 8) |
                       (static_cast<uint64_t>(static_cast<unsigned char>(nan[2])) << 16);
    const float bad = std::nanf("");
    std::memcpy(&nan[8 + n], &bad, 4);
    EXPECT_NE(message_of(nan).find("non-finite"), std::string::npos);
}

TEST(Checkpoint, EveryTruncationAndRandomByteFlipsFailCleanly) {
    const std::string good = save_checkpoint(GPT(tiny()), vocab());
    // A truncated file is a FormatError: the bindings tell an app "this file is bad" (ERR_ATTN_INVALID_FILE)
    // from "this call was wrong" by that type.
    for (size_t len = 0; len < good.size(); len += 7) EXPECT_THROW(load_checkpoint(good.substr(0, len)), FormatError) << len;
    Generator gen(5);
    for (int trial = 0; trial < 300; ++trial) {
        std::string b = good;
        for (int k = 0; k < 3; ++k) b[gen.random() % std::min<size_t>(b.size(), 600)] = static_cast<char>(gen.random());
        try {
            load_checkpoint(b);  // a flip inside float data may still load
        } catch (const Error&) {
        }
    }
}

namespace {
// A safetensors file of the given header text and no data, as an attacker writes one.
std::string raw_file(const std::string& header) {
    std::string out(8, '\0');
    for (int i = 0; i < 8; ++i) out[static_cast<size_t>(i)] = static_cast<char>((header.size() >> (8 * i)) & 0xFF);
    return out + header;
}
std::string nested(size_t depth) { return std::string(depth, '[') + std::string(depth, ']'); }
}  // namespace

// A header or a config nesting 10^5 levels overflowed nlohmann's recursive parser: a segfault natively (exit 139
// from attn-train), an unnamed RangeError leaking ~44 MiB a try in WASM.
TEST(Checkpoint, DeepJsonIsRefusedBeforeParsingNotAStackOverflow) {
    EXPECT_EQ(message_of(raw_file("{\"__metadata__\": {}, \"x\": " + nested(100000) + "}")),
              "loadCheckpoint: the header nests deeper than 32 levels of arrays and objects (not a file this library writes)");
    const std::string good = save_checkpoint(GPT(tiny()), vocab());
    EXPECT_EQ(message_of(with_header(good, [](nlohmann::json& h) { h["__metadata__"]["config"] = nested(100000); })),
              "loadCheckpoint: __metadata__.config nests deeper than 32 levels of arrays and objects (not a file this library writes)");
    const Trainer run(tiny(), quick(), text());
    const std::string resumable = save_checkpoint(run.model(), run.data().tokenizer(), &run);
    EXPECT_EQ(message_of(with_header(resumable, [](nlohmann::json& h) { h["__metadata__"]["iter"] = nested(100000); })),
              "loadCheckpoint: __metadata__.iter nests deeper than 32 levels of arrays and objects (not a file this library writes)");
    // Brackets inside strings are text, not nesting: a vocabulary of brackets loads.
    const Tokenizer brackets(TokenizerKind::Word, std::string(100, '[') + " x");
    EXPECT_EQ(Tokenizer::from_vocabulary(TokenizerKind::Word, brackets.vocabulary(), "test").vocab_size(), brackets.vocab_size());
    EXPECT_EQ(error_of([] { Tokenizer::from_vocabulary(TokenizerKind::Word, nested(100000), "Tokenizer.fromVocabulary"); }),
              "Tokenizer.fromVocabulary: the vocabulary nests deeper than 32 levels of arrays and objects (not a file this library writes)");
    EXPECT_EQ(error_of([] { gpt_config_from_json(nested(100000), Naming::Camel, "GPT"); }),
              "GPT: the config nests deeper than 32 levels of arrays and objects (not a file this library writes)");
}

// __metadata__.iter = 18446744073709551615 was read as -1: a resumed run restarted its warm-up there, with the
// optimizer's state of a later step.
TEST(Checkpoint, AnIterOf2To64Minus1WrappedToMinusOne) {
    const Trainer run(tiny(), quick(), text());
    const std::string resumable = save_checkpoint(run.model(), run.data().tokenizer(), &run);
    for (const char* key : {"iter", "optimizer_steps"}) {
        for (const char* value : {"18446744073709551615", "9007199254740992", "-1", "1.5"}) {
            EXPECT_EQ(message_of(with_header(resumable, [&](nlohmann::json& h) { h["__metadata__"][key] = value; })),
                      std::string("loadCheckpoint: __metadata__.") + key + " must be an integer from 0 to 9007199254740991, got " + value)
                << key << " = " << value;
        }
    }
    EXPECT_EQ(load_checkpoint(with_header(resumable, [](nlohmann::json& h) { h["__metadata__"]["iter"] = "9007199254740991"; })).training->iter,
              int64_t{9007199254740991});
}

// A 448-byte file whose config meant 231 M parameters made the module allocate them (WASM memory grew to 886 MiB
// for good) before saying a tensor was missing; now the config is weighed against the file's data first.
TEST(Checkpoint, AHugeConfigInASmallFileIsRefusedBeforeAllocating) {
    const std::string good = save_checkpoint(GPT(tiny()), vocab());
    const std::string bomb = with_header(good, [](nlohmann::json& h) {
        GPTConfig c = tiny();
        c.n_embd = 4096;
        c.n_inner = 4 * 4096;
        c.n_layer = 1;
        h["__metadata__"]["config"] = to_json(c);
    });
    const std::string message = message_of(bomb);
    EXPECT_EQ(message.rfind("loadCheckpoint: its config describes a model of at least ", 0), 0u) << message;
    EXPECT_NE(message.find("but the file holds"), std::string::npos) << message;
    // A vocabulary of the wrong size is refused before the model is allocated, too (it used to come after).
    GPTConfig wider = tiny();
    wider.vocab_size = 37;
    EXPECT_EQ(message_of(with_header(good, [&](nlohmann::json& h) { h["__metadata__"]["config"] = to_json(wider); })),
              "loadCheckpoint: __metadata__.vocabulary must hold 37 distinct characters in sorted order");
}

// The digest covered the parsed header, not its bytes: a header listing a key twice (two "format"s, a tensor twice)
// loaded as verified, and another parser could read such a file differently.
TEST(Checkpoint, DuplicateKeysAndReSpelledSignedHeadersAreRefused) {
    EXPECT_EQ(message_of(raw_file(R"({"__metadata__": {"format": "attention-step-by-step", "format": "other"}})")),
              "loadCheckpoint: the header holds the key \"format\" twice in one object");
    const std::string good = save_checkpoint(GPT(tiny()), vocab());
    uint64_t n = 0;
    for (int i = 7; i >= 0; --i) n = (n << 8) | static_cast<unsigned char>(good[static_cast<size_t>(i)]);
    std::string text = good.substr(8, n);
    const std::string data = good.substr(8 + n);
    // The same JSON spelled with one more space, its digest unchanged: it no longer is what the digest covers.
    std::string spaced = text;
    spaced.insert(spaced.find(",\""), " ", 1);
    EXPECT_EQ(message_of(raw_file(spaced) + data),
              "loadCheckpoint: the header is not in the form its digest covers (edited by hand, or by another tool)");
    // A tensor listed twice, signed or not.
    const size_t wpe = text.find("\"transformer.wpe.weight\":");
    ASSERT_NE(wpe, std::string::npos);
    const size_t end = text.find('}', wpe) + 1;
    std::string twice = text;
    twice.insert(end, "," + text.substr(wpe, end - wpe));
    EXPECT_EQ(message_of(raw_file(twice) + data), "loadCheckpoint: the header holds the key \"transformer.wpe.weight\" twice in one object");
    // Padding spaces after the header are part of the format, and the file still loads.
    EXPECT_NO_THROW(load_checkpoint(good));
    EXPECT_TRUE(load_checkpoint(good).verified);
}

// 57 MB of "0," in a header cost 1 GB of memory natively (a parsed JSON value is 16 to ~100 bytes) before the
// loader could see it was not a checkpoint. Values are counted in a pass that builds nothing, and tensors too.
TEST(Checkpoint, AHeaderOfMillionsOfValuesIsRefusedBeforeItIsParsed) {
    std::string zeros;
    for (int i = 0; i < (1 << 20); ++i) zeros += "0,";
    EXPECT_EQ(message_of(raw_file("{\"__metadata__\": {}, \"x\": [" + zeros + "0]}")),
              "loadCheckpoint: the header holds more than 1048576 values (arrays, objects, keys and scalars; not a file "
              "this library writes)");
    std::string tensors = "{\"__metadata__\": {}";
    for (int i = 0; i <= kMaxTensors; ++i) tensors += ",\"t" + std::to_string(i) + "\":0";
    EXPECT_EQ(message_of(raw_file(tensors + "}")), "loadCheckpoint: the header lists 65538 entries, more than the limit of 65536 tensors");
    EXPECT_EQ(error_of([&] { Tokenizer::from_vocabulary(TokenizerKind::Word, "[" + zeros + "0]", "Tokenizer.fromVocabulary"); }),
              "Tokenizer.fromVocabulary: the vocabulary holds more than 1048576 values (arrays, objects, keys and scalars; "
              "not a file this library writes)");
}
