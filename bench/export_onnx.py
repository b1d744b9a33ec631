"""The ONNX graphs onnxruntime-web runs in `npm run bench` (bench/run.mjs), exported
from PyTorch modules that compute exactly what this library computes:

  attention_full.onnx    softmax(q kᵀ / √d) v            q, k, v (T, 64); T dynamic
  attention_causal.onnx  the same with an additive mask   + bias (T, T): 0 or -inf, built once by the caller
  mha.onnx               notebook 001's MultiHeadAttention, d_model 128, 4 heads, seed 0   x (1, T, 128)
  linear_N.onnx          y = x Wᵀ, W (N, N) of seed 0     x (N, N), for N in 64 … 1024
  gpt.onnx               nanoGPT's GPT 4 layers, 4 heads, n_embd 128, vocab 65, block 64, seed 0   ids (12, 64)

Each module is built after torch.manual_seed(0), as the benchmark builds this
library's, so the outputs can be compared as well as timed.

  /usr/bin/python3 bench/export_onnx.py OUT_DIR
"""
import math
import pathlib
import sys

import torch
import torch.nn as nn

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent / "tools"))
from torch_reference import NanoGPT, NotebookMultiHeadAttention  # noqa: E402

OPSET = 17
D = 64
GPT = dict(vocab_size=65, block_size=64, n_layer=4, n_head=4, n_embd=128, bias=False, tie=True)
GPT_BATCH = (12, 64)
MHA = dict(d_model=128, num_heads=4)
LINEAR_SIZES = (64, 128, 256, 512, 1024)


class FullAttention(nn.Module):
    def forward(self, q, k, v):
        return torch.softmax(q @ k.transpose(0, 1) * (1.0 / math.sqrt(D)), dim=-1) @ v


class BiasedAttention(nn.Module):
    def forward(self, q, k, v, bias):
        return torch.softmax(q @ k.transpose(0, 1) * (1.0 / math.sqrt(D)) + bias, dim=-1) @ v


class MhaOutput(nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.mha = NotebookMultiHeadAttention(**MHA)

    def forward(self, x):
        return self.mha(x)[0]


class Projection(nn.Module):
    def __init__(self, n):
        super().__init__()
        torch.manual_seed(0)
        self.linear = nn.Linear(n, n, bias=False)

    def forward(self, x):
        return self.linear(x)


class GptLogits(nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.gpt = NanoGPT(**GPT)

    def forward(self, ids):
        return self.gpt(ids)[0]


def export(module, args, path, names, dynamic=None):
    module.eval()
    with torch.no_grad():
        torch.onnx.export(module, args, str(path), opset_version=OPSET, input_names=names, output_names=["y"],
                          dynamic_axes=dynamic or {})


def main():
    out = pathlib.Path(sys.argv[1])
    out.mkdir(parents=True, exist_ok=True)
    t = {0: "T"}
    q = torch.randn(8, D)
    export(FullAttention(), (q, q, q), out / "attention_full.onnx", ["q", "k", "v"], {"q": t, "k": t, "v": t})
    export(BiasedAttention(), (q, q, q, torch.zeros(8, 8)), out / "attention_causal.onnx", ["q", "k", "v", "bias"],
           {"q": t, "k": t, "v": t, "bias": {0: "T", 1: "T"}})
    export(MhaOutput(), (torch.randn(1, 8, MHA["d_model"]),), out / "mha.onnx", ["x"], {"x": {1: "T"}})
    for n in LINEAR_SIZES:
        export(Projection(n), (torch.randn(n, n),), out / f"linear_{n}.onnx", ["x"])
    export(GptLogits(), (torch.zeros(GPT_BATCH, dtype=torch.int64),), out / "gpt.onnx", ["ids"])
    print(f"bench: ONNX graphs written to {out}")


if __name__ == "__main__":
    main()
