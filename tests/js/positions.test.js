// Where order comes from (positions.d.ts): the sinusoidal encoding, RoPE's frequencies (llama3 scaling too) and
// RoPE itself against PyTorch — Hugging Face's inv_freq, rotate_half and apply_rotary_pos_emb written out — and the
// property the site's chapter shows: shift a query's and a key's positions together and their score stays.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { torchStdout } from '../fixtures/torch-cache.js';
import { assertClose, attn, fullTier, useAttention } from './helpers.js';

useAttention();

// Deterministic numbers in (−1, 1), the same in JS and in the script.
const values = (n, seed) => Array.from({ length: n }, (_, i) => Math.round(Math.sin(seed * 1000 + i * 12.9898) * 43758.5453 % 1 * 1e4) / 1e4);

const LLAMA3 = { ropeTheta: 500000, ropeScaling: 'llama3', ropeFactor: 8, ropeLowFreqFactor: 1, ropeHighFreqFactor: 4, ropeOriginalContext: 8192 };

// Hugging Face's RoPE, written out in torch (modeling_llama.py, modeling_rope_utils.py).
const HF_ROPE = [
  'import json, math, torch',
  'def inv_freq(dim, theta, llama3=None):',
  '    f = 1.0 / (theta ** (torch.arange(0, dim, 2, dtype=torch.int64).float() / dim))',
  '    if llama3 is None: return f',
  '    factor, low, high, old = llama3',
  '    wavelen = 2 * math.pi / f',
  '    f2 = torch.where(wavelen > old / low, f / factor, f)',
  '    smooth = (old / wavelen - low) / (high - low)',
  '    smoothed = (1 - smooth) * f2 / factor + smooth * f2',
  '    medium = ~(wavelen < old / high) * ~(wavelen > old / low)',
  '    return torch.where(medium, smoothed, f2)',
  'def rotate_half(x):',
  '    h = x.shape[-1] // 2',
  '    return torch.cat((-x[..., h:], x[..., :h]), dim=-1)',
  'def rope(x, positions, theta, llama3=None):',
  '    f = inv_freq(x.shape[-1], theta, llama3)',
  '    freqs = (f[None, :, None] @ torch.tensor([positions]).float()[:, None, :]).transpose(1, 2)',
  '    emb = torch.cat((freqs, freqs), dim=-1)[0]',
  '    return x * emb.cos() + rotate_half(x) * emb.sin()',
];

test('rope and ropeFrequencies are Hugging Face\'s, plain and llama3-scaled', fullTier('PyTorch'), () => {
  const x = values(2 * 5 * 8, 1);
  const positions = [0, 3, 7, 100, 4095];
  const script = [...HF_ROPE,
    `x = torch.tensor(${JSON.stringify(x)}).reshape(2, 5, 8)`,
    `p = ${JSON.stringify(positions)}`,
    'out = {',
    "  'plain': rope(x, p, 10000.0).flatten().tolist(),",
    "  'llama3': rope(x, p, 500000.0, (8.0, 1.0, 4.0, 8192)).flatten().tolist(),",
    "  'freq': inv_freq(128, 10000.0).tolist(),",
    "  'freq3': inv_freq(128, 500000.0, (8.0, 1.0, 4.0, 8192)).tolist(),",
    '}',
    'print(json.dumps(out))',
  ].join('\n');
  const expected = JSON.parse(torchStdout(['-c', script]));
  const shaped = { data: x, shape: [2, 5, 8] };
  assertClose(attn.rope(shaped, { positions }), { data: expected.plain, shape: [2, 5, 8] }, 1e-5);
  assertClose(attn.rope(shaped, { positions, ...LLAMA3 }), { data: expected.llama3, shape: [2, 5, 8] }, 1e-5);
  const relative = (a, b) => a.data.forEach((v, i) => assert.ok(Math.abs(v - b[i]) <= 1e-6 * Math.abs(b[i]), `pair ${i}: ${v} vs ${b[i]}`));
  relative(attn.ropeFrequencies(128), expected.freq);
  relative(attn.ropeFrequencies(128, LLAMA3), expected.freq3);
});

test('a query and a key shifted by the same number of positions keep their score, as in PyTorch', fullTier('PyTorch'), () => {
  const D = 16;
  const q = values(D, 2);
  const k = values(D, 3);
  const pairs = [[5, 2], [5 + 40, 2 + 40], [5 + 1000, 2 + 1000], [2, 5], [2 + 77, 5 + 77]];
  const score = (m, n, settings = {}) => {
    const a = attn.rope({ data: q, shape: [1, D] }, { positions: [m], ...settings }).data;
    const b = attn.rope({ data: k, shape: [1, D] }, { positions: [n], ...settings }).data;
    return a.reduce((s, v, i) => s + v * b[i], 0);
  };
  const script = [...HF_ROPE,
    `q = torch.tensor(${JSON.stringify(q)}).reshape(1, ${D})`,
    `k = torch.tensor(${JSON.stringify(k)}).reshape(1, ${D})`,
    `print(json.dumps([float((rope(q, [m], 10000.0) * rope(k, [n], 10000.0)).sum()) for m, n in ${JSON.stringify(pairs)}]))`,
  ].join('\n');
  const expected = JSON.parse(torchStdout(['-c', script]));
  pairs.forEach(([m, n], c) => assert.ok(Math.abs(score(m, n) - expected[c]) < 1e-5, `(${m}, ${n}): ${score(m, n)} vs ${expected[c]}`));
  // Distance 3 (query after key) three times, distance −3 twice: one score each, whatever the shift.
  for (const c of [1, 2]) assert.ok(Math.abs(expected[c] - expected[0]) < 1e-4, `shifted by ${pairs[c][0] - 5}: ${expected[c]} vs ${expected[0]}`);
  assert.ok(Math.abs(expected[4] - expected[3]) < 1e-4);
  assert.ok(Math.abs(expected[3] - expected[0]) > 1e-3, 'the distance\'s sign matters: a rotation, not a reflection');
  // Scaled frequencies are still rotations: the property holds with llama3 too.
  assert.ok(Math.abs(score(9, 4, LLAMA3) - score(9 + 500, 4 + 500, LLAMA3)) < 1e-4);
});

test('sinusoidalPositions is the PyTorch tutorials\' PositionalEncoding', fullTier('PyTorch'), () => {
  const script = [
    'import json, math, torch',
    'T, d = 50, 8',
    'position = torch.arange(T).unsqueeze(1)',
    'div_term = torch.exp(torch.arange(0, d, 2) * (-math.log(10000.0) / d))',
    'pe = torch.zeros(T, d)',
    'pe[:, 0::2] = torch.sin(position * div_term)',
    'pe[:, 1::2] = torch.cos(position * div_term)',
    'print(json.dumps(pe.flatten().tolist()))',
  ].join('\n');
  assertClose(attn.sinusoidalPositions(50, 8), { data: JSON.parse(torchStdout(['-c', script])), shape: [50, 8] }, 1e-5);
});

test('positions refuse what they cannot do, by name', () => {
  const x = { data: new Float32Array(12), shape: [3, 4] };
  assert.deepEqual(attn.rope(x).shape, [3, 4]);
  assert.throws(() => attn.rope(x, { positions: [0, 1] }), /^Error: rope: expected 3 positions, one per row of x/);
  assert.throws(() => attn.rope({ data: new Float32Array(9), shape: [3, 3] }), /rope: expected an even head_dim/);
  assert.throws(() => attn.rope(x, { positions: [0, 1, -2] }), /rope/);
  assert.throws(() => attn.rope(x, { ropeTheta: 0.5 }), /rope: .*rope_?[tT]heta/);
  assert.throws(() => attn.rope(x, { theta: 10 }), /rope: unknown option "theta"/);
  assert.throws(() => attn.rope({ data: [1, NaN, 0, 0], shape: [1, 4] }), /rope/);
  assert.throws(() => attn.ropeFrequencies(7), /ropeFrequencies: expected an even head_dim|ropeFrequencies.*even/);
  assert.throws(() => attn.ropeFrequencies(8, { ropeScaling: 'yarn' }), /ropeFrequencies: .*ropeScaling/);
  assert.throws(() => attn.sinusoidalPositions(4, 3), /sinusoidal_?[pP]ositions: expected .*even d/);
  assert.throws(() => attn.sinusoidalPositions(0, 4), /sinusoidalPositions/);
});
