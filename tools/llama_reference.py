"""Today's decoders (Llama, Mistral, Qwen2, Qwen3, Gemma 3) in plain torch, as Hugging Face's transformers computes
them (transformers is not installed here). Each function and class says which code it mirrors: modeling_rope_utils.py's
_compute_default_rope_parameters and _compute_llama3_parameters; modeling_llama.py's LlamaRotaryEmbedding.forward,
rotate_half, apply_rotary_pos_emb, repeat_kv, eager_attention_forward, LlamaRMSNorm, LlamaMLP, LlamaAttention,
LlamaDecoderLayer and LlamaForCausalLM; masking_utils' sliding_window_causal; Qwen2's q/k/v biases, Qwen3's q_norm and
k_norm, Gemma3's RMSNorm (1 + w), scaled embeddings, four norms per block, query_pre_attn_scalar and its local RoPE.
tools/make_golden.py computes the golden numbers of tests/golden/llama_layers.json with the layer functions.

Run as a program it writes, for each spec, a Hugging Face model folder of a random model of that family (config.json
spelled as the family's own, model.safetensors or shards with model.safetensors.index.json, a small byte-level BPE
tokenizer.json) and expected.json: the logits of fixed ids, every layer's attention weights and a greedy continuation.

    /usr/bin/python3 tools/llama_reference.py OUT_DIR SPECS_JSON
    SPECS_JSON: [{"name": "llama", "family": "llama", "n_layer": 2, "hidden": 32, "heads": 4, "kv_heads": 2, ...}]
    ("onnx": true also exports the model to model.onnx, for the benchmark.)
    A spec with "config_json" (a published config.json), "dtype" and "inputs" (lists of ids) makes the model that
    config describes instead, as transformers reads it (settings_from_config), and what it computes on those ids.
"""
import json
import math
import os
import sys

import torch

from gpt2_reference import DTYPES, safetensors_bytes, write_runs  # the one writer of the reference folders' files


def rope_inv_freq(head_dim, theta, llama3=None):
    """_compute_default_rope_parameters, then _compute_llama3_parameters when llama3 scaling is given."""
    inv_freq = 1.0 / (theta ** (torch.arange(0, head_dim, 2, dtype=torch.int64).float() / head_dim))
    if llama3 is None:
        return inv_freq
    factor, low, high = llama3["factor"], llama3["low_freq_factor"], llama3["high_freq_factor"]
    old = llama3["original_max_position_embeddings"]
    low_freq_wavelen, high_freq_wavelen = old / low, old / high
    wavelen = 2 * math.pi / inv_freq
    inv_freq_llama = torch.where(wavelen > low_freq_wavelen, inv_freq / factor, inv_freq)
    smooth = (old / wavelen - low) / (high - low)
    smoothed = (1 - smooth) * inv_freq_llama / factor + smooth * inv_freq_llama
    is_medium = ~(wavelen < high_freq_wavelen) * ~(wavelen > low_freq_wavelen)
    return torch.where(is_medium, smoothed, inv_freq_llama)


def rope_cos_sin(inv_freq, positions):
    """LlamaRotaryEmbedding.forward: cos and sin of cat(freqs, freqs), (T, D)."""
    positions = positions if torch.is_tensor(positions) else torch.tensor(positions)
    freqs = (inv_freq[:, None].float() @ positions[None, :].float()).transpose(0, 1)  # (T, D/2)
    emb = torch.cat((freqs, freqs), dim=-1)
    return emb.cos(), emb.sin()


def rotate_half(x):
    x1, x2 = x[..., : x.shape[-1] // 2], x[..., x.shape[-1] // 2:]
    return torch.cat((-x2, x1), dim=-1)


def repeat_kv(x, n_rep):
    """(B, KV, T, d) -> (B, KV * n_rep, T, d): each key/value head repeated for the query heads that read it."""
    b, kv, t, d = x.shape
    return x[:, :, None].expand(b, kv, n_rep, t, d).reshape(b, kv * n_rep, t, d)


def sliding_window_visible(t, window):
    """(T, T): key j visible to query i iff j <= i and i - j < window."""
    i, j = torch.arange(t)[:, None], torch.arange(t)[None, :]
    return (j <= i) & (i - j < window)


# ---- whole models ---------------------------------------------------------------------------------------------------

class RMSNorm(torch.nn.Module):
    """LlamaRMSNorm (w · x / rms in float32); Gemma3RMSNorm when gemma: its weight starts at 0 and scales by 1 + w."""

    def __init__(self, dim, eps, gemma=False):
        super().__init__()
        self.eps, self.gemma = eps, gemma
        self.weight = torch.nn.Parameter(torch.zeros(dim) if gemma else torch.ones(dim))

    def forward(self, x):
        # In float32, as both compute it (x is float32 here: the upcasts they write would be no-ops, and an ONNX
        # export of torch 1.13 drops the outputs of such casts).
        if self.gemma:
            out = x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps)
            return out * (1.0 + self.weight)
        variance = x.pow(2).mean(-1, keepdim=True)
        return self.weight * (x * torch.rsqrt(variance + self.eps))


def apply_rotary_pos_emb(q, k, cos, sin):
    """modeling_llama.apply_rotary_pos_emb, cos and sin (T, D) broadcast over batch and heads."""
    return q * cos + rotate_half(q) * sin, k * cos + rotate_half(k) * sin


class Attention(torch.nn.Module):
    """LlamaAttention (Mistral, Qwen2 with q/k/v biases, Qwen3 and Gemma3 with q_norm/k_norm) and eager_attention_forward."""

    def __init__(self, c, layer):
        super().__init__()
        C, H, KV, D = c["hidden"], c["heads"], c["kv_heads"], c["head_dim"]
        self.c, self.H, self.KV, self.D = c, H, KV, D
        self.q_proj = torch.nn.Linear(C, H * D, bias=c["qkv_bias"])
        self.k_proj = torch.nn.Linear(C, KV * D, bias=c["qkv_bias"])
        self.v_proj = torch.nn.Linear(C, KV * D, bias=c["qkv_bias"])
        self.o_proj = torch.nn.Linear(H * D, C, bias=False)
        if c["qk_norm"]:
            self.q_norm = RMSNorm(D, c["eps"], c["gemma"])
            self.k_norm = RMSNorm(D, c["eps"], c["gemma"])
        self.sliding = c["window"] > 0 and (c["pattern"] == 0 or (layer + 1) % c["pattern"] != 0)
        if c.get("sliding_layers") is not None:  # a config.json's layer_types
            self.sliding = c["sliding_layers"][layer]
        self.scaling = (c["query_pre_attn_scalar"] or D) ** -0.5

    def forward(self, x, cos, sin):
        B, T, _ = x.shape
        q = self.q_proj(x).view(B, T, -1, self.D)
        k = self.k_proj(x).view(B, T, -1, self.D)
        if self.c["qk_norm"]:  # Qwen3Attention / Gemma3Attention: per head, before RoPE
            q, k = self.q_norm(q), self.k_norm(k)
        q, k = q.transpose(1, 2), k.transpose(1, 2)
        v = self.v_proj(x).view(B, T, -1, self.D).transpose(1, 2)
        q, k = apply_rotary_pos_emb(q, k, cos, sin)
        k, v = repeat_kv(k, self.H // self.KV), repeat_kv(v, self.H // self.KV)
        w = torch.matmul(q, k.transpose(2, 3)) * self.scaling
        visible = sliding_window_visible(T, self.c["window"]) if self.sliding else torch.ones(T, T, dtype=torch.bool).tril()
        w = w.masked_fill(~visible, torch.finfo(w.dtype).min)
        w = torch.nn.functional.softmax(w, dim=-1, dtype=torch.float32).to(q.dtype)
        y = torch.matmul(w, v).transpose(1, 2).reshape(B, T, -1)
        return self.o_proj(y), w


class MLP(torch.nn.Module):
    """LlamaMLP / Gemma3MLP: down(act(gate(x)) * up(x))."""

    def __init__(self, c):
        super().__init__()
        self.gate_proj = torch.nn.Linear(c["hidden"], c["inner"], bias=False)
        self.up_proj = torch.nn.Linear(c["hidden"], c["inner"], bias=False)
        self.down_proj = torch.nn.Linear(c["inner"], c["hidden"], bias=False)
        self.act = (lambda x: torch.nn.functional.gelu(x, approximate="tanh")) if c["gemma"] else torch.nn.functional.silu

    def forward(self, x):
        return self.down_proj(self.act(self.gate_proj(x)) * self.up_proj(x))


class Layer(torch.nn.Module):
    """LlamaDecoderLayer; Gemma3DecoderLayer's four norms when gemma."""

    def __init__(self, c, layer):
        super().__init__()
        C, eps, g = c["hidden"], c["eps"], c["gemma"]
        self.gemma = g
        self.input_layernorm = RMSNorm(C, eps, g)
        self.self_attn = Attention(c, layer)
        self.post_attention_layernorm = RMSNorm(C, eps, g)
        if g:
            self.pre_feedforward_layernorm = RMSNorm(C, eps, g)
            self.post_feedforward_layernorm = RMSNorm(C, eps, g)
        self.mlp = MLP(c)

    def forward(self, x, rope, rope_local):
        cos, sin = rope_local if (self.self_attn.sliding and rope_local is not None) else rope
        a, w = self.self_attn(self.input_layernorm(x), cos, sin)
        if self.gemma:
            x = x + self.post_attention_layernorm(a)
            return x + self.post_feedforward_layernorm(self.mlp(self.pre_feedforward_layernorm(x))), w
        x = x + a
        return x + self.mlp(self.post_attention_layernorm(x)), w


class Decoder(torch.nn.Module):
    """LlamaForCausalLM (and its Mistral, Qwen2, Qwen3 and Gemma3ForCausalLM variants): logits and every layer's weights."""

    def __init__(self, c):
        super().__init__()
        self.c = c
        self.embed_tokens = torch.nn.Embedding(c["vocab"], c["hidden"])
        self.layers = torch.nn.ModuleList([Layer(c, i) for i in range(c["n_layer"])])
        self.norm = RMSNorm(c["hidden"], c["eps"], c["gemma"])
        self.lm_head = torch.nn.Linear(c["hidden"], c["vocab"], bias=False)
        if c["tie"]:
            self.lm_head.weight = self.embed_tokens.weight

    def forward(self, ids):
        c, T = self.c, ids.shape[1]
        x = self.embed_tokens(ids)
        if c["gemma"]:  # Gemma3TextScaledWordEmbedding: × √hidden as a float32 buffer
            x = x * torch.tensor(c["hidden"] ** 0.5)
        positions = torch.arange(ids.shape[1])  # a tensor, so that an ONNX export keeps T a dimension
        rope = rope_cos_sin(rope_inv_freq(c["head_dim"], c["theta"], c.get("llama3")), positions)
        rope_local = rope_cos_sin(rope_inv_freq(c["head_dim"], c["local_theta"]), positions) if c.get("local_theta") else None
        weights = []
        for layer in self.layers:
            x, w = layer(x, rope, rope_local)
            weights.append(w)
        logits = self.lm_head(self.norm(x))
        return logits if torch.onnx.is_in_onnx_export() else (logits, weights)


# The tensors each family's folder holds, by Hugging Face's names (Decoder's state_dict with "model." before the body).
def hf_state_dict(model):
    out = {}
    for name, t in model.state_dict().items():
        if name == "lm_head.weight" and model.c["tie"]:
            continue
        out[name if name.startswith("lm_head.") else "model." + name] = t
    return out


def family_config(spec, c):
    """config.json as the family writes it."""
    family = spec["family"]
    config = {"model_type": family, "vocab_size": c["vocab"], "hidden_size": c["hidden"], "intermediate_size": c["inner"],
              "num_hidden_layers": c["n_layer"], "num_attention_heads": c["heads"], "num_key_value_heads": c["kv_heads"],
              "head_dim": c["head_dim"], "max_position_embeddings": spec.get("context", 64), "rms_norm_eps": c["eps"],
              "tie_word_embeddings": c["tie"], "torch_dtype": {"F32": "float32", "F16": "float16", "BF16": "bfloat16"}[spec.get("dtype", "F32")],
              "bos_token_id": 0, "eos_token_id": 0}
    rope = {"rope_type": "default", "rope_theta": c["theta"]}
    if c.get("llama3"):
        rope = {"rope_type": "llama3", "rope_theta": c["theta"], **c["llama3"]}
    if family in ("llama", "mistral", "qwen2", "qwen3"):
        config["hidden_act"] = "silu"
    if family in ("llama", "qwen3"):
        config["attention_bias"] = False
    if family == "llama":
        config["mlp_bias"] = False
    if family == "mistral":
        config["sliding_window"] = c["window"] or None
    if family in ("qwen2", "qwen3"):
        config["use_sliding_window"] = False
        config["sliding_window"] = 4096
        config["max_window_layers"] = c["n_layer"]
    if family == "gemma3_text":
        config.update({"hidden_activation": "gelu_pytorch_tanh", "query_pre_attn_scalar": c["query_pre_attn_scalar"],
                       "sliding_window": c["window"], "final_logit_softcapping": None, "attn_logit_softcapping": None,
                       "attention_bias": False})
        types = ["sliding_attention" if (i + 1) % c["pattern"] else "full_attention" for i in range(c["n_layer"])]
        if spec.get("layer_types", True):
            config["layer_types"] = types
        else:
            config["sliding_window_pattern"] = c["pattern"]
    if spec.get("rope_parameters"):  # the form recent transformers releases write
        if family == "gemma3_text":
            config["rope_parameters"] = {"full_attention": rope,
                                         "sliding_attention": {"rope_type": "default", "rope_theta": c["local_theta"]}}
        else:
            config["rope_parameters"] = rope
    else:
        config["rope_theta"] = c["theta"]
        config["rope_scaling"] = {k: v for k, v in rope.items() if k != "rope_theta"} if c.get("llama3") else None
        if family == "gemma3_text":
            config["rope_local_base_freq"] = c["local_theta"]
    if spec.get("wrapped"):  # Gemma3ForConditionalGeneration's config: the text model's under text_config
        config = {"model_type": "gemma3", "text_config": config, "architectures": ["Gemma3ForConditionalGeneration"]}
    return config


def settings_from_config(hf):
    """The settings of a published config.json, read as transformers' configuration classes read them (LlamaConfig,
    MistralConfig, Qwen2Config, Qwen3Config, Gemma3TextConfig: their defaults where a key is absent). A setting this
    reference does not compute is an error, never ignored."""
    family = hf["model_type"]
    gemma = family == "gemma3_text"
    if family not in ("llama", "mistral", "qwen2", "qwen3", "gemma3_text"):
        raise ValueError("model_type " + family)
    heads, hidden = hf["num_attention_heads"], hf["hidden_size"]
    act = hf.get("hidden_activation" if gemma else "hidden_act", "gelu_pytorch_tanh" if gemma else "silu")
    if act != ("gelu_pytorch_tanh" if gemma else "silu") or hf.get("mlp_bias") or hf.get("attention_bias"):
        raise ValueError("activation or biases not computed here")
    if hf.get("use_sliding_window") or hf.get("final_logit_softcapping") is not None or hf.get("attn_logit_softcapping") is not None:
        raise ValueError("sliding windows of Qwen, or softcapping")
    if hf.get("use_bidirectional_attention") or "rope_parameters" in hf:
        raise ValueError("bidirectional attention, or rope_parameters")
    scaling = hf.get("rope_scaling")
    if scaling is not None and scaling.get("rope_type", scaling.get("type")) != "llama3":
        raise ValueError("rope_scaling " + json.dumps(scaling))
    c = {"vocab": hf["vocab_size"], "hidden": hidden, "inner": hf["intermediate_size"], "n_layer": hf["num_hidden_layers"],
         "heads": heads, "kv_heads": hf.get("num_key_value_heads") or heads, "head_dim": hf.get("head_dim") or hidden // heads,
         "eps": hf.get("rms_norm_eps", 1e-6), "tie": hf.get("tie_word_embeddings", gemma),
         "theta": hf.get("rope_theta", 1e6 if gemma else 10000.0), "llama3": scaling,
         "local_theta": hf.get("rope_local_base_freq", 10000.0) if gemma else None, "gemma": gemma,
         "qkv_bias": family == "qwen2", "qk_norm": family in ("qwen3", "gemma3_text"), "window": 0, "pattern": 0,
         "query_pre_attn_scalar": hf.get("query_pre_attn_scalar", 256) if gemma else None, "sliding_layers": None}
    if family == "mistral" and hf.get("sliding_window") is not None:  # MistralModel: every layer slides
        c["window"], c["sliding_layers"] = hf["sliding_window"], [True] * c["n_layer"]
    if gemma:  # Gemma3TextConfig: layer_types, else every sliding_window_pattern-th layer attends fully
        c["window"] = hf["sliding_window"]
        pattern = hf.get("sliding_window_pattern", hf.get("_sliding_window_pattern", 6))
        types = hf.get("layer_types") or ["sliding_attention" if (i + 1) % pattern else "full_attention" for i in range(c["n_layer"])]
        c["sliding_layers"] = [t == "sliding_attention" for t in types]
    return c


def byte_level_tokenizer(vocab_size):
    """A small GPT-2-style tokenizer.json: the 256 byte-level symbols, merges of a fixed text up to vocab_size - 1
    tokens, and <|endoftext|> as the last id."""
    bs = list(range(ord("!"), ord("~") + 1)) + list(range(ord("¡"), ord("¬") + 1)) + list(range(ord("®"), ord("ÿ") + 1))
    cs, n = bs[:], 0
    for b in range(256):
        if b not in bs:
            bs.append(b)
            cs.append(256 + n)
            n += 1
    symbol = dict(zip(bs, (chr(x) for x in cs)))
    vocab = {symbol[b]: i for i, b in enumerate(range(256))}
    words = [[symbol[b] for b in (" " + w).encode()] for w in "the cat sat on the mat and the dog sat on the cat".split()]
    merges = []
    while len(vocab) < vocab_size - 1:
        counts = {}
        for w in words:
            for a, b in zip(w, w[1:]):
                counts[(a, b)] = counts.get((a, b), 0) + 1
        if not counts:
            break
        a, b = max(sorted(counts), key=lambda p: counts[p])
        merges.append(a + " " + b)
        vocab[a + b] = len(vocab)
        for w in words:
            i = 0
            while i < len(w) - 1:
                if w[i] == a and w[i + 1] == b:
                    w[i:i + 2] = [a + b]
                i += 1
    eot = len(vocab)
    vocab["<|endoftext|>"] = eot
    return {"version": "1.0", "added_tokens": [{"id": eot, "content": "<|endoftext|>", "special": True, "single_word": False,
                                                 "lstrip": False, "rstrip": False, "normalized": False}],
            "normalizer": None, "pre_tokenizer": {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True, "use_regex": True},
            "post_processor": None, "decoder": {"type": "ByteLevel"},
            "model": {"type": "BPE", "dropout": None, "unk_token": None, "vocab": vocab, "merges": merges}}


def build(spec, out):
    """A random model of spec's family, its folder and what the reference computes on it."""
    if "config_json" in spec:  # a published config.json, written as given, and the ids a test's tokenizer made
        return build_from_config(spec, out)
    family = spec["family"]
    gemma = family == "gemma3_text"
    c = {"vocab": spec.get("vocab", 320), "hidden": spec["hidden"], "inner": spec["inner"], "n_layer": spec["n_layer"],
         "heads": spec["heads"], "kv_heads": spec["kv_heads"], "head_dim": spec["head_dim"], "eps": spec.get("eps", 1e-6),
         "tie": spec.get("tie", True), "theta": spec.get("theta", 10000.0), "llama3": spec.get("llama3"),
         "local_theta": spec.get("local_theta") if gemma else None, "gemma": gemma, "qkv_bias": family == "qwen2",
         "qk_norm": family in ("qwen3", "gemma3_text"), "window": spec.get("window", 0), "pattern": spec.get("pattern", 0),
         "query_pre_attn_scalar": spec.get("query_pre_attn_scalar") if gemma else None}
    torch.manual_seed(spec.get("seed", 0))
    model = Decoder(c)
    dtype = spec.get("dtype", "F32")
    std = spec.get("std", 0.2)  # wide, so that a wrong step shows; the benchmark's deep model uses Llama's 0.02
    with torch.no_grad():
        for name, p in model.named_parameters():
            norm = name.endswith("norm.weight") or "layernorm" in name
            p.copy_((0 if gemma or not norm else 1) + std * torch.randn_like(p))
            p.copy_(p.to(DTYPES[dtype]).float())  # the numbers the file holds
    os.makedirs(out, exist_ok=True)
    tensors = {name: (dtype, t.to(DTYPES[dtype])) for name, t in hf_state_dict(model).items()}
    if spec.get("wrapped"):  # Gemma3ForConditionalGeneration keeps the text model under language_model
        tensors = {("language_model." + n): v for n, v in tensors.items()}
    names = list(tensors)
    shards = spec.get("shards", 1)
    if shards == 1:
        with open(os.path.join(out, "model.safetensors"), "wb") as f:
            f.write(safetensors_bytes(tensors))
    else:
        weight_map, total = {}, 0
        for s in range(shards):
            part = names[s::shards]
            file = "model-%05d-of-%05d.safetensors" % (s + 1, shards)
            with open(os.path.join(out, file), "wb") as f:
                f.write(safetensors_bytes({n: tensors[n] for n in part}))
            for n in part:
                weight_map[n] = file
                total += tensors[n][1].numel() * (4 if dtype == "F32" else 2)
        with open(os.path.join(out, "model.safetensors.index.json"), "w") as f:
            json.dump({"metadata": {"total_size": total}, "weight_map": weight_map}, f, indent=2)
    config = family_config(spec, c)
    with open(os.path.join(out, "config.json"), "w") as f:
        json.dump(config, f, indent=2)
    with open(os.path.join(out, "tokenizer.json"), "w") as f:
        json.dump(byte_level_tokenizer(c["vocab"]), f)

    g = torch.Generator().manual_seed(7)
    T = spec.get("T", 12)
    ids = torch.randint(0, c["vocab"], (2, T), generator=g)
    with torch.no_grad():
        logits, weights = model(ids)
        prompt = ids[:1]
        for _ in range(8):  # greedy, as generate(do_sample=False)
            next_logits, _ = model(prompt)
            prompt = torch.cat([prompt, next_logits[:, -1].argmax(-1, keepdim=True)], dim=1)
    expected = {"config": config, "ids": ids.tolist(), "logits": logits.flatten().tolist(),
                "attentions": [w.flatten().tolist() for w in weights], "greedy": prompt[0, T:].tolist()}
    with open(os.path.join(out, "expected.json"), "w") as f:
        json.dump(expected, f)
    if spec.get("onnx"):  # the same model for onnxruntime-web (npm run bench): logits of ids (1, T)
        model.eval()
        with torch.no_grad():
            torch.onnx.export(model, (ids[:1],), os.path.join(out, "model.onnx"), opset_version=17, input_names=["ids"],
                              output_names=["y"], dynamic_axes={"ids": {1: "T"}, "y": {1: "T"}})


def random_model(c, spec):
    """Decoder(c) with random weights: wide (std 0.2), so that a wrong step shows; the numbers as spec's dtype holds them."""
    torch.manual_seed(spec.get("seed", 0))
    model = Decoder(c)
    with torch.no_grad():
        for name, p in model.named_parameters():
            norm = name.endswith("norm.weight") or "layernorm" in name
            p.copy_((0 if c["gemma"] or not norm else 1) + spec.get("std", 0.2) * torch.randn_like(p))
            p.copy_(p.to(DTYPES[spec["dtype"]]).float())
    return model


def build_from_config(spec, out):
    """A folder of a random model with a published config.json (spec["config_json"], its sizes shrunk) and no tokenizer
    (the test brings the model's own; "byte_level_tokenizer": true writes the small one), and what the reference
    computes on spec["inputs"] (write_runs)."""
    model = random_model(settings_from_config(spec["config_json"]), spec)
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, "model.safetensors"), "wb") as f:
        f.write(safetensors_bytes({n: (spec["dtype"], t.to(DTYPES[spec["dtype"]])) for n, t in hf_state_dict(model).items()}))
    with open(os.path.join(out, "config.json"), "w") as f:
        json.dump(spec["config_json"], f, indent=2)
    if spec.get("byte_level_tokenizer"):  # for a model whose own tokenizer the test does not have
        with open(os.path.join(out, "tokenizer.json"), "w") as f:
            json.dump(byte_level_tokenizer(spec["config_json"]["vocab_size"]), f)
    write_runs(model, spec["inputs"], out)


def main():
    out, specs = sys.argv[1], json.loads(sys.argv[2])
    torch.set_num_threads(1)
    for spec in specs:
        build(spec, os.path.join(out, spec["name"]))
    print("llama_reference: wrote " + ", ".join(s["name"] for s in specs))


if __name__ == "__main__":
    main()
