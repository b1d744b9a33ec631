#!/usr/bin/env python3
"""Fit the weights chapters 3 and 6 open on, so the concept shows at first sight.

With the notebooks' torch.rand weights every query of chapter 3 gives its highest score to the same key and
chapter 6's heads are interchangeable. These weights are fitted by gradient descent to a stated target instead;
the chapters say so and keep the seeded weights one switch away.

  Chapter 3 (SelfAttention_v1 on "Your journey starts with one step", d_in = 3): W_query and W_key, one pair per
  d_out from 1 to 8, fitted so that each word attends to the word of its phrase: Your -> journey, journey -> Your,
  starts -> journey (its subject), with -> step, one -> step, step -> one. W_value stays torch.rand.

  Chapter 6 (MultiHeadAttention(12, 4) on x = token_embedding + position_embedding): the position embedding and
  W_q, W_k fitted so that head 1 attends to the previous word, head 2 to the first word, head 3 to the word itself,
  head 4 to the next word, on sentences of 1 to 16 random words whose token embeddings are drawn afresh
  (nn.Embedding's N(0, 1)), so they hold for any sentence and seed. W_v and W_o are the identity: each head
  passes on its own three columns of the words it attends to.

Every number is rounded to two decimals, so the chapters' "Copy as PyTorch" scripts stay short; the fit's
report is measured after rounding. Usage: /usr/bin/python3 tools/fit_site_weights.py  (about a minute on 2 cores)
writes web/site/chapters/fitted-weights.json.
"""
import json
import pathlib
import random

import torch
import torch.nn.functional as F

OUT = pathlib.Path(__file__).resolve().parent.parent / 'web/site/chapters/fitted-weights.json'

# Chapter 3: notebook 000's inputs and the phrase each word belongs to.
TOKENS = ['Your', 'journey', 'starts', 'with', 'one', 'step']
INPUTS = torch.tensor([[0.43, 0.15, 0.89], [0.55, 0.87, 0.66], [0.57, 0.85, 0.64],
                       [0.22, 0.58, 0.33], [0.77, 0.25, 0.10], [0.05, 0.80, 0.55]])
PARTNER = ['journey', 'Your', 'journey', 'step', 'step', 'one']

# Chapter 6: d_model, heads and the position embedding's rows, as the chapter builds them.
D_MODEL, HEADS, MAX_WORDS = 12, 4, 16
JOBS = ['the previous word', 'the first word', 'the word itself', 'the next word']


def rounded(t):
    return torch.round(t * 100) / 100


def fit_chapter3(d_out):
    """The best of four starts: W_query, W_key (3, d_out) maximising the partners' weights."""
    target = torch.tensor([TOKENS.index(p) for p in PARTNER])
    best = None
    for start in range(4):
        torch.manual_seed(start)
        wq = torch.randn(3, d_out, requires_grad=True)
        wk = torch.randn(3, d_out, requires_grad=True)
        opt = torch.optim.Adam([wq, wk], lr=0.05)
        for _ in range(3000):
            scores = (INPUTS @ wq) @ (INPUTS @ wk).T / d_out ** 0.5
            loss = F.cross_entropy(scores, target) + 1e-3 * (wq.pow(2).sum() + wk.pow(2).sum())
            opt.zero_grad()
            loss.backward()
            opt.step()
        wq, wk = rounded(wq.detach()), rounded(wk.detach())
        weights = torch.softmax((INPUTS @ wq) @ (INPUTS @ wk).T / d_out ** 0.5, -1)
        kept = weights[torch.arange(6), target].sum().item()
        if best is None or kept > best[0]:
            best = (kept, wq, wk, weights)
    _, wq, wk, weights = best
    strongest = [TOKENS[j] for j in weights.argmax(-1).tolist()]
    print(f'chapter 3, d_out = {d_out}: strongest keys {strongest}')
    return {'W_query': wq.tolist(), 'W_key': wk.tolist()}


def head_targets(ids):
    """(HEADS, T, T): where each head should put its weight, one row per query."""
    T = len(ids)
    t = torch.zeros(HEADS, T, T)
    for i in range(T):
        t[0, i, max(i - 1, 0)] = 1
        t[1, i, 0] = 1
        t[2, i, i] = 1
        t[3, i, min(i + 1, T - 1)] = 1
    return t


def head_scores(x, wq, wk):
    T, dk = x.shape[0], D_MODEL // HEADS
    q = (x @ wq.T).view(T, HEADS, dk).transpose(0, 1)
    k = (x @ wk.T).view(T, HEADS, dk).transpose(0, 1)
    return q @ k.transpose(-1, -2) / dk ** 0.5


def sentences(n, rng):
    """n random sentences: word ids with repeats and fresh N(0, 1) token embeddings."""
    out = []
    for _ in range(n):
        T = rng.randint(1, MAX_WORDS)
        vocab = rng.randint(max(1, T // 2), T)
        out.append(([rng.randrange(vocab) for _ in range(T)], torch.randn(vocab, D_MODEL)))
    return out


def fit_chapter6():
    torch.manual_seed(0)
    rng = random.Random(0)
    pos = torch.randn(MAX_WORDS, D_MODEL, requires_grad=True)
    wq = (torch.randn(D_MODEL, D_MODEL) * 0.3).requires_grad_()
    wk = (torch.randn(D_MODEL, D_MODEL) * 0.3).requires_grad_()
    params = [pos, wq, wk]
    opt = torch.optim.Adam(params, lr=0.01)
    for _ in range(4000):
        loss = 0
        batch = sentences(32, rng)
        for ids, emb in batch:
            T = len(ids)
            scores = head_scores(emb[ids] + pos[:T], wq, wk)
            target = head_targets(ids)
            if rng.random() < 0.5:
                # Causal: the next word is masked, so the fourth head is not asked for it.
                scores = scores.masked_fill(torch.triu(torch.ones(T, T, dtype=torch.bool), 1), float('-inf'))
                loss = loss - (target[:3] * torch.log_softmax(scores[:3], -1).clamp(min=-1e4)).sum() / T
            else:
                loss = loss - (target * torch.log_softmax(scores, -1)).sum() / T
        loss = loss / len(batch) + 1e-4 * sum(p.pow(2).sum() for p in params)
        opt.zero_grad()
        loss.backward()
        opt.step()
    pos, wq, wk = rounded(pos.detach()), rounded(wq.detach()), rounded(wk.detach())
    hits, count = torch.zeros(HEADS), 0
    with torch.no_grad():
        for ids, emb in sentences(1000, random.Random(1)):
            target = head_targets(ids)
            chosen = head_scores(emb[ids] + pos[:len(ids)], wq, wk).argmax(-1, keepdim=True)
            hits += target.gather(-1, chosen).squeeze(-1).mean(-1)
            count += 1
    for job, share in zip(JOBS, (hits / count).tolist()):
        print(f'chapter 6: {share:.1%} of queries give their highest score to {job}')
    identity = torch.eye(D_MODEL).tolist()
    return {'position_embedding': pos.tolist(), 'W_q.weight': wq.tolist(), 'W_k.weight': wk.tolist(),
            'W_v.weight': identity, 'W_o.weight': identity}


def main():
    fitted = {
        'about': 'Written by tools/fit_site_weights.py; its docstring says what each part is fitted to.',
        'chapter3': {str(d): fit_chapter3(d) for d in range(1, 9)},
        'chapter6': fit_chapter6(),
    }
    OUT.write_text(json.dumps(fitted, separators=(',', ':')) + '\n')
    print(f'wrote {OUT}')


if __name__ == '__main__':
    main()
