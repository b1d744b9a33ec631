#!/usr/bin/env bash
# nanoGPT's train_shakespeare_char at its laptop-CPU settings, with the native
# tool: 4 layers, 4 heads, n_embd 128, block 64, batch 12, dropout 0, 2000
# iterations, lr 1e-3 cosine to 1e-4 (100 warm-up), AdamW beta2 0.99, weight
# decay 0.1, grad clip 1.0, GELU, pre-norm, tied embeddings, no biases.
# Evaluates on 20 batches every 250 steps and on 200 batches at the end.
#   bash bench/train-shakespeare.sh path/to/tinyshakespeare.txt
set -euo pipefail
cd "$(dirname "$0")/.."
data=${1:?usage: bench/train-shakespeare.sh TEXT_FILE}
bash tools/build.sh native >/dev/null
mkdir -p build/bench
/usr/bin/time -f "wall %e s, user %U s" build/native/attn-train train --data "$data" --out build/bench/shakespeare.safetensors \
  --n-layer 4 --n-head 4 --n-embd 128 --block-size 64 --batch-size 12 --dropout 0 \
  --max-iters 2000 --learning-rate 1e-3 --min-lr 1e-4 --warmup-iters 100 --lr-decay-iters 2000 \
  --beta2 0.99 --weight-decay 0.1 --grad-clip 1.0 \
  --eval-interval 250 --eval-iters 20 --final-eval-iters 200 --log-interval 250 --seed 1337
