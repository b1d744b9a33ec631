"""The PyTorch modules this project's numbers are checked against, written as the notebooks and nanoGPT write them:
tools/make_golden.py computes the golden numbers with them, bench/ times them, tests/fixtures/ saves nanoGPT
checkpoints of them. Plain torch, nothing of this project's library."""
import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class SelfAttentionV1(nn.Module):  # notebooks 000 §5.1 and 002 §8 (docs/notebooks.md)
    def __init__(self, d_in, d_out):
        super().__init__()
        self.W_query = nn.Parameter(torch.rand(d_in, d_out))
        self.W_key = nn.Parameter(torch.rand(d_in, d_out))
        self.W_value = nn.Parameter(torch.rand(d_in, d_out))

    def forward(self, x):
        queries, keys, values = x @ self.W_query, x @ self.W_key, x @ self.W_value
        return torch.softmax(queries @ keys.T / keys.shape[-1] ** 0.5, dim=-1) @ values


class SelfAttentionV2(nn.Module):  # notebooks 000 §5.2 and 002 §9
    def __init__(self, d_in, d_out, qkv_bias=False):
        super().__init__()
        self.W_query = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_key = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_value = nn.Linear(d_in, d_out, bias=qkv_bias)

    def forward(self, x):
        queries, keys, values = self.W_query(x), self.W_key(x), self.W_value(x)
        return torch.softmax(queries @ keys.T / keys.shape[-1] ** 0.5, dim=-1) @ values


class NotebookMultiHeadAttention(nn.Module):
    """Notebook 001 §7: W_q, W_k, W_v, W_o bias-free, heads by view/transpose, masked_fill(mask == 0, -1e9)
    after mask.unsqueeze(1), so a (B, T, T) mask applies per batch row."""

    def __init__(self, d_model, num_heads):
        super().__init__()
        self.num_heads, self.d_k, self.d_model = num_heads, d_model // num_heads, d_model
        self.W_q = nn.Linear(d_model, d_model, bias=False)
        self.W_k = nn.Linear(d_model, d_model, bias=False)
        self.W_v = nn.Linear(d_model, d_model, bias=False)
        self.W_o = nn.Linear(d_model, d_model, bias=False)

    def forward(self, x, mask=None):
        B, T, _ = x.shape
        split = lambda y: y.view(B, T, self.num_heads, self.d_k).transpose(1, 2)
        Q, K, V = split(self.W_q(x)), split(self.W_k(x)), split(self.W_v(x))
        scores = Q @ K.transpose(-2, -1) / self.d_k ** 0.5
        if mask is not None:
            scores = scores.masked_fill(mask.unsqueeze(1) == 0, -1e9)
        weights = F.softmax(scores, dim=-1)
        out = (weights @ V).transpose(1, 2).contiguous().view(B, T, self.d_model)
        return self.W_o(out), weights


class SimpleLanguageModel(nn.Module):
    """Notebook 001 §8 (post-norm, ReLU). The notebook builds its causal mask as (T, T), which
    MultiHeadAttention's mask.unsqueeze(1) cannot broadcast against (B, H, T, T); the (1, T, T) mask of its
    §6 and §7 examples is what it means."""

    def __init__(self, vocab_size, d_model, num_heads, d_ff, max_seq_length):
        super().__init__()
        self.token_embedding = nn.Embedding(vocab_size, d_model)
        self.position_embedding = nn.Embedding(max_seq_length, d_model)
        self.attention = NotebookMultiHeadAttention(d_model, num_heads)
        self.feed_forward = nn.Sequential(nn.Linear(d_model, d_ff), nn.ReLU(), nn.Linear(d_ff, d_model))
        self.norm1 = nn.LayerNorm(d_model)
        self.norm2 = nn.LayerNorm(d_model)
        self.output_projection = nn.Linear(d_model, vocab_size)

    def forward(self, x):
        B, T = x.shape
        positions = torch.arange(T).unsqueeze(0).expand(B, -1)
        x = self.token_embedding(x) + self.position_embedding(positions)
        attn_output, _ = self.attention(x, torch.ones(T, T).tril().unsqueeze(0))
        x = self.norm1(x + attn_output)
        x = self.norm2(x + self.feed_forward(x))
        return self.output_projection(x)


class Block(nn.Module):
    """A pre-norm transformer block with nanoGPT's parameter names: x + attn(ln_1(x)), then x + mlp(ln_2(x))."""

    def __init__(self, n_embd, n_head, bias):
        super().__init__()
        self.n_head = n_head
        self.ln_1 = nn.LayerNorm(n_embd)
        self.c_attn = nn.Linear(n_embd, 3 * n_embd, bias=bias)
        self.attn_c_proj = nn.Linear(n_embd, n_embd, bias=bias)
        self.ln_2 = nn.LayerNorm(n_embd)
        self.c_fc = nn.Linear(n_embd, 4 * n_embd, bias=bias)
        self.mlp_c_proj = nn.Linear(4 * n_embd, n_embd, bias=bias)
        if not bias:  # PyTorch 1.13's LayerNorm has no bias=False: a bias fixed at 0, not a parameter
            for ln in (self.ln_1, self.ln_2):
                del ln.bias
                ln.register_buffer("bias", torch.zeros(n_embd))

    def forward(self, x):
        B, T, C = x.shape
        q, k, v = self.c_attn(self.ln_1(x)).split(C, dim=2)
        heads = lambda y: y.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
        att = heads(q) @ heads(k).transpose(-2, -1) / math.sqrt(C // self.n_head)
        att = att.masked_fill(~torch.ones(T, T, dtype=torch.bool).tril(), float("-inf"))
        y = (F.softmax(att, dim=-1) @ heads(v)).transpose(1, 2).contiguous().view(B, T, C)
        x = x + self.attn_c_proj(y)
        return x + self.mlp_c_proj(F.gelu(self.c_fc(self.ln_2(x))))


class NanoGPT(nn.Module):
    """nanoGPT's GPT: token + position embeddings, pre-norm blocks, a final LayerNorm, lm_head without bias
    (tied to the token embedding or not); its initialisation (normal(0, 0.02) for every Linear and Embedding,
    zero biases, then normal(0, 0.02/√(2·n_layer)) for the residual projections)."""

    def __init__(self, vocab_size, block_size, n_layer, n_head, n_embd, bias, tie):
        super().__init__()
        self.wte = nn.Embedding(vocab_size, n_embd)
        self.wpe = nn.Embedding(block_size, n_embd)
        self.h = nn.ModuleList([Block(n_embd, n_head, bias) for _ in range(n_layer)])
        self.ln_f = nn.LayerNorm(n_embd)
        if not bias:
            del self.ln_f.bias
            self.ln_f.register_buffer("bias", torch.zeros(n_embd))
        self.lm_head = nn.Linear(n_embd, vocab_size, bias=False)
        if tie:
            self.wte.weight = self.lm_head.weight
        self.tie = tie
        for module in self.modules_in_init_order():
            torch.nn.init.normal_(module.weight, mean=0.0, std=0.02)
            if isinstance(module, nn.Linear) and module.bias is not None:
                torch.nn.init.zeros_(module.bias)
        for block in self.h:
            for proj in (block.attn_c_proj, block.mlp_c_proj):
                torch.nn.init.normal_(proj.weight, mean=0.0, std=0.02 / math.sqrt(2 * n_layer))

    def modules_in_init_order(self):
        """nn.Module.apply's order over nanoGPT's module tree: wte, wpe, then each block's c_attn, c_proj,
        c_fc, c_proj, then lm_head."""
        yield self.wte
        yield self.wpe
        for block in self.h:
            yield from (block.c_attn, block.attn_c_proj, block.c_fc, block.mlp_c_proj)
        yield self.lm_head

    def named_in_state_dict_order(self):
        """(nanoGPT's state_dict name, parameter), a tied lm_head listed once as transformer.wte.weight."""
        out = [("transformer.wte.weight", self.wte.weight), ("transformer.wpe.weight", self.wpe.weight)]
        for i, b in enumerate(self.h):
            p = f"transformer.h.{i}."
            out += [(p + "ln_1.weight", b.ln_1.weight)]
            if isinstance(b.ln_1.bias, nn.Parameter):
                out += [(p + "ln_1.bias", b.ln_1.bias)]
            out += [(p + "attn.c_attn.weight", b.c_attn.weight)] + ([(p + "attn.c_attn.bias", b.c_attn.bias)] if b.c_attn.bias is not None else [])
            out += [(p + "attn.c_proj.weight", b.attn_c_proj.weight)] + ([(p + "attn.c_proj.bias", b.attn_c_proj.bias)] if b.attn_c_proj.bias is not None else [])
            out += [(p + "ln_2.weight", b.ln_2.weight)] + ([(p + "ln_2.bias", b.ln_2.bias)] if isinstance(b.ln_2.bias, nn.Parameter) else [])
            out += [(p + "mlp.c_fc.weight", b.c_fc.weight)] + ([(p + "mlp.c_fc.bias", b.c_fc.bias)] if b.c_fc.bias is not None else [])
            out += [(p + "mlp.c_proj.weight", b.mlp_c_proj.weight)] + ([(p + "mlp.c_proj.bias", b.mlp_c_proj.bias)] if b.mlp_c_proj.bias is not None else [])
        out += [("transformer.ln_f.weight", self.ln_f.weight)]
        if isinstance(self.ln_f.bias, nn.Parameter):
            out += [("transformer.ln_f.bias", self.ln_f.bias)]
        if not self.tie:
            out += [("lm_head.weight", self.lm_head.weight)]
        return out

    def forward(self, idx, targets=None):
        x = self.wte(idx) + self.wpe(torch.arange(idx.shape[1]))
        for block in self.h:
            x = block(x)
        logits = self.lm_head(self.ln_f(x))
        loss = None if targets is None else F.cross_entropy(logits.view(-1, logits.shape[-1]), targets.view(-1))
        return logits, loss


def get_lr(it, learning_rate, warmup_iters, lr_decay_iters, min_lr):
    """nanoGPT's schedule: linear warm-up from lr/(warmup+1), then cosine decay to min_lr."""
    if it < warmup_iters:
        return learning_rate * (it + 1) / (warmup_iters + 1)
    if it > lr_decay_iters:
        return min_lr
    ratio = (it - warmup_iters) / (lr_decay_iters - warmup_iters)
    return min_lr + 0.5 * (1.0 + math.cos(math.pi * ratio)) * (learning_rate - min_lr)
