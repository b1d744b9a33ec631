#!/usr/bin/env python3
"""Golden numbers from real PyTorch, for the tests in C++, Node and the browser.

Run with Debian's python3-torch (1.13) as /usr/bin/python3: `npm run golden`
rewrites tests/golden/*.json; `--check` recomputes everything and exits 1 if
a committed file differs (npm test runs it when PyTorch is installed).

  notebooks.json  every tensor notebooks 000 and 002 print, recomputed from
                  their own code, beside the printed (4-decimal) values: the
                  transcription is checked against PyTorch
  torch_rng.json  PyTorch's random numbers for a few seeds and calls
  modules.json    nn.Linear, nn.Embedding, nn.LayerNorm; scaled dot-product
                  attention with masks; notebook 001's MultiHeadAttention
                  with its masks; nn.MultiheadAttention with attn_mask shapes
                  and key padding
  models.json     notebook 001's SimpleLanguageModel; a nanoGPT GPT's
                  parameters, logits, loss and the gradient of every
                  parameter; five steps of nanoGPT's train.py; sampled ids
  llama_layers.json  the layers today's decoders (Llama, Mistral, Qwen,
                  Gemma) add to GPT-2's: rotary position embeddings with and
                  without llama3 scaling, RMSNorm and Gemma's (1 + w) form,
                  the gated MLP activations; each with its gradients

Everything runs on one CPU thread, so the numbers do not depend on the machine.
The models here are written from the notebooks and nanoGPT's description, in
PyTorch's own modules, independently of the C++ library.
"""
import json
import math
import os
import sys
from pathlib import Path

# The golden numbers are PyTorch's on Debian's reference BLAS and LAPACK, what `npm test` installs. Debian's
# PyTorch calls whichever libblas.so.3 the system prefers, and once OpenBLAS is installed (`npm run bench`
# installs it) that is OpenBLAS, which sums in another order: the last printed digits move and the check
# fails on a machine that ran the benchmark. So this script runs on the reference libraries, whichever the
# system prefers, by putting their folders first in the loader's path and starting again.
REFERENCE_LIBRARIES = ["/usr/lib/x86_64-linux-gnu/blas", "/usr/lib/x86_64-linux-gnu/lapack"]
if __name__ == "__main__" and all(os.path.isdir(d) for d in REFERENCE_LIBRARIES):  # not when imported (the bench)
    path = os.environ.get("LD_LIBRARY_PATH", "")
    if path.split(":")[:2] != REFERENCE_LIBRARIES:
        os.environ["LD_LIBRARY_PATH"] = ":".join(REFERENCE_LIBRARIES + ([path] if path else []))
        os.execv(sys.executable, [sys.executable] + sys.argv)

import numpy  # noqa: E402
import torch  # noqa: E402
import torch.nn as nn  # noqa: E402
import torch.nn.functional as F  # noqa: E402

from torch_reference import (  # noqa: E402  the modules the golden numbers are computed with
    NanoGPT, NotebookMultiHeadAttention, SelfAttentionV1, SelfAttentionV2, SimpleLanguageModel, get_lr,
)
from llama_reference import (  # noqa: E402  today's decoders' layers, as Hugging Face computes them
    repeat_kv, rope_cos_sin, rope_inv_freq, rotate_half, sliding_window_visible,
)

torch.set_num_threads(1)
GOLDEN = Path(__file__).resolve().parent.parent / "tests" / "golden"


class F32(float):
    """A float32 value, written as the shortest decimal that reads back as the same float32."""

    def __repr__(self):
        return str(numpy.float32(self))


def t(x):
    """A tensor as JSON: its shape and its float32 values, exactly."""
    x = torch.as_tensor(x).detach()
    return {"shape": list(x.shape), "data": [F32(v) for v in x.float().flatten().tolist()]}


def dumps(value, indent=""):
    """JSON with one key per line and every list of numbers on one line (readable diffs, small files)."""
    if isinstance(value, dict):
        inner = indent + " "
        items = [f"{inner}{json.dumps(k)}: {dumps(v, inner)}" for k, v in value.items()]
        return "{\n" + ",\n".join(items) + "\n" + indent + "}" if items else "{}"
    if isinstance(value, list) and any(isinstance(v, (list, dict)) for v in value):
        inner = indent + " "
        return "[\n" + ",\n".join(inner + dumps(v, inner) for v in value) + "\n" + indent + "]"
    if isinstance(value, list):
        return "[" + ", ".join(dumps(v) for v in value) + "]"
    if isinstance(value, F32):
        return repr(value)
    return json.dumps(value, ensure_ascii=False)


def ints(x):
    x = torch.as_tensor(x)
    return {"shape": list(x.shape), "data": [int(v) for v in x.flatten().tolist()]}


# ---- notebooks 000 and 002 -------------------------------------------------------

INPUTS = [[0.43, 0.15, 0.89], [0.55, 0.87, 0.66], [0.57, 0.85, 0.64],
          [0.22, 0.58, 0.33], [0.77, 0.25, 0.10], [0.05, 0.80, 0.55]]


def notebooks():
    out = {}
    inputs = torch.tensor(INPUTS)
    query = inputs[1]
    scores_2 = torch.empty(6)
    for i, x_i in enumerate(inputs):
        scores_2[i] = torch.dot(query, x_i)
    weights_2 = torch.softmax(scores_2, dim=0)
    context_2 = torch.zeros(3)
    for i, x_i in enumerate(inputs):
        context_2 += weights_2[i] * x_i
    scores = inputs @ inputs.T
    weights = torch.softmax(scores, dim=-1)
    out.update({
        "nb000.inputs": ("000 In [116]", inputs),
        "nb000.attn_scores_2": ("000 In [111]", scores_2),
        "nb000.attn_weights_2_tmp": ("000 In [112]", scores_2 / scores_2.sum()),
        "nb000.attn_weights_2_naive": ("000 In [113]", torch.exp(scores_2) / torch.exp(scores_2).sum(dim=0)),
        "nb000.attn_weights_2": ("000 In [114]", weights_2),
        "nb000.context_vec_2": ("000 In [115]", context_2),
        "nb000.attn_scores": ("000 In [118]", scores),
        "nb000.attn_weights": ("000 In [119]", weights),
        "nb000.all_context_vector": ("000 In [121]", weights @ inputs),
    })
    torch.manual_seed(123)
    W_query, W_key, W_value = torch.rand(3, 2), torch.rand(3, 2), torch.rand(3, 2)
    query_2 = inputs[1] @ W_query
    keys, values = inputs @ W_key, inputs @ W_value
    attn_scores_2 = query_2 @ keys.T
    attn_weights_2 = torch.softmax(attn_scores_2 / keys.shape[-1] ** 0.5, dim=-1)
    torch.manual_seed(123)
    sa_v1 = SelfAttentionV1(3, 2)(inputs)
    torch.manual_seed(789)
    sa_v2 = SelfAttentionV2(3, 2)(inputs)
    out.update({
        "nb000.seed123.W_query": ("000 In [123]", W_query),
        "nb000.seed123.W_value": ("000 In [123]", W_value),
        "nb000.seed123.W_key": ("000 In [126]", W_key),
        "nb000.seed123.query_2": ("000 In [125]", query_2),
        "nb000.seed123.attn_score_22": ("000 In [128]", keys[1].dot(query_2)),
        "nb000.seed123.keys_T": ("000 In [130]", keys.T),
        "nb000.seed123.attn_scores_2": ("000 In [131]", attn_scores_2),
        "nb000.seed123.attn_weights_2": ("000 In [132]", attn_weights_2),
        "nb000.seed123.values": ("000 In [133]", values),
        "nb000.seed123.context_vec_2": ("000 In [135]", attn_weights_2 @ values),
        "nb000.seed123.sa_v1": ("000 In [137]", sa_v1),
        "nb000.seed789.sa_v2": ("000 In [139]", sa_v2),
    })
    # notebook 002 scales by torch.sqrt(torch.tensor(d_k)) instead of d_k ** 0.5
    queries = inputs @ W_query
    nb002_scores = queries @ keys.T
    scaled = nb002_scores / torch.sqrt(torch.tensor(keys.shape[-1]))
    nb002_weights = torch.softmax(scaled, dim=-1)

    class V1(SelfAttentionV1):
        def forward(self, x):
            q, k, v = x @ self.W_query, x @ self.W_key, x @ self.W_value
            return torch.softmax(q @ k.T / torch.sqrt(torch.tensor(k.shape[-1])), dim=-1) @ v

    class V2(SelfAttentionV2):
        def forward(self, x):
            q, k, v = self.W_query(x), self.W_key(x), self.W_value(x)
            return torch.softmax(q @ k.T / torch.sqrt(torch.tensor(k.shape[-1])), dim=-1) @ v

    torch.manual_seed(123)
    v1 = V1(3, 2)(inputs)
    torch.manual_seed(78)
    v2 = V2(3, 2)(inputs)
    out.update({
        "nb002.inputs": ("002 In [402]", inputs),
        "nb002.seed123.W_query": ("002 In [402]", W_query),
        "nb002.seed123.W_key": ("002 In [402]", W_key),
        "nb002.seed123.W_value": ("002 In [402]", W_value),
        "nb002.seed123.query_2": ("002 In [403]", inputs[1] @ W_query),
        "nb002.seed123.key_2": ("002 In [403]", inputs[1] @ W_key),
        "nb002.seed123.value_2": ("002 In [403]", inputs[1] @ W_value),
        "nb002.seed123.queries": ("002 In [404]", queries),
        "nb002.seed123.keys": ("002 In [404]", keys),
        "nb002.seed123.values": ("002 In [404]", values),
        "nb002.seed123.attn_scores_2": ("002 In [405]", queries[1] @ keys.T),
        "nb002.seed123.attn_scores": ("002 In [406]", nb002_scores),
        "nb002.seed123.scaled_attn_scores": ("002 In [407]", scaled),
        "nb002.seed123.attn_weights": ("002 In [408]", nb002_weights),
        "nb002.seed123.context_journey": ("002 In [409]", nb002_weights[1] @ values),
        "nb002.seed123.context_matrix": ("002 In [410]", nb002_weights @ values),
        "nb002.seed123.self_attention_v1": ("002 In [412]", v1),
        "nb002.seed78.self_attention_v2": ("002 In [414]", v2),
    })
    printed = json.loads((GOLDEN / "notebooks.json").read_text())
    result = {"_about": "Every tensor notebooks 000 and 002 print: `data` recomputed by PyTorch from the notebooks' code "
                        "(tools/make_golden.py), `printed` as the notebook printed it (4 decimals), `cell` the cell that "
                        "printed it. Tests compare against `data`; one test checks that `printed` agrees with it."}
    for key, (cell, value) in out.items():
        entry = t(value)
        result[key] = {"cell": cell, "shape": entry["shape"], "data": entry["data"], "printed": printed[key]["printed"]}
    return result


# ---- PyTorch's random numbers -------------------------------------------------------

def torch_rng():
    def seeded(seed, fn):
        torch.manual_seed(seed)
        return fn()

    linear = seeded(42, lambda: nn.Linear(1, 1))
    return {
        "_about": "PyTorch's CPU generator: for each case the seed, the calls made after torch.manual_seed(seed), and "
                  "the values (tools/make_golden.py).",
        "rand_3x2_seed123": {"seed": 123, "call": "rand", **t(seeded(123, lambda: torch.rand(3, 2)))},
        "rand_6_seed1729": {"seed": 1729, "call": "rand", **t(seeded(1729, lambda: torch.rand(6)))},
        "randn_6_seed0": {"seed": 0, "call": "randn", **t(seeded(0, lambda: torch.randn(6)))},
        "randn_6_seed42": {"seed": 42, "call": "randn", **t(seeded(42, lambda: torch.randn(6)))},
        "randn_4x4_seed0": {"seed": 0, "call": "randn", **t(seeded(0, lambda: torch.randn(4, 4)))},
        "randn_20_seed7": {"seed": 7, "call": "randn", **t(seeded(7, lambda: torch.randn(20)))},
        "linear_1x1_seed42": {"seed": 42, "call": "Linear(1, 1)", "weight": t(linear.weight)["data"], "bias": t(linear.bias)["data"]},
        "randint_0_10_5_seed0": {"seed": 0, "call": "randint(0, 10, (5,))", **ints(seeded(0, lambda: torch.randint(0, 10, (5,))))},
        "exponential_after_rand5_seed42": {
            "seed": 42, "call": "rand(5); empty(5).exponential_(1)",
            **t(seeded(42, lambda: (torch.rand(5), torch.empty(5).exponential_(1))[1])),
        },
    }


# ---- modules -------------------------------------------------------------------------------

def attention(q, k, v, mask=None, fill=float("-inf"), causal=False):
    """softmax(Q Kᵀ/√d_k) V with a mask (nonzero = attend): scores, scaled scores, weights, output (and the
    masked scores for a finite fill value)."""
    scores = q @ k.transpose(-2, -1)
    scaled = scores / math.sqrt(q.shape[-1])
    keep = torch.ones_like(scaled, dtype=torch.bool)
    if causal:
        keep = keep & torch.ones(scaled.shape[-2:], dtype=torch.bool).tril()
    if mask is not None:
        keep = keep & (mask != 0)
    masked = scaled.masked_fill(~keep, fill)
    weights = torch.softmax(masked, dim=-1)
    out = {"scores": t(scores), "scaled_scores": t(scaled), "weights": t(weights), "output": t(weights @ v)}
    if math.isfinite(fill):  # JSON has no -Infinity: with it, the masked scores are the scaled ones, masked
        out["masked_scores"] = t(masked)
    return out


def modules():
    torch.manual_seed(1)
    linear = nn.Linear(4, 3)
    x = torch.randn(2, 4)
    torch.manual_seed(2)
    embedding = nn.Embedding(5, 3)
    ids = torch.tensor([[4, 0, 2], [1, 1, 3]])
    torch.manual_seed(3)
    norm = nn.LayerNorm(4)
    with torch.no_grad():
        norm.weight.copy_(torch.randn(4))
        norm.bias.copy_(torch.randn(4))
    ln_x = torch.randn(3, 4) * 3 + 1

    torch.manual_seed(4)
    q, k, v = torch.randn(2, 4, 3), torch.randn(2, 4, 3), torch.randn(2, 4, 2)
    pattern = torch.tensor([[1, 0, 1, 1], [1, 1, 0, 0], [0, 1, 1, 1], [1, 1, 1, 0]])
    lengths = torch.tensor([4, 2])
    padding = (torch.arange(4)[None, :] < lengths[:, None]).to(torch.float32)[:, None, :]  # (B, 1, T_k)
    sdpa = {
        "query": t(q), "key": t(k), "value": t(v), "mask_pattern": t(pattern), "key_lengths": lengths.tolist(),
        "plain": attention(q, k, v),
        "causal": attention(q, k, v, causal=True),
        "masked": attention(q, k, v, mask=pattern),
        "padding_causal_1e9": attention(q, k, v, mask=padding, fill=-1e9, causal=True),
    }

    torch.manual_seed(5)
    mha = NotebookMultiHeadAttention(8, 2)
    mha_x = torch.randn(2, 4, 8)
    causal_1 = torch.ones(4, 4).tril().unsqueeze(0)  # (1, T, T), as notebook 001's examples pass it
    per_row = torch.stack([torch.ones(4, 4).tril(), torch.tensor([[1., 1, 0, 0]] * 4)])  # row 0 causal, row 1 pads 2 keys
    notebook_mha = {"W_q": t(mha.W_q.weight), "W_k": t(mha.W_k.weight), "W_v": t(mha.W_v.weight), "W_o": t(mha.W_o.weight),
                    "x": t(mha_x), "causal_mask": t(causal_1), "per_row_mask": t(per_row)}
    for name, m in [("causal", causal_1), ("per_row", per_row)]:
        out, w = mha(mha_x, m)
        notebook_mha[name] = {"output": t(out), "weights": t(w)}

    torch.manual_seed(6)
    torch_mha = nn.MultiheadAttention(8, 2, batch_first=True)
    torch_mha.eval()
    qx, kx = torch.randn(2, 3, 8), torch.randn(2, 5, 8)
    heads_mask = torch.rand(4, 3, 5) < 0.3
    heads_mask[..., 0] = False  # every query keeps key 0 (PyTorch gives NaN for a row with no key)
    key_lengths = torch.tensor([5, 3])
    torch_cases = {
        "in_proj_weight": t(torch_mha.in_proj_weight), "in_proj_bias": t(torch_mha.in_proj_bias),
        "out_proj_weight": t(torch_mha.out_proj.weight), "out_proj_bias": t(torch_mha.out_proj.bias),
        "query": t(qx), "key": t(kx), "heads_mask_attend": t((~heads_mask).float()), "key_lengths": key_lengths.tolist(),
    }
    for name, kwargs in [
        ("plain", {}),
        ("attn_mask_2d", {"attn_mask": ~torch.ones(3, 5, dtype=torch.bool).tril(diagonal=2)}),  # causal, aligned to the last key
        ("attn_mask_3d", {"attn_mask": heads_mask}),
        ("key_padding", {"key_padding_mask": torch.arange(5)[None, :] >= key_lengths[:, None]}),
    ]:
        out, avg = torch_mha(qx, kx, kx, need_weights=True, **kwargs)
        torch_cases[name] = {"output": t(out), "average_weights": t(avg)}

    return {
        "_about": "PyTorch modules and attention with masks (tools/make_golden.py). Masks written here with 1 = attend.",
        "along_dim": along_dim(),
        "printing": printing(),
        "linear": {"seed": 1, "weight": t(linear.weight), "bias": t(linear.bias), "x": t(x), "y": t(linear(x))},
        "embedding": {"seed": 2, "weight": t(embedding.weight), "ids": ints(ids), "y": t(embedding(ids))},
        "layer_norm": {"weight": t(norm.weight), "bias": t(norm.bias), "x": t(ln_x), "y": t(norm(ln_x))},
        "sdpa": sdpa,
        "notebook001_mha": {"seed": 5, "d_model": 8, "num_heads": 2, **notebook_mha},
        "torch_mha": {"seed": 6, "embed_dim": 8, "num_heads": 2, **torch_cases},
    }


def along_dim():
    """softmax, the naive softmax and sum normalisation over every dimension of a 3-D tensor, as torch's dim."""
    torch.manual_seed(8)
    x = torch.randn(2, 3, 4)
    positive = torch.rand(2, 3, 4) + 0.5
    dims = [0, 1, 2, -1, -2, -3]
    return {
        "x": t(x), "positive": t(positive),
        "softmax": {str(d): t(torch.softmax(x, dim=d)) for d in dims},
        "softmax_naive": {str(d): t(torch.exp(x) / torch.exp(x).sum(dim=d, keepdim=True)) for d in dims},
        "normalize_sum": {str(d): t(positive / positive.sum(dim=d, keepdim=True)) for d in dims},
    }


def printing():
    """print(tensor) with torch's default options: fixed, integer and scientific notation, wrapping,
    summarising, exact ties, special values, precision 2."""
    def case(x, precision=4):
        torch.set_printoptions(precision=precision)
        printed = str(x)
        torch.set_printoptions(profile="default")
        integer = not x.dtype.is_floating_point
        tensor = ints(x) if integer else t(x)
        # JSON has no Infinity or NaN: those are written as the strings JS's Number() reads back.
        tensor["data"] = [v if math.isfinite(v) else {math.inf: "Infinity", -math.inf: "-Infinity"}.get(v, "NaN")
                          for v in tensor["data"]]
        return {"tensor": tensor, "integer": integer, "precision": precision, "printed": printed}

    def seeded(seed, make):
        torch.manual_seed(seed)
        return make()

    return [
        case(seeded(123, lambda: torch.rand(3, 2))),
        case(seeded(1, lambda: torch.randn(2, 3, 4))),
        case(seeded(2, lambda: torch.randint(0, 100, (2, 5)))),
        case(seeded(3, lambda: torch.randn(4) * 1e5)),
        case(seeded(4, lambda: torch.randn(3) * 1e-5)),
        case(torch.tensor([1.0, 2.0, 300.0])),
        case(torch.tensor([1.0, -2.0, 2000.0])),
        case(torch.tensor([float("-inf"), 0.5, float("nan"), 0.0, -0.0])),
        case(torch.tensor([0.03125, 0.09375, 0.15625, 0.21875])),
        case(seeded(5, lambda: torch.randn(30))),
        case(seeded(6, lambda: torch.randn(40, 40))),
        case(seeded(7, lambda: torch.randn(2, 2, 2, 3))),
        case(torch.tensor(0.5)),
        case(torch.zeros(0, 3)),
        case(seeded(9, lambda: torch.rand(2, 3)), precision=2),
    ]


# ---- models --------------------------------------------------------------------------------

# Text for the training run: every distinct character of it is the vocabulary.
TRAIN_TEXT = ("The cats, which slept near the dog, purr.\nThe dog, which waited beside the cats, barks.\n"
              "The cat purrs.\nThe dogs bark.\nA model that reads the subject chooses the verb.\n") * 12


def models():
    torch.manual_seed(11)
    nb001 = SimpleLanguageModel(vocab_size=13, d_model=8, num_heads=2, d_ff=16, max_seq_length=6)
    nb001_ids = torch.randint(0, 13, (2, 5))
    notebook001 = {"seed": 11, "vocab_size": 13, "d_model": 8, "num_heads": 2, "d_ff": 16, "max_seq_length": 6,
                   "ids": ints(nb001_ids), "logits": t(nb001(nb001_ids))}

    gpts = {}
    for name, bias, tie in [("tied_no_bias", False, True), ("untied_bias", True, False)]:
        torch.manual_seed(1337)
        m = NanoGPT(vocab_size=13, block_size=8, n_layer=2, n_head=2, n_embd=8, bias=bias, tie=tie)
        ids = torch.randint(0, 13, (2, 8))
        targets = torch.randint(0, 13, (2, 8))
        logits, loss = m(ids, targets)
        loss.backward()
        named = m.named_in_state_dict_order()
        gpts[name] = {
            "config": {"vocab_size": 13, "block_size": 8, "n_layer": 2, "n_head": 2, "n_embd": 8, "bias": bias, "tie": tie, "seed": 1337},
            "ids": ints(ids), "targets": ints(targets), "logits": t(logits), "loss": float(loss),
            "parameters": {n: t(p) for n, p in named}, "gradients": {n: t(p.grad) for n, p in named},
        }

    # Five steps of nanoGPT's train.py (its loop without the evaluations): seed, model, first batch;
    # then per step: lr, forward, the next batch, backward, clipping, AdamW.
    chars = sorted(set(TRAIN_TEXT))
    data = torch.tensor([chars.index(c) for c in TRAIN_TEXT])
    train_data = data[: int(len(data) * 0.9)]
    block_size, batch_size = 8, 4
    hp = {"learning_rate": 1e-3, "min_lr": 1e-4, "warmup_iters": 2, "lr_decay_iters": 5, "beta1": 0.9, "beta2": 0.99,
          "weight_decay": 0.1, "grad_clip": 1.0, "seed": 1337}

    def get_batch():
        ix = torch.randint(len(train_data) - block_size, (batch_size,))
        return (torch.stack([train_data[i:i + block_size] for i in ix]),
                torch.stack([train_data[i + 1:i + 1 + block_size] for i in ix]))

    torch.manual_seed(hp["seed"])
    model = NanoGPT(vocab_size=len(chars), block_size=block_size, n_layer=2, n_head=2, n_embd=16, bias=False, tie=True)
    params = [p for _, p in model.named_in_state_dict_order()]
    optimizer = torch.optim.AdamW([{"params": [p for p in params if p.dim() >= 2], "weight_decay": hp["weight_decay"]},
                                   {"params": [p for p in params if p.dim() < 2], "weight_decay": 0.0}],
                                  lr=hp["learning_rate"], betas=(hp["beta1"], hp["beta2"]), eps=1e-8)
    X, Y = get_batch()
    steps = []
    for it in range(5):
        lr = get_lr(it, hp["learning_rate"], hp["warmup_iters"], hp["lr_decay_iters"], hp["min_lr"])
        for group in optimizer.param_groups:
            group["lr"] = lr
        _, loss = model(X, Y)
        X, Y = get_batch()
        loss.backward()
        grad_norm = torch.nn.utils.clip_grad_norm_(params, hp["grad_clip"])
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)
        steps.append({"lr": lr, "loss": float(loss), "grad_norm": float(grad_norm)})
    training = {"text": TRAIN_TEXT, "model": {"n_layer": 2, "n_head": 2, "n_embd": 16, "block_size": block_size, "bias": False, "tie": True},
                "batch_size": batch_size, **hp, "steps": steps,
                "parameters_after": {n: t(p) for n, p in model.named_in_state_dict_order()}}

    # nanoGPT's generate: crop to the block, last logits / temperature, top-k, softmax, multinomial.
    torch.manual_seed(1337)
    gpts_model = NanoGPT(vocab_size=13, block_size=8, n_layer=2, n_head=2, n_embd=8, bias=False, tie=True)
    torch.manual_seed(42)
    idx = torch.tensor([[3, 1, 4], [1, 5, 9]])
    with torch.no_grad():
        for _ in range(12):
            logits, _ = gpts_model(idx[:, -8:])
            logits = logits[:, -1, :] / 0.8
            v, _ = torch.topk(logits, 5)
            logits[logits < v[:, [-1]]] = -float("inf")
            idx = torch.cat((idx, torch.multinomial(F.softmax(logits, dim=-1), num_samples=1)), dim=1)
    sampler = {"model": "tied_no_bias", "prompt": [[3, 1, 4], [1, 5, 9]], "seed": 42, "temperature": 0.8, "top_k": 5,
               "max_new_tokens": 12, "ids": ints(idx)}

    return {"_about": "Models in PyTorch (tools/make_golden.py): notebook 001's SimpleLanguageModel, nanoGPT GPTs with "
                      "their gradients, five train.py steps, and sampled ids.",
            "notebook001": notebook001, "nanogpt": gpts, "train": training, "sampling": sampler}


# ---- the layers of today's decoders (tools/llama_reference.py) --------------------------

def llama_layers():
    torch.manual_seed(11)
    x = torch.randn(1, 2, 5, 16, requires_grad=True)  # (B, H, T, D)
    upstream = torch.randn(1, 2, 5, 16)
    llama3 = {"factor": 8.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0, "original_max_position_embeddings": 64}
    rope = {"input": t(x), "upstream": t(upstream), "cases": []}
    for theta, scaling, positions in [(10000.0, None, [0, 1, 2, 3, 4]), (10000.0, None, [7, 8, 9, 10, 11]),
                                      (500000.0, llama3, [0, 1, 2, 3, 4]), (500000.0, llama3, [100, 250, 1000, 4000, 70000])]:
        inv_freq = rope_inv_freq(16, theta, scaling)
        cos, sin = rope_cos_sin(inv_freq, positions)
        x.grad = None
        y = x * cos + rotate_half(x) * sin
        (y * upstream).sum().backward()
        rope["cases"].append({"theta": theta, "llama3": scaling, "positions": positions, "inv_freq": t(inv_freq),
                              "cos": t(cos), "sin": t(sin), "output": t(y), "grad_input": t(x.grad)})

    torch.manual_seed(12)
    h = (torch.randn(3, 6) * 2 + 0.5).requires_grad_(True)
    weight = torch.randn(6, requires_grad=True)
    g = torch.randn(3, 6)
    norms = {"input": t(h), "weight": t(weight), "upstream": t(g), "eps": 1e-6}
    for name, scale in [("llama", lambda w: w), ("gemma", lambda w: 1.0 + w)]:
        h.grad, weight.grad = None, None
        hf = h.float()
        out = hf * torch.rsqrt(hf.pow(2).mean(-1, keepdim=True) + 1e-6)
        out = scale(weight.float()) * out if name == "gemma" else weight * out
        (out * g).sum().backward()
        norms[name] = {"output": t(out), "grad_input": t(h.grad), "grad_weight": t(weight.grad)}

    torch.manual_seed(13)
    gate = (torch.randn(3, 5) * 2).requires_grad_(True)
    up = torch.randn(3, 5, requires_grad=True)
    g = torch.randn(3, 5)
    glu = {"gate": t(gate), "up": t(up), "upstream": t(g)}
    for name, act in [("silu", F.silu), ("gelu_pytorch_tanh", lambda v: F.gelu(v, approximate="tanh"))]:
        gate.grad, up.grad = None, None
        out = act(gate) * up
        (out * g).sum().backward()
        glu[name] = {"output": t(out), "grad_gate": t(gate.grad), "grad_up": t(up.grad)}
    # Grouped-query attention with a sliding window: 4 query heads reading 2 key/value heads (repeat_kv), causal,
    # key j visible to query i only if i - j < 3 (masking_utils' sliding_window_causal).
    torch.manual_seed(14)
    q = torch.randn(1, 4, 7, 8, requires_grad=True)
    k = torch.randn(1, 2, 7, 8, requires_grad=True)
    v = torch.randn(1, 2, 7, 8, requires_grad=True)
    g = torch.randn(1, 4, 7, 8)
    window = 3
    visible = sliding_window_visible(7, window)
    keys, values = repeat_kv(k, 2), repeat_kv(v, 2)
    weights = torch.softmax((q @ keys.transpose(-1, -2) / math.sqrt(8)).masked_fill(~visible, float("-inf")), dim=-1)
    out = weights @ values
    (out * g).sum().backward()
    grouped = {"query": t(q), "key": t(k), "value": t(v), "upstream": t(g), "window": window, "weights": t(weights),
               "output": t(out), "grad_query": t(q.grad), "grad_key": t(k.grad), "grad_value": t(v.grad)}
    return {"rope": rope, "rms_norm": norms, "gated": glu, "grouped_window": grouped}


def main():
    files = {"notebooks.json": notebooks(), "torch_rng.json": torch_rng(), "modules.json": modules(), "models.json": models(),
             "llama_layers.json": llama_layers()}
    check = "--check" in sys.argv[1:]
    stale = []
    for name, content in files.items():
        text = dumps(content) + "\n"
        path = GOLDEN / name
        if check:
            if not path.exists() or path.read_text() != text:
                stale.append(name)
        else:
            path.write_text(text)
    if stale:
        print(f"tests/golden: {', '.join(stale)} differ from what PyTorch {torch.__version__} computes; run npm run golden",
              file=sys.stderr)
        return 1
    print(f"tests/golden: {'checked' if check else 'wrote'} {', '.join(files)} (PyTorch {torch.__version__})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
