#!/usr/bin/env bash
# Trains the induction-head model the package ships (web/lib/models/induction.safetensors) and the snapshots
# of its training the site replays (web/site/public/induction/step-NNNNN.safetensors): attn-train's
# induction recipe (config.hpp: GPTConfig::induction, TrainConfig::induction) on random sequences of 32
# letters with a segment repeated, by the project's own native tool. The snapshots crowd around the phase
# change (steps ~350–550, docs/induction.md). Deterministic for a given core count; about half a minute.
set -euo pipefail
cd "$(dirname "$0")/.."
bash tools/build.sh native >/dev/null
work=build/induction-model
snapshots=web/site/public/induction
mkdir -p "$work" web/lib/models "$snapshots"
rm -f "$snapshots"/step-*.safetensors
printf 'abcdefghijklmnopqrstuvwxyzABCDEF' > "$work/alphabet.txt"
build/native/attn-train train --recipe induction --data "$work/alphabet.txt" --out "$work/training.safetensors" \
  --max-iters 1500 --eval-interval 100 --eval-iters 10 --log-interval 0 --seed 1337 \
  --snapshots 0,100,200,250,300,350,400,450,500,550,600,700,800,1000,1200,1500 --snapshot-dir "$snapshots"
build/native/attn-train export --checkpoint "$work/training.safetensors" --out web/lib/models/induction.safetensors
# The list the site reads: the steps, from the files written.
steps=$(ls "$snapshots" | sed -n 's/^step-0*\([0-9][0-9]*\)\.safetensors$/\1/p' | sort -n | paste -sd, -)
printf '{"steps":[%s]}\n' "$steps" > "$snapshots/index.json"
