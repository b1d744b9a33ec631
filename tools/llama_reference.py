"""The layers today's decoders (Llama, Mistral, Qwen, Gemma) add to GPT-2's, in plain torch, as Hugging Face's
transformers computes them (transformers is not installed here). Each function says which code it mirrors:
modeling_rope_utils.py's _compute_default_rope_parameters and _compute_llama3_parameters, modeling_llama.py's
LlamaRotaryEmbedding.forward, rotate_half and repeat_kv, masking_utils' sliding_window_causal. tools/make_golden.py
computes the golden numbers of tests/golden/llama_layers.json with them.
"""
import math

import torch


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
    freqs = (inv_freq[:, None].float() @ torch.tensor(positions)[None, :].float()).transpose(0, 1)  # (T, D/2)
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
