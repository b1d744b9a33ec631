#!/usr/bin/python3
"""GPT-2 in plain PyTorch, step for step as Hugging Face's transformers computes it, to check this library against.

Debian's python3-torch comes without transformers, so this file follows transformers' models/gpt2/modeling_gpt2.py
(v4.x) line by line, in the order GPT2LMHeadModel runs: Conv1D (a Linear whose weight is stored (in, out):
torch.addmm(bias, x, weight)), GPT2Attention (c_attn split into q, k, v; heads split; q·kᵀ / √d_head; the causal
mask filled with finfo.min; softmax; weights·v; heads merged; c_proj), GPT2MLP (c_fc, NewGELUActivation or
nn.GELU, c_proj), GPT2Block (pre-norm: x + attn(ln_1(x)), x + mlp(ln_2(x))), GPT2Model (wte + wpe, the blocks,
ln_f) and the tied lm_head.

Writes, for each model asked for, a Hugging Face model folder (config.json, model.safetensors, vocab.json,
merges.txt) of a randomly initialised model and expected.json with what this reference computes on fixed ids:
the logits, every layer's attention weights, and a greedy continuation. The weights are drawn wider than GPT-2's
init (std 0.2 unless the spec says "std", LayerNorms and biases away from 1 and 0) so that a wrong step shows.

    /usr/bin/python3 tools/gpt2_reference.py OUT_DIR SPEC_JSON VOCAB_JSON MERGES_TXT
    SPEC_JSON: [{"name": "f32", "n_layer": 2, "n_head": 4, "n_embd": 32, "n_positions": 32, "dtype": "F32", ...}]
    ("config_json": a published config.json to build the model from and write as it is; "inputs": lists of ids to run
    instead of the random ones, written as write_runs says, with no tokenizer files.)
    ("onnx": true also exports the model to model.onnx, for the benchmark.)
"""
import json
import math
import os
import shutil
import struct
import sys

import torch
import torch.nn.functional as F

DTYPES = {"F32": torch.float32, "F16": torch.float16, "BF16": torch.bfloat16}


class Conv1D(torch.nn.Module):  # modeling_utils / pytorch_utils.Conv1D
    def __init__(self, nf, nx):
        super().__init__()
        self.nf = nf
        self.weight = torch.nn.Parameter(torch.empty(nx, nf))
        self.bias = torch.nn.Parameter(torch.zeros(nf))

    def forward(self, x):
        size_out = x.size()[:-1] + (self.nf,)
        x = torch.addmm(self.bias, x.view(-1, x.size(-1)), self.weight)
        return x.view(size_out)


def new_gelu(x):  # activations.NewGELUActivation ("gelu_new")
    return 0.5 * x * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * torch.pow(x, 3.0))))


class Attention(torch.nn.Module):  # GPT2Attention
    def __init__(self, c):
        super().__init__()
        n = c["n_positions"]
        self.register_buffer("bias", torch.tril(torch.ones((n, n), dtype=torch.bool)).view(1, 1, n, n))
        self.n_head, self.n_embd = c["n_head"], c["n_embd"]
        self.head_dim = self.n_embd // self.n_head
        self.c_attn = Conv1D(3 * self.n_embd, self.n_embd)
        self.c_proj = Conv1D(self.n_embd, self.n_embd)

    def _split_heads(self, t):
        return t.view(t.size()[:-1] + (self.n_head, self.head_dim)).permute(0, 2, 1, 3)

    def _attn(self, query, key, value):
        attn_weights = torch.matmul(query, key.transpose(-1, -2))
        attn_weights = attn_weights / torch.full([], value.size(-1) ** 0.5, dtype=attn_weights.dtype)
        query_length, key_length = query.size(-2), key.size(-2)
        causal_mask = self.bias[:, :, key_length - query_length : key_length, :key_length]
        mask_value = torch.full([], torch.finfo(attn_weights.dtype).min, dtype=attn_weights.dtype)
        attn_weights = torch.where(causal_mask, attn_weights, mask_value)
        attn_weights = torch.nn.functional.softmax(attn_weights, dim=-1)
        return torch.matmul(attn_weights, value), attn_weights

    def forward(self, h):
        query, key, value = self.c_attn(h).split(self.n_embd, dim=2)
        query, key, value = self._split_heads(query), self._split_heads(key), self._split_heads(value)
        attn_output, attn_weights = self._attn(query, key, value)
        attn_output = attn_output.permute(0, 2, 1, 3).contiguous()
        attn_output = attn_output.view(attn_output.size()[:-2] + (self.n_embd,))
        return self.c_proj(attn_output), attn_weights


class MLP(torch.nn.Module):  # GPT2MLP
    def __init__(self, c):
        super().__init__()
        inner = c.get("n_inner") or 4 * c["n_embd"]
        self.c_fc = Conv1D(inner, c["n_embd"])
        self.c_proj = Conv1D(c["n_embd"], inner)
        self.act = new_gelu if c.get("activation_function", "gelu_new") == "gelu_new" else F.gelu

    def forward(self, h):
        return self.c_proj(self.act(self.c_fc(h)))


class Block(torch.nn.Module):  # GPT2Block
    def __init__(self, c):
        super().__init__()
        eps = c.get("layer_norm_epsilon", 1e-5)
        self.ln_1 = torch.nn.LayerNorm(c["n_embd"], eps=eps)
        self.attn = Attention(c)
        self.ln_2 = torch.nn.LayerNorm(c["n_embd"], eps=eps)
        self.mlp = MLP(c)

    def forward(self, h):
        residual = h
        attn_output, weights = self.attn(self.ln_1(h))
        h = attn_output + residual
        residual = h
        return residual + self.mlp(self.ln_2(h)), weights


class GPT2LMHeadModel(torch.nn.Module):
    def __init__(self, c):
        super().__init__()
        self.c = c
        self.wte = torch.nn.Embedding(c["vocab_size"], c["n_embd"])
        self.wpe = torch.nn.Embedding(c["n_positions"], c["n_embd"])
        self.h = torch.nn.ModuleList([Block(c) for _ in range(c["n_layer"])])
        self.ln_f = torch.nn.LayerNorm(c["n_embd"], eps=c.get("layer_norm_epsilon", 1e-5))
        self.lm_head = torch.nn.Linear(c["n_embd"], c["vocab_size"], bias=False)
        if c.get("tie_word_embeddings", True):
            self.lm_head.weight = self.wte.weight

    def forward(self, ids):
        position_ids = torch.arange(ids.size(-1)).unsqueeze(0)
        h = self.wte(ids) + self.wpe(position_ids)
        attentions = []
        for block in self.h:
            h, weights = block(h)
            attentions.append(weights)
        logits = self.lm_head(self.ln_f(h))
        return logits if torch.onnx.is_in_onnx_export() else (logits, attentions)


def safetensors_bytes(tensors):
    """The safetensors layout: u64 header length, a JSON header of dtype, shape and data_offsets, the data."""
    header, data = {"__metadata__": {"format": "pt"}}, b""
    for name, (dtype, t) in tensors.items():
        raw = t.contiguous().view(torch.int16).numpy().tobytes() if dtype == "BF16" else t.contiguous().numpy().tobytes()
        header[name] = {"dtype": dtype, "shape": list(t.shape), "data_offsets": [len(data), len(data) + len(raw)]}
        data += raw
    text = json.dumps(header).encode()
    text += b" " * ((8 - len(text) % 8) % 8)
    return struct.pack("<Q", len(text)) + text + data


def write_runs(model, inputs, out):
    """What `model` (logits, attentions = model(ids)) computes on each list of ids in `inputs`, for a test to hold a
    library to: runs.json (per input: its ids, every layer's attention weights (1, heads, T, T), flattened, and 8 greedy
    tokens, as generate(do_sample=False) makes them) and logits-<i>.f32, the whole (T, vocab) logits in float32,
    little-endian (a real vocabulary's logits are too many numbers for JSON)."""
    runs = []
    with torch.no_grad():
        for i, row in enumerate(inputs):
            ids = torch.tensor([row])
            logits, attentions = model(ids)
            with open(os.path.join(out, "logits-%d.f32" % i), "wb") as f:
                f.write(logits[0].float().contiguous().numpy().astype("<f4").tobytes())
            prompt = ids
            for _ in range(8):
                next_logits, _ = model(prompt)
                prompt = torch.cat([prompt, next_logits[:, -1].argmax(-1, keepdim=True)], dim=1)
            runs.append({"ids": row, "attentions": [a.flatten().tolist() for a in attentions],
                         "greedy": prompt[0, len(row):].tolist()})
    with open(os.path.join(out, "runs.json"), "w") as f:
        json.dump(runs, f)


def build(spec, out, vocab_path, merges_path):
    torch.manual_seed(spec.get("seed", 0))
    # A published config.json is written as given, and the model is what transformers reads from it.
    config = spec["config_json"] if "config_json" in spec else {"model_type": "gpt2", "vocab_size": 50257, "n_positions": spec["n_positions"], "n_embd": spec["n_embd"],
              "n_layer": spec["n_layer"], "n_head": spec["n_head"], "n_inner": spec.get("n_inner"),
              "activation_function": spec.get("activation_function", "gelu_new"),
              "layer_norm_epsilon": spec.get("layer_norm_epsilon", 1e-5), "resid_pdrop": 0.1, "embd_pdrop": 0.1,
              "attn_pdrop": 0.1, "scale_attn_weights": True, "tie_word_embeddings": spec.get("tie_word_embeddings", True),
              "architectures": ["GPT2LMHeadModel"], "bos_token_id": 50256, "eos_token_id": 50256}
    model = GPT2LMHeadModel(config)
    dtype = spec.get("dtype", "F32")
    std = spec.get("std", 0.2)  # GPT-2's own init is 0.02: the benchmark's deep model uses it
    with torch.no_grad():
        for name, p in model.named_parameters():
            if name.endswith("ln_1.weight") or name.endswith("ln_2.weight") or name.endswith("ln_f.weight"):
                p.copy_(1 + std * torch.randn_like(p))
            else:
                p.copy_(std * torch.randn_like(p))
            p.copy_(p.to(DTYPES[dtype]).float())  # the numbers the file holds
    prefix = "transformer." if spec.get("prefix", True) else ""
    tensors = {}
    for name, t in model.state_dict().items():
        if name == "lm_head.weight":
            if config.get("tie_word_embeddings", True):  # transformers' default: GPT-2 ties its head
                continue
            tensors[name] = (dtype, t.to(DTYPES[dtype]))
        elif name.endswith(".attn.bias"):  # the causal mask buffer older files hold, as BOOL or F32
            if spec.get("mask_buffers", True):
                tensors[prefix + name] = ("BOOL", t) if spec.get("bool_mask") else ("F32", t.float())
        else:
            tensors[prefix + name] = (dtype, t.to(DTYPES[dtype]))
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, "model.safetensors"), "wb") as f:
        f.write(safetensors_bytes(tensors))
    with open(os.path.join(out, "config.json"), "w") as f:
        json.dump(config, f, indent=2)
    if "inputs" in spec:  # ids a test's tokenizer made; the test brings the tokenizer files
        write_runs(model, spec["inputs"], out)
        return
    shutil.copy(vocab_path, os.path.join(out, "vocab.json"))
    shutil.copy(merges_path, os.path.join(out, "merges.txt"))

    g = torch.Generator().manual_seed(7)
    T = min(12, spec["n_positions"] - 8)
    ids = torch.randint(0, 50257, (2, T), generator=g)
    with torch.no_grad():
        logits, attentions = model(ids)
        prompt = ids[:1]
        for _ in range(8):  # greedy, as generate(do_sample=False)
            next_logits, _ = model(prompt)
            prompt = torch.cat([prompt, next_logits[:, -1].argmax(-1, keepdim=True)], dim=1)
    expected = {
        "config": config,
        "ids": ids.tolist(),
        "logits_head": logits[:, :, :64].flatten().tolist(),  # (2, T, 64): the first 64 tokens' logits everywhere
        "logits_last": logits[0, -1].tolist(),  # (V): every logit of the last position of row 0
        "argmax": logits.argmax(-1).flatten().tolist(),
        "logsumexp": torch.logsumexp(logits, -1).flatten().tolist(),
        "attentions": [a.flatten().tolist() for a in attentions],  # each (2, n_head, T, T)
        "greedy": prompt[0, T:].tolist(),
    }
    with open(os.path.join(out, "expected.json"), "w") as f:
        json.dump(expected, f)
    if spec.get("onnx"):  # the same model for onnxruntime-web (npm run bench): logits of ids (1, T)
        model.eval()
        with torch.no_grad():
            torch.onnx.export(model, (ids[:1],), os.path.join(out, "model.onnx"), opset_version=17, input_names=["ids"],
                              output_names=["y"], dynamic_axes={"ids": {1: "T"}, "y": {1: "T"}})


def main():
    out, specs, vocab, merges = sys.argv[1], json.loads(sys.argv[2]), sys.argv[3], sys.argv[4]
    torch.set_num_threads(1)
    for spec in specs:
        build(spec, os.path.join(out, spec["name"]), vocab, merges)
    print("gpt2_reference: wrote " + ", ".join(s["name"] for s in specs))


if __name__ == "__main__":
    main()
