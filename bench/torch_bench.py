"""The PyTorch anchor of `npm run bench` (bench/run.mjs): the same cases in
PyTorch on the CPU, on one thread unless --threads says more, with the modules
tests/golden is made from. Prints one JSON object, case name -> median
milliseconds, and under "_blas" the BLAS library the process loaded (Debian's
PyTorch calls whichever libblas.so.3 the system's alternatives point to).

  /usr/bin/python3 bench/torch_bench.py [--quick] [--threads N] TEXT_FILE
"""
import json
import math
import pathlib
import statistics
import sys
import time

import torch
import torch.nn as nn
import torch.nn.functional as F

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent / "tools"))
from torch_reference import NanoGPT, NotebookMultiHeadAttention  # noqa: E402



def median_ms(f, rounds):
    f()
    reps = 1
    while True:
        t0 = time.perf_counter()
        for _ in range(reps):
            f()
        if time.perf_counter() - t0 > 0.02 or reps > 1 << 16:
            break
        reps *= 2
    times = []
    for _ in range(rounds):
        t0 = time.perf_counter()
        for _ in range(reps):
            f()
        times.append((time.perf_counter() - t0) * 1000 / reps)
    return statistics.median(times)


def attention(q, k, v, bias):
    s = q @ k.transpose(0, 1) * (1.0 / math.sqrt(q.shape[-1]))
    return torch.softmax(s if bias is None else s + bias, dim=-1) @ v


def main():
    args = sys.argv[1:]
    quick = "--quick" in args
    torch.set_num_threads(int(args[args.index("--threads") + 1]) if "--threads" in args else 1)
    text = pathlib.Path(args[-1]).read_text()
    rounds = 3 if quick else 7
    out = {}
    with torch.no_grad():
        for T in ([256, 1024] if quick else [64, 256, 1024, 4096]):
            torch.manual_seed(0)
            q, k, v = torch.randn(T, 64), torch.randn(T, 64), torch.randn(T, 64)
            bias = torch.full((T, T), float("-inf")).triu(1)
            out[f"attention/full/{T}"] = median_ms(lambda: attention(q, k, v, None), rounds)
            out[f"attention/causal/{T}"] = median_ms(lambda: attention(q, k, v, bias), rounds)
        for T in (256, 1024):
            torch.manual_seed(0)
            mha = NotebookMultiHeadAttention(128, 4)
            x = torch.randn(1, T, 128)
            out[f"mha/{T}"] = median_ms(lambda: mha(x), rounds)
        for n in (64, 128, 256, 512, 1024):
            torch.manual_seed(0)
            linear = nn.Linear(n, n, bias=False)
            x = torch.randn(n, n)
            out[f"linear/{n}"] = median_ms(lambda: linear(x), rounds)
        torch.manual_seed(0)
        gpt = NanoGPT(vocab_size=65, block_size=64, n_layer=4, n_head=4, n_embd=128, bias=False, tie=True).eval()
        ids = (torch.arange(12 * 64) * 7 % 65).view(12, 64)
        out["gpt/forward"] = median_ms(lambda: gpt(ids), rounds)

        def generate():  # nanoGPT's generate, greedy: the whole context again for each token (no KV cache)
            idx = torch.zeros(1, 1, dtype=torch.long)
            for _ in range(63):
                logits = gpt(idx)[0][:, -1, :]
                idx = torch.cat([idx, logits.argmax(-1, keepdim=True)], dim=1)
        out["gpt/generate-token"] = median_ms(generate, rounds) / 63

    chars = sorted(set(text))
    data = torch.tensor([chars.index(c) for c in text])
    torch.manual_seed(0)
    model = NanoGPT(vocab_size=len(chars), block_size=64, n_layer=4, n_head=4, n_embd=128, bias=False, tie=True)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3, betas=(0.9, 0.99), weight_decay=0.1)

    def step():  # nanoGPT's train.py step: a batch, forward, backward, clip, AdamW
        ix = torch.randint(len(data) - 64, (12,))
        x = torch.stack([data[i:i + 64] for i in ix])
        y = torch.stack([data[i + 1:i + 65] for i in ix])
        _, loss = model(x, y)
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
    out["gpt/train-step"] = median_ms(step, rounds)
    out["_blas"] = loaded_blas()
    print(json.dumps(out))


def loaded_blas():
    """The BLAS shared library this process has mapped, as its real file name (e.g. libopenblasp-r0.3.21.so)."""
    for line in pathlib.Path("/proc/self/maps").read_text().splitlines():
        path = line.split()[-1]
        if "blas" in path and ".so" in path:
            return pathlib.Path(path).resolve().name
    return "unknown"


if __name__ == "__main__":
    main()
