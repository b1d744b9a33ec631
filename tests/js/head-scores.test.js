// attn.headScores against a plain-PyTorch computation of the same scores on the same weights and sequences
// (tests/fixtures/head_scores_reference.py: every map in full, the whole V × V OV circuit's eigenvalues), on the
// shipped induction model and on a model with a feed-forward; the recipe and the attention-only model through the
// JS API; and every way to ask for a score that cannot be measured.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';

import { torchStdout } from '../fixtures/torch-cache.js';
import { attn, fullTier, own, useAttention } from './helpers.js';

useAttention();

const ALPHABET = 'abcdefghijklmnopqrstuvwxyzABCDEF';
let dir;
before(() => { dir = mkdtempSync(join(tmpdir(), 'attn-head-scores-')); });
after(() => rmSync(dir, { recursive: true, force: true }));

/** PyTorch's scores of `model` (its checkpoint) on the sequences `scores` was measured on. */
function torchScores(model, tokenizer, scores, name) {
  const [B, T] = scores.sequences.shape;
  const ids = Array.from({ length: B }, (_, b) => Array.from(scores.sequences.data.subarray(b * T, (b + 1) * T)));
  const [checkpoint, sequences] = [join(dir, `${name}.safetensors`), join(dir, `${name}.json`)];
  writeFileSync(checkpoint, model.checkpoint(tokenizer));
  writeFileSync(sequences, JSON.stringify({ ids, repeats: scores.repeats }));
  return JSON.parse(torchStdout(['tests/fixtures/head_scores_reference.py', checkpoint, sequences], { inputs: [checkpoint, sequences] }));
}
const TORCH = fullTier('PyTorch (tests/fixtures/head_scores_reference.py)');

function assertScoresMatch(s, expected, shape) {
  for (const key of ['prefixMatching', 'previousToken', 'copying', 'inContextLossGain']) {
    assert.deepEqual(s[key].shape, shape, key);
    s[key].data.forEach((x, i) => assert.ok(Math.abs(x - expected[key][i]) < 1e-4, `${key}[${i}]: ${x} vs ${expected[key][i]}`));
  }
  assert.ok(Math.abs(s.firstRepeatLoss - expected.firstRepeatLoss) < 1e-4, `${s.firstRepeatLoss} vs ${expected.firstRepeatLoss}`);
  assert.ok(Math.abs(s.secondRepeatLoss - expected.secondRepeatLoss) < 1e-4, `${s.secondRepeatLoss} vs ${expected.secondRepeatLoss}`);
}

describe('headScores', () => {
  test('the shipped induction model: its scores equal PyTorch\'s, and it has an induction head', TORCH, async () => {
    const { model, tokenizer } = await attn.loadDefaultModel({ name: 'induction' });
    own(model);
    own(tokenizer);
    assert.equal(tokenizer.vocabulary, [...ALPHABET].sort().join('')); // a character tokenizer's order
    assert.deepEqual(model.config, { ...attn.inductionRecipe().model, vocabSize: 32 });
    const s = attn.headScores(model, { batchSize: 8, seed: 3 });
    assert.deepEqual(s.sequences.shape, [8, 32]);
    assertScoresMatch(s, torchScores(model, tokenizer, s, 'induction'), [2, 2]);
    // The circuit: a layer-0 head attends to the previous token, a layer-1 head to the token after the
    // earlier occurrence, and without the first the second copy is nearly as hard as the first.
    const [p0, p1] = [Math.max(...s.previousToken.data.subarray(0, 2)), Math.max(...s.prefixMatching.data.subarray(2, 4))];
    assert.ok(p0 > 0.5 && p1 > 0.6, `previous token ${p0}, prefix matching ${p1}`);
    assert.ok(s.firstRepeatLoss > 3.2 && s.secondRepeatLoss < 1.2, `${s.firstRepeatLoss}, ${s.secondRepeatLoss}`);
    const previousHead = s.previousToken.data.indexOf(p0);
    assert.ok(s.inContextLossGain.data[previousHead] > 1.5, `${s.inContextLossGain.data}`);
  });

  test('a model with a feed-forward and every option: the same as PyTorch, and the sequences repeat', TORCH, () => {
    const model = own(new attn.GPT({ vocabSize: 20, nLayer: 3, nHead: 2, nEmbd: 16, blockSize: 24, seed: 4, headBias: true }));
    const tokenizer = own(attn.Tokenizer.fromVocabulary('char', 'abcdefghijklmnopqrst'));
    const s = attn.headScores(model, { batchSize: 5, length: 16, seed: 11, ablation: true });
    assert.deepEqual(s.sequences.shape, [5, 16]);
    assert.equal(s.repeats.length, 5);
    for (const [b, r] of s.repeats.entries()) {
      assert.ok(r.length >= 4 && r.length <= 5 && r.second >= r.first + r.length && r.second + r.length <= 16, JSON.stringify(r));
      const row = s.sequences.data.subarray(b * 16, (b + 1) * 16);
      assert.deepEqual(row.subarray(r.first, r.first + r.length), row.subarray(r.second, r.second + r.length));
    }
    assertScoresMatch(s, torchScores(model, tokenizer, s, 'mlp'), [3, 2]);
    // The same seed measures the same sequences; without ablation there is no loss gain.
    const again = attn.headScores(model, { batchSize: 5, length: 16, seed: 11, ablation: false });
    assert.deepEqual(again.sequences, s.sequences);
    assert.deepEqual(again.prefixMatching, s.prefixMatching);
    assert.equal(again.inContextLossGain, null);
    // What it measured is what repeatedSequences draws from the same seed.
    assert.deepEqual(attn.repeatedSequences({ batchSize: 5, length: 16, vocabSize: 20, seed: 11 }),
      { sequences: s.sequences, repeats: s.repeats });
  });

  test('what cannot be measured is a named Error', () => {
    const one = own(new attn.GPT({ vocabSize: 10, nLayer: 1, nHead: 2, nEmbd: 8, blockSize: 16 }));
    assert.throws(() => attn.headScores(one), {
      message: 'headScores: expected a model of at least 2 layers (an induction head composes two: a previous-token ' +
        'head, then a head whose keys read its output), got 1',
    });
    const two = own(new attn.GPT({ vocabSize: 10, nLayer: 2, nHead: 2, nEmbd: 8, blockSize: 16 }));
    assert.throws(() => attn.headScores(two, { length: 17 }),
      { message: "headScores: expected a length within the model's block size 16, got 17" });
    assert.throws(() => attn.headScores(two, { length: 7 }), {
      message: 'headScores: expected sequences of at least 8 tokens (a repeat of 2 tokens or more, twice, with room ' +
        'around it), got 7',
    });
    assert.throws(() => attn.headScores(two, { batchSize: 0 }), { message: 'headScores: expected a batch size of at least 1, got 0' });
    assert.throws(() => attn.headScores(two, { batchSize: 1.5 }), { message: 'headScores: expected an integer batchSize, got 1.5' });
    assert.throws(() => attn.headScores(two, { ablation: 'yes' }), { message: /^headScores: expected ablation as true or false/ });
    assert.throws(() => attn.headScores(two, { heads: 2 }), { message: /^headScores: unknown option "heads"/ });
    assert.throws(() => attn.headScores({}, {}), { message: /^headScores: expected a GPT/ });
    assert.throws(() => attn.repeatedSequences({ length: 7, vocabSize: 5 }), { message: /^repeatedSequences: expected sequences of at least 8 tokens/ });
    assert.throws(() => attn.repeatedSequences({ length: 8, vocabSize: 1 }),
      { message: 'repeatedSequences: expected a vocabulary of at least 2 tokens to draw from, got 1' });
    assert.throws(() => attn.repeatedSequences({ length: 8 }), { message: 'repeatedSequences: expected vocabSize as a number, got undefined' });
  });
});

describe('the induction recipe', () => {
  test('trains an attention-only model on repeats, and its checkpoint keeps both settings', () => {
    const { model, training } = attn.inductionRecipe();
    assert.equal(model.attnOnly, true);
    assert.equal(training.task, 'repeats');
    const trainer = own(new attn.Trainer({ model, training: { ...training, batchSize: 4 }, text: ALPHABET }));
    assert.equal(trainer.modelConfig.vocabSize, 32);
    const first = trainer.step();
    assert.ok(Math.abs(first.loss - Math.log(32)) < 0.5, `${first.loss}`);
    const resumed = own(attn.Trainer.resume(trainer.checkpoint(), ALPHABET));
    assert.equal(resumed.modelConfig.attnOnly, true);
    assert.equal(resumed.config.task, 'repeats');
    const snapshot = own(trainer.snapshot());
    assert.ok(!snapshot.config.nInner || snapshot.config.attnOnly);
    assert.throws(() => new attn.Trainer({ model: { ...model, blockSize: 6 }, training, text: ALPHABET }),
      { message: /^Trainer: the repeats task needs sequences of at least 8 tokens \(block size 7\), got a block size of 6/ });
    assert.throws(() => new attn.Trainer({ model, training: { ...training, task: 'copy' }, text: ALPHABET }),
      { message: /^Trainer: .*task/ });
  });
});
