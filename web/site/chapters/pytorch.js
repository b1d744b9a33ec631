// "Copy as PyTorch": for chapters 2–6, a short script in the notebooks' own
// code that rebuilds what the reader is looking at (the same seed, the same
// construction order, the reader's inputs, mask and options) and prints the
// tensors the figures show. Each script returns with `prints`, the figure each
// printed name is drawn in: a figure's data-figure, 'hero:<id>' for a matrix of
// the chapter's hero (pipeline.js), 'head:<h>' for chapter 6's hero following
// head h (tests/browser/pytorch.test.js runs the scripts with real PyTorch and
// compares).

/** The shortest decimal that reads back as the same float32: 0.43, not 0.4300000071525574. */
function float32Literal(x) {
  if (!Number.isFinite(x)) return Number.isNaN(x) ? "float('nan')" : `float('${x > 0 ? 'inf' : '-inf'}')`;
  for (let digits = 1; digits <= 9; digits++) {
    const text = x.toPrecision(digits);
    if (Math.fround(Number(text)) === Math.fround(x)) return String(Number(text));
  }
  return String(x);
}

/** A Python literal for a (rows, cols) Float32Array, one row per line, each with its label as a comment. */
function matrixLiteral(data, rows, cols, labels, indent = '    ') {
  const lines = [];
  for (let i = 0; i < rows; i++) {
    const row = Array.from(data.subarray(i * cols, (i + 1) * cols), float32Literal).join(', ');
    lines.push(`${indent}[${row}],${labels ? `  # ${labels[i]}` : ''}`);
  }
  return `[\n${lines.join('\n')}\n]`;
}

/** A Python literal for nested arrays of numbers (fitted weights), one row per line. */
function nested(rows, indent) {
  const data = Float32Array.from(rows.flat());
  return matrixLiteral(data, rows.length, rows[0].length, null, `${indent}    `).replace(/\n\]$/, `\n${indent}]`);
}

/** A Python float for a JS number (a double, as Python's float). */
const doubleLiteral = (x) => (Number.isFinite(x) ? String(x) : float32Literal(x));

const pythonString = (s) => JSON.stringify(s); // JSON's escapes are Python's too

// Notebook 000, cells 136-139 (and notebook 002): the first trainable self-attention.
const SELF_ATTENTION_V1 = `class SelfAttention_v1(nn.Module):
    def __init__(self, d_in, d_out):
        super().__init__()
        self.W_query = nn.Parameter(torch.rand(d_in, d_out))
        self.W_key = nn.Parameter(torch.rand(d_in, d_out))
        self.W_value = nn.Parameter(torch.rand(d_in, d_out))

    def forward(self, x):
        keys = x @ self.W_key
        queries = x @ self.W_query
        values = x @ self.W_value
        attn_scores = queries @ keys.T  # omega
        attn_weights = torch.softmax(attn_scores / keys.shape[-1] ** 0.5, dim=-1)
        context_vec = attn_weights @ values
        return context_vec`;

// Notebook 001 §7 (docs/notebooks.md).
const MULTI_HEAD_ATTENTION = `class MultiHeadAttention(nn.Module):
    def __init__(self, d_model, num_heads):
        super().__init__()
        assert d_model % num_heads == 0
        self.d_model = d_model
        self.num_heads = num_heads
        self.d_k = d_model // num_heads
        self.W_q = nn.Linear(d_model, d_model, bias=False)
        self.W_k = nn.Linear(d_model, d_model, bias=False)
        self.W_v = nn.Linear(d_model, d_model, bias=False)
        self.W_o = nn.Linear(d_model, d_model, bias=False)

    def forward(self, x, mask=None):
        batch_size, seq_len, _ = x.shape
        Q = self.W_q(x).view(batch_size, seq_len, self.num_heads, self.d_k).transpose(1, 2)
        K = self.W_k(x).view(batch_size, seq_len, self.num_heads, self.d_k).transpose(1, 2)
        V = self.W_v(x).view(batch_size, seq_len, self.num_heads, self.d_k).transpose(1, 2)
        scores = Q @ K.transpose(-2, -1) / self.d_k ** 0.5
        if mask is not None:
            scores = scores.masked_fill(mask.unsqueeze(1) == 0, -1e9)
        attn_weights = F.softmax(scores, dim=-1)
        output = (attn_weights @ V).transpose(1, 2).contiguous().view(batch_size, seq_len, self.d_model)
        return self.W_o(output), attn_weights`;

/** The script's text from its lines, and which figure each printed name is drawn in. */
const script = (lines, prints) => ({ code: `${lines.join('\n')}\n`, prints });

/** Chapter 2: notebook 000's attention without weights, for the reader's inputs, query and factor. */
export function chapter2({ inputs, tokens, query, factor }) {
  const [T, d] = inputs.shape;
  const prints = { attn_scores_q: 'query-scores', attn_scores: 'hero:scores', attn_weights: 'hero:weights', all_context_vecs: 'hero:context' };
  const lines = [
    'import torch',
    '',
    `inputs = torch.tensor(${matrixLiteral(inputs.data, T, d, tokens)})`,
    '',
    `# The scores of one query, "${tokens[query]}" (notebook 000 §2.2)`,
    `query = inputs[${query}]`,
    'attn_scores_q = torch.empty(inputs.shape[0])',
    'for i, x_i in enumerate(inputs):',
    '    attn_scores_q[i] = torch.dot(x_i, query)',
    'print("attn_scores_q =", attn_scores_q)',
  ];
  if (factor !== null) {
    Object.assign(prints, { normalized: 'sum-normalised', naive: 'naive-softmax', softmax: 'softmax' });
    lines.push(
      '',
      '# Three ways to normalise them, after multiplying by a factor (§2.3-§2.5)',
      'def softmax_naive(x):',
      '    return torch.exp(x) / torch.exp(x).sum(dim=0)',
      '',
      `scaled = attn_scores_q * ${doubleLiteral(factor)}`,
      'print("normalized =", scaled / scaled.sum())',
      'print("naive =", softmax_naive(scaled))',
      'print("softmax =", torch.softmax(scaled, dim=0))',
    );
  }
  lines.push(
    '',
    '# Every query at once (§3)',
    'attn_scores = inputs @ inputs.T',
    'attn_weights = torch.softmax(attn_scores, dim=-1)',
    'all_context_vecs = attn_weights @ inputs',
    'print("attn_scores =", attn_scores)',
    'print("attn_weights =", attn_weights)',
    'print("all_context_vecs =", all_context_vecs)',
  );
  return script(lines, prints);
}

/** Chapter 3: SelfAttention_v1 with the reader's seed, d_out and inputs. */
export function chapter3({ inputs, tokens, seed, dOut, fitted }) {
  const [T, d] = inputs.shape;
  const load = fitted ? [
    '# The page\'s fitted W_query and W_key (tools/fit_site_weights.py); W_value stays torch.rand\'s.',
    'sa_v1.load_state_dict({',
    `    "W_query": torch.tensor(${nested(fitted.W_query, '    ')}),`,
    `    "W_key": torch.tensor(${nested(fitted.W_key, '    ')}),`,
    '}, strict=False)',
  ] : [];
  return script([
    'import torch',
    'import torch.nn as nn',
    '',
    `inputs = torch.tensor(${matrixLiteral(inputs.data, T, d, tokens)})`,
    `d_in, d_out = ${d}, ${dOut}`,
    '',
    SELF_ATTENTION_V1,
    '',
    `torch.manual_seed(${seed})`,
    'sa_v1 = SelfAttention_v1(d_in, d_out)',
    ...load,
    'with torch.no_grad():',
    '    print("W_query =", sa_v1.W_query.data)',
    '    print("W_key =", sa_v1.W_key.data)',
    '    print("W_value =", sa_v1.W_value.data)',
    '    # forward(), step by step',
    '    queries = inputs @ sa_v1.W_query',
    '    keys = inputs @ sa_v1.W_key',
    '    values = inputs @ sa_v1.W_value',
    '    attn_scores = queries @ keys.T',
    '    scaled_scores = attn_scores / keys.shape[-1] ** 0.5',
    '    attn_weights = torch.softmax(scaled_scores, dim=-1)',
    '    print("queries =", queries)',
    '    print("keys =", keys)',
    '    print("values =", values)',
    '    print("attn_scores =", attn_scores)',
    '    print("scaled_scores =", scaled_scores)',
    '    print("attn_weights =", attn_weights)',
    '    print("context_vec =", sa_v1(inputs))',
  ], {
    W_query: 'W_query', W_key: 'W_key', W_value: 'W_value', queries: 'hero:queries', keys: 'hero:keys', values: 'hero:values',
    attn_scores: 'hero:scores', scaled_scores: 'hero:scaled-scores', attn_weights: 'hero:weights', context_vec: 'hero:context',
  });
}

/** Chapter 4: notebook 004's experiments, with the reader's factor and d_k. */
export function chapter4({ factor, dk }) {
  return script([
    'import math',
    '',
    'import torch',
    '',
    '# Multiplying scores sharpens the softmax',
    'torch.manual_seed(4)',
    'scores = torch.randn(8)',
    `scaled = scores * ${doubleLiteral(factor)}`,
    'print("scaled =", scaled)',
    'print("softmax =", torch.softmax(scaled, dim=0))',
    '',
    `# One query against 8 keys with d_k = ${dk}: without and with the 1/sqrt(d_k) scaling`,
    'torch.manual_seed(7)',
    `q = torch.randn(1, ${dk})`,
    `k = torch.randn(8, ${dk})`,
    'v = torch.randn(8, 1)',
    'print("unscaled_weights =", torch.softmax(q @ k.T, dim=-1))',
    `print("scaled_weights =", torch.softmax(q @ k.T / math.sqrt(${dk}), dim=-1))`,
  ], { scaled: 'raw-scores', softmax: 'scaled-softmax', unscaled_weights: 'unscaled-weights', scaled_weights: 'scaled-weights' });
}

/** Chapter 5: the reader's mask (causal, padding, cells) on notebook 000's example. */
export function chapter5({ inputs, tokens, causal, length, cells, fillValue, mask }) {
  const [T, d] = inputs.shape;
  const fill = fillValue === -Infinity ? "float('-inf')" : '-1e9';
  const lines = [
    'import torch',
    'import torch.nn as nn',
    '',
    `inputs = torch.tensor(${matrixLiteral(inputs.data, T, d, tokens)})`,
    '',
    SELF_ATTENTION_V1,
    '',
    'torch.manual_seed(123)',
    `sa_v1 = SelfAttention_v1(${d}, 2)`,
    'with torch.no_grad():',
    '    queries = inputs @ sa_v1.W_query',
    '    keys = inputs @ sa_v1.W_key',
    '    scaled_scores = queries @ keys.T / keys.shape[-1] ** 0.5',
    '',
    '# 1 = attend, 0 = masked',
    `mask = torch.ones(${T}, ${T})`,
  ];
  if (causal) lines.push('mask = torch.tril(mask)  # no query sees a later key');
  if (length < T) lines.push(`mask[:, ${length}:] = 0  # padding: only the first ${length} keys are real`);
  for (const [i, j] of cells) lines.push(`mask[${i}, ${j}] = 0  # query "${tokens[i]}", key "${tokens[j]}"`);
  lines.push(
    `masked_scores = scaled_scores.masked_fill(mask == 0, ${fill})`,
    'attn_weights = torch.softmax(masked_scores, dim=-1)',
  );
  const rowAllMasked = Array.from({ length: T }, (_, i) => mask.data.subarray(i * T, (i + 1) * T).every((m) => m === 0)).some(Boolean);
  if (rowAllMasked && fillValue === -Infinity) {
    lines.push('# A row of -inf has no softmax: PyTorch gives NaN, the page shows zeros', 'attn_weights = attn_weights.nan_to_num(0.0)');
  }
  lines.push(
    '# The mask as the formula adds it, and as the page draws it: 0 to attend, -inf to mask',
    "M = torch.zeros_like(mask).masked_fill(mask == 0, float('-inf'))",
    'print("M =", M)',
    'print("masked_scores =", masked_scores)',
    'print("weights_without_mask =", torch.softmax(scaled_scores, dim=-1))',
    'print("attn_weights =", attn_weights)',
  );
  return script(lines, { M: 'hero:mask', masked_scores: 'hero:masked-scores', weights_without_mask: 'weights-before', attn_weights: 'hero:weights' });
}

/** Chapter 6: notebook 001's MultiHeadAttention on the reader's sentence, num_heads, mask and seed. */
export function chapter6({ words, numHeads, causal, seed, dModel, maxWords, fitted }) {
  const prints = {};
  for (let h = 0; h < numHeads; h++) prints[`head_${h + 1}`] = `head:${h}`;
  return script([
    'import torch',
    'import torch.nn as nn',
    'import torch.nn.functional as F',
    '',
    MULTI_HEAD_ATTENTION,
    '',
    `words = ${pythonString(words.join(' '))}.split()`,
    'vocab = sorted(set(words))',
    'ids = torch.tensor([vocab.index(w) for w in words])',
    '',
    `torch.manual_seed(${seed})`,
    `token_embedding = nn.Embedding(len(vocab), ${dModel})`,
    `position_embedding = nn.Embedding(${maxWords}, ${dModel})`,
    `mha = MultiHeadAttention(${dModel}, ${numHeads})`,
    ...(fitted ? [
      '# The page\'s fitted weights (tools/fit_site_weights.py): positions, W_q and W_k; W_v and W_o the identity.',
      'with torch.no_grad():',
      `    position_embedding.weight.copy_(torch.tensor(${nested(fitted.position_embedding, '    ')}))`,
      'mha.load_state_dict({',
      `    "W_q.weight": torch.tensor(${nested(fitted['W_q.weight'], '    ')}),`,
      `    "W_k.weight": torch.tensor(${nested(fitted['W_k.weight'], '    ')}),`,
      `    "W_v.weight": torch.eye(${dModel}),`,
      `    "W_o.weight": torch.eye(${dModel}),`,
      '})',
    ] : []),
    'with torch.no_grad():',
    '    x = (token_embedding(ids) + position_embedding(torch.arange(len(words)))).unsqueeze(0)  # (1, T, d_model)',
    causal
      ? '    mask = torch.tril(torch.ones(len(words), len(words))).unsqueeze(0)  # causal'
      : '    mask = None',
    '    output, attn_weights = mha(x, mask)',
    `    for h in range(${numHeads}):`,
    '        print(f"head_{h + 1} =", attn_weights[0, h])',
  ], prints);
}

// Hugging Face's RoPE (modeling_llama.py's rotate_half and apply_rotary_pos_emb; modeling_rope_utils.py's inv_freq
// and its llama3 scaling), written out.
const HF_ROPE = `def inv_freq(dim, theta, llama3=None):
    f = 1.0 / (theta ** (torch.arange(0, dim, 2, dtype=torch.int64).float() / dim))
    if llama3 is None:
        return f
    factor, low, high, old_context = llama3
    wavelen = 2 * math.pi / f
    slowed = torch.where(wavelen > old_context / low, f / factor, f)
    smooth = (old_context / wavelen - low) / (high - low)
    smoothed = (1 - smooth) * slowed / factor + smooth * slowed
    medium = ~(wavelen < old_context / high) * ~(wavelen > old_context / low)
    return torch.where(medium, smoothed, slowed)


def rotate_half(x):
    half = x.shape[-1] // 2
    return torch.cat((-x[..., half:], x[..., :half]), dim=-1)


def apply_rope(x, positions, f):
    freqs = torch.tensor(positions).float()[:, None] * f[None, :]  # (T, d/2): position × frequency
    emb = torch.cat((freqs, freqs), dim=-1)
    return x * emb.cos() + rotate_half(x) * emb.sin()`;

/** Where order comes from: the two orders' outputs, the sinusoidal positions, RoPE's shifted scores and bands. */
export function positions({ a, b, vocab, seed, sinusoidal, dModel, head, bands, m, n, shift, rope, llama3 }) {
  const scaled = rope.ropeScaling === 'llama3';
  return script([
    'import math',
    '',
    'import torch',
    'import torch.nn as nn',
    '',
    SELF_ATTENTION_V1,
    '',
    '',
    'def sinusoidal_positions(T, d):  # Vaswani et al. 2017, section 3.5',
    '    position = torch.arange(T).unsqueeze(1)',
    '    div_term = torch.exp(torch.arange(0, d, 2) * (-math.log(10000.0) / d))',
    '    pe = torch.zeros(T, d)',
    '    pe[:, 0::2] = torch.sin(position * div_term)',
    '    pe[:, 1::2] = torch.cos(position * div_term)',
    '    return pe',
    '',
    '',
    HF_ROPE,
    '',
    '',
    `words = ${pythonString(a.join(' '))}.split()`,
    `reordered = ${pythonString(b.join(' '))}.split()`,
    `vocab = ${JSON.stringify(vocab)}`,
    `torch.manual_seed(${seed})`,
    `embedding = nn.Embedding(len(vocab), ${dModel})`,
    `sa_v1 = SelfAttention_v1(${dModel}, ${dModel})`,
    'with torch.no_grad():',
    '    def outputs_of(ws):',
    '        x = embedding(torch.tensor([vocab.index(w) for w in ws]))',
    sinusoidal ? `        x = x + sinusoidal_positions(len(ws), ${dModel})  # positions added` : '        # no positions: attention sees a set of words',
    '        return sa_v1(x)',
    '    print("outputs =", outputs_of(words))',
    '    print("reordered_outputs =", outputs_of(reordered))',
    `print("sinusoidal =", sinusoidal_positions(16, ${dModel}))`,
    '',
    `# RoPE on a query and a key of ${head} dimensions, rope_theta = ${rope.ropeTheta}${scaled ? ', llama3 scaling' : ''}`,
    `f = inv_freq(${head}, ${doubleLiteral(rope.ropeTheta)}${scaled ? `, (${llama3.factor}, ${llama3.low}, ${llama3.high}, ${llama3.context})` : ''})`,
    `torch.manual_seed(${seed})`,
    `q, k = torch.randn(2, ${head})`,
    'def score(m, n):',
    '    return (apply_rope(q[None], [m], f) * apply_rope(k[None], [n], f)).sum()',
    `print("shift_scores =", torch.stack([score(${m}, ${n}), score(${m + shift}, ${n + shift})]))`,
    'print("log10_wavelengths =", torch.log10(2 * math.pi / f))',
    `ones = torch.cat((torch.ones(${bands}, ${head / 2}), torch.zeros(${bands}, ${head / 2})), dim=-1)`,
    `print("bands =", apply_rope(ones, list(range(${bands})), f)[:, :${head / 2}])  # cos(position × frequency)`,
  ], {
    outputs: 'outputs', reordered_outputs: 'reordered-outputs', sinusoidal: 'sinusoidal', shift_scores: 'shift-scores',
    log10_wavelengths: 'wavelengths', bands: 'bands',
  });
}
