#!/usr/bin/env bash
# Trains the model the site and the package ship (web/lib/models/agreement.safetensors):
# the synthetic subject–verb agreement corpus in word tokens, a 2-layer, 4-head
# model, trained by the project's own native tool. About a minute. The shipped file was
# trained on 2 cores before a training step was cut into micro-batches (trainer.hpp:
# micro_batches); a run now gives the same bytes on any core count, but not that file's:
# the gradients are summed in another order, and 4,000 steps grow the last bits apart.
set -euo pipefail
cd "$(dirname "$0")/.."
bash tools/build.sh native >/dev/null
work=build/default-model
mkdir -p "$work" web/lib/models
build/native/attn-train corpus --out "$work/corpus.txt" --sentences 30000 --seed 1337
build/native/attn-train train --data "$work/corpus.txt" --out "$work/training.safetensors" \
  --tokenizer word --n-layer 2 --n-head 4 --n-embd 64 --block-size 32 --batch-size 32 --max-iters 4000 \
  --learning-rate 3e-3 --min-lr 3e-4 --warmup-iters 100 --lr-decay-iters 4000 \
  --eval-interval 1000 --eval-iters 20 --final-eval-iters 50 --log-interval 500 --seed 1337
build/native/attn-train export --checkpoint "$work/training.safetensors" --out web/lib/models/agreement.safetensors
build/native/attn-train probe --checkpoint web/lib/models/agreement.safetensors --sentences 1000 --seed 4242
