#!/usr/bin/python3
"""Turns a nanoGPT checkpoint (out/ckpt.pt of its train.py) into a Hugging Face GPT-2 model folder that
attn.loadPretrained reads: config.json, model.safetensors, and the tokenizer.

    /usr/bin/python3 tools/nanogpt_to_hf.py out/ckpt.pt FOLDER [--meta data/shakespeare_char/meta.pkl]
                                             [--gpt2-tokenizer DIR]

nanoGPT's GPT is GPT-2's architecture with three differences the folder states or fills in: its Linear weights
are (out, in) where GPT-2's Conv1D are (in, out), so they are transposed; bias=False models have no biases, so
zeros are written (the same computation); and its GELU is the exact one (activation_function "gelu"). A model
compiled with torch.compile saved its names with "_orig_mod."; they are read without it.

The tokenizer: a character model's data/*/meta.pkl ({"stoi", "itos"}) becomes a tokenizer.json of one token
per character (a WordLevel model, every character split off), which attn.loadPretrained reads as a
CharTokenizer; a model trained on GPT-2's tokens (no meta.pkl) gets GPT-2's vocab.json and merges.txt, copied
from --gpt2-tokenizer (a folder holding them, e.g. a downloaded "gpt2" model folder). Needs torch only.
"""
import argparse
import json
import os
import pickle
import shutil
import struct
import sys

import torch


def safetensors_bytes(tensors):
    header, chunks, offset = {"__metadata__": {"format": "pt"}}, [], 0
    for name, t in tensors.items():
        raw = t.detach().to(torch.float32).contiguous().numpy().tobytes()
        header[name] = {"dtype": "F32", "shape": list(t.shape), "data_offsets": [offset, offset + len(raw)]}
        chunks.append(raw)
        offset += len(raw)
    text = json.dumps(header).encode()
    text += b" " * ((8 - len(text) % 8) % 8)
    return struct.pack("<Q", len(text)) + text + b"".join(chunks)


def convert(ckpt_path, out, meta_path=None, gpt2_tokenizer=None):
    ckpt = torch.load(ckpt_path, map_location="cpu")
    args = ckpt["model_args"]
    state = {k[len("_orig_mod."):] if k.startswith("_orig_mod.") else k: v for k, v in ckpt["model"].items()}
    n_layer, n_head, n_embd = args["n_layer"], args["n_head"], args["n_embd"]
    block_size, vocab_size = args["block_size"], args["vocab_size"]
    bias = args.get("bias", True)
    if meta_path is None and gpt2_tokenizer is None:
        sys.exit("nanogpt_to_hf: give --meta (a character model's meta.pkl) or --gpt2-tokenizer (GPT-2's vocab.json and merges.txt)")

    tensors = {}
    get = lambda name: state[name]
    zeros = lambda n: torch.zeros(n)
    tensors["transformer.wte.weight"] = get("transformer.wte.weight")
    tensors["transformer.wpe.weight"] = get("transformer.wpe.weight")
    for i in range(n_layer):
        p = f"transformer.h.{i}."
        for ln in ("ln_1", "ln_2"):
            tensors[p + ln + ".weight"] = get(p + ln + ".weight")
            tensors[p + ln + ".bias"] = get(p + ln + ".bias") if bias else zeros(n_embd)
        for linear, width in (("attn.c_attn", 3 * n_embd), ("attn.c_proj", n_embd), ("mlp.c_fc", 4 * n_embd), ("mlp.c_proj", n_embd)):
            tensors[p + linear + ".weight"] = get(p + linear + ".weight").t()  # nn.Linear (out, in) -> Conv1D (in, out)
            tensors[p + linear + ".bias"] = get(p + linear + ".bias") if bias else zeros(width)
    tensors["transformer.ln_f.weight"] = get("transformer.ln_f.weight")
    tensors["transformer.ln_f.bias"] = get("transformer.ln_f.bias") if bias else zeros(n_embd)
    if not torch.equal(state.get("lm_head.weight", state["transformer.wte.weight"]), state["transformer.wte.weight"]):
        sys.exit("nanogpt_to_hf: lm_head.weight differs from transformer.wte.weight; nanoGPT ties them")

    os.makedirs(out, exist_ok=True)
    config = {"model_type": "gpt2", "architectures": ["GPT2LMHeadModel"], "vocab_size": vocab_size,
              "n_positions": block_size, "n_embd": n_embd, "n_layer": n_layer, "n_head": n_head, "n_inner": None,
              "activation_function": "gelu", "layer_norm_epsilon": 1e-5, "tie_word_embeddings": True,
              "resid_pdrop": 0.0, "embd_pdrop": 0.0, "attn_pdrop": 0.0, "scale_attn_weights": True}
    with open(os.path.join(out, "config.json"), "w") as f:
        json.dump(config, f, indent=2)
    with open(os.path.join(out, "model.safetensors"), "wb") as f:
        f.write(safetensors_bytes(tensors))
    if meta_path is not None:
        with open(meta_path, "rb") as f:
            meta = pickle.load(f)
        itos = meta["itos"]
        vocab = {itos[i]: i for i in range(len(itos))}
        tokenizer = {"version": "1.0", "added_tokens": [], "normalizer": None,
                     "pre_tokenizer": {"type": "Split", "pattern": {"Regex": "."}, "behavior": "Isolated", "invert": False},
                     "post_processor": None, "decoder": None,
                     "model": {"type": "WordLevel", "vocab": vocab, "unk_token": itos[0]}}
        with open(os.path.join(out, "tokenizer.json"), "w") as f:
            json.dump(tokenizer, f, ensure_ascii=False)
    else:
        for name in ("vocab.json", "merges.txt"):
            shutil.copy(os.path.join(gpt2_tokenizer, name), os.path.join(out, name))
    return config


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("ckpt")
    parser.add_argument("out")
    parser.add_argument("--meta", help="a character model's meta.pkl")
    parser.add_argument("--gpt2-tokenizer", help="a folder holding GPT-2's vocab.json and merges.txt")
    a = parser.parse_args()
    config = convert(a.ckpt, a.out, a.meta, a.gpt2_tokenizer)
    print(f"nanogpt_to_hf: wrote {a.out} ({config['n_layer']} layers, {config['n_head']} heads, n_embd {config['n_embd']}, "
          f"vocab {config['vocab_size']})")


if __name__ == "__main__":
    main()
