// Training through the JS API: the same losses as the native tool, checkpoints
// that follow the safetensors rules, resumption, and clear errors.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';

import { attn, own, safetensors, useAttention } from './helpers.js';
import { ROOT, TEXT } from './training-text.js';

useAttention();

const SMALL = { nLayer: 2, nHead: 2, nEmbd: 16, nInner: 64, blockSize: 16, bias: false, attentionBias: false, tieEmbeddings: true };

describe('Trainer', () => {
  test('a WASM run gives the native tool\'s losses, step for step', () => {
    const cli = join(ROOT, 'build/portable/attn-train');
    assert.ok(existsSync(cli), `the native tool is built first by npm test (${cli})`);
    const dir = mkdtempSync(join(tmpdir(), 'attn-train-'));
    writeFileSync(join(dir, 'text.txt'), TEXT);
    const out = execFileSync(cli, ['train', '--data', join(dir, 'text.txt'), '--out', join(dir, 'ck.safetensors'),
      '--n-layer', '2', '--n-head', '2', '--n-embd', '16', '--n-inner', '64', '--block-size', '16', '--batch-size', '4',
      '--max-iters', '12', '--warmup-iters', '3', '--lr-decay-iters', '12', '--learning-rate', '3e-3', '--min-lr', '3e-4',
      '--eval-interval', '0', '--log-interval', '1', '--final-eval-iters', '2', '--seed', '7'], { encoding: 'utf8' });
    const native = [...out.matchAll(/^iter (\d+): loss ([0-9.]+)/gm)].map((m) => Number(m[2]));
    assert.equal(native.length, 12);
    const trainer = own(new attn.Trainer({
      model: SMALL,
      training: { batchSize: 4, warmupIters: 3, lrDecayIters: 12, learningRate: 3e-3, minLr: 3e-4, seed: 7 },
      text: TEXT,
    }));
    const wasm = Array.from({ length: 12 }, () => trainer.step().loss);
    for (let i = 0; i < 12; i++) assert.ok(Math.abs(wasm[i] - native[i]) < 2e-4, `step ${i}: wasm ${wasm[i]} vs native ${native[i]}`);
    // The native checkpoint loads in WASM and carries the vocabulary.
    const ck = attn.loadCheckpoint(new Uint8Array(readFileSync(join(dir, 'ck.safetensors'))));
    own(ck.model);
    own(ck.tokenizer);
    assert.equal(ck.vocabulary, trainer.vocabulary);
    assert.equal(ck.iter, 12);
  });

  test('loss falls; checkpoints round-trip and resume', () => {
    const trainer = own(new attn.Trainer({ model: SMALL, training: { batchSize: 8, evalIters: 8, warmupIters: 5, lrDecayIters: 80, learningRate: 5e-3 }, text: TEXT }));
    const before = trainer.evaluate();
    for (let i = 0; i < 80; i++) trainer.step();
    const after = trainer.evaluate();
    assert.ok(after.val < before.val - 1, `val loss ${before.val} -> ${after.val}`);
    const bytes = trainer.checkpoint();
    const resumed = own(attn.Trainer.resume(bytes, TEXT));
    assert.equal(resumed.iter, 80);
    assert.equal(resumed.step().iter, 80);
    const snap = own(trainer.snapshot());
    const tok = own(attn.Tokenizer.fromVocabulary(trainer.config.tokenizer, trainer.vocabulary));
    const ck = attn.loadCheckpoint(snap.checkpoint(tok));
    own(ck.model);
    own(ck.tokenizer);
    assert.equal(ck.iter, null);
    const ids = ck.tokenizer.encode('The cat');
    assert.deepEqual(Array.from(ck.model.forward(ids).logits.data), Array.from(snap.forward(ids).logits.data));
  });

  test('a Llama-shaped model trains as a GPT does: RMSNorm, RoPE, grouped key/value heads, SwiGLU, a sliding window', () => {
    const LLAMA = { ...SMALL, nHead: 4, nKvHead: 2, headDim: 6, normType: 'rms_norm', positions: 'rope', gatedMlp: true,
      activation: 'silu', slidingWindow: 8, slidingWindowPattern: 2, ropeTheta: 1000 };
    const trainer = own(new attn.Trainer({ model: LLAMA, training: { batchSize: 8, evalIters: 8, warmupIters: 5, lrDecayIters: 80, learningRate: 5e-3 }, text: TEXT }));
    const before = trainer.evaluate();
    for (let i = 0; i < 80; i++) trainer.step();
    const after = trainer.evaluate();
    assert.ok(after.val < before.val - 1, `val loss ${before.val} -> ${after.val}`);
    // The native tool trains the same model from the same flags, step for step.
    const cli = join(ROOT, 'build/portable/attn-train');
    const dir = mkdtempSync(join(tmpdir(), 'attn-train-llama-'));
    writeFileSync(join(dir, 'text.txt'), TEXT);
    const out = execFileSync(cli, ['train', '--data', join(dir, 'text.txt'), '--out', join(dir, 'ck.safetensors'),
      '--n-layer', '2', '--n-head', '4', '--n-kv-head', '2', '--head-dim', '6', '--n-embd', '16', '--n-inner', '64', '--block-size', '16',
      '--no-bias', '--no-attention-bias', '--tie-embeddings', '--norm-type', 'rms_norm', '--positions', 'rope', '--rope-theta', '1000',
      '--gated-mlp', '--activation', 'silu', '--sliding-window', '8', '--sliding-window-pattern', '2', '--batch-size', '4',
      '--max-iters', '6', '--warmup-iters', '3', '--lr-decay-iters', '12', '--learning-rate', '3e-3', '--min-lr', '3e-4',
      '--eval-interval', '0', '--log-interval', '1', '--final-eval-iters', '2', '--seed', '7'], { encoding: 'utf8' });
    const native = [...out.matchAll(/^iter (\d+): loss ([0-9.]+)/gm)].map((m) => Number(m[2]));
    const same = own(new attn.Trainer({ model: LLAMA,
      training: { batchSize: 4, warmupIters: 3, lrDecayIters: 12, learningRate: 3e-3, minLr: 3e-4, seed: 7 }, text: TEXT }));
    const wasm = Array.from({ length: 6 }, () => same.step().loss);
    assert.equal(native.length, 6);
    for (let i = 0; i < 6; i++) assert.ok(Math.abs(wasm[i] - native[i]) < 2e-4, `step ${i}: wasm ${wasm[i]} vs native ${native[i]}`);
    // Its checkpoint keeps the architecture.
    const ck = attn.loadCheckpoint(new Uint8Array(readFileSync(join(dir, 'ck.safetensors'))));
    own(ck.model);
    own(ck.tokenizer);
    assert.equal(ck.model.config.positions, 'rope');
    assert.equal(ck.model.config.nKvHead, 2);
    rmSync(dir, { recursive: true, force: true });
  });

  test('a run trains on windows of its context: 0 and the block size are the same run, a longer one is refused', () => {
    const run = (context) => {
      const trainer = own(new attn.Trainer({ model: SMALL, training: { batchSize: 4, seed: 3, context }, text: TEXT }));
      return { trainer, losses: Array.from({ length: 3 }, () => trainer.step().loss) };
    };
    assert.deepEqual(run(SMALL.blockSize).losses, run(0).losses);
    const short = run(SMALL.blockSize / 2);
    assert.equal(short.trainer.config.context, SMALL.blockSize / 2);
    assert.notDeepEqual(short.losses, run(0).losses);
    assert.throws(() => new attn.Trainer({ model: SMALL, training: { context: SMALL.blockSize + 1 }, text: TEXT }), {
      message: `Trainer: expected a context of at most the model's block size ${SMALL.blockSize}, got ${SMALL.blockSize + 1}` });
  });

  test('a word-level run: vocabulary from the text\'s words, kept through a checkpoint', () => {
    const trainer = own(new attn.Trainer({ model: SMALL, training: { batchSize: 4, tokenizer: 'word' }, text: TEXT }));
    const words = own(new attn.WordTokenizer(TEXT));
    assert.equal(trainer.config.tokenizer, 'word');
    assert.equal(trainer.modelConfig.vocabSize, words.vocabSize);
    assert.equal(trainer.vocabulary, words.vocabulary);
    trainer.step();
    const resumed = own(attn.Trainer.resume(trainer.checkpoint(), TEXT));
    assert.equal(resumed.config.tokenizer, 'word');
    const ck = attn.loadCheckpoint(trainer.checkpoint());
    own(ck.model);
    own(ck.tokenizer);
    assert.deepEqual(ck.tokenizer.pieces, words.pieces);
  });

  test('checkpoints follow the safetensors rules', () => {
    const trainer = own(new attn.Trainer({ model: SMALL, training: { batchSize: 2 }, text: TEXT }));
    trainer.step();
    const bytes = trainer.checkpoint();
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    const n = Number(view.getBigUint64(0, true));
    const header = JSON.parse(new TextDecoder().decode(bytes.subarray(8, 8 + n)));
    const dataBytes = bytes.length - 8 - n;
    // As safetensors' own validation demands: metadata str -> str; F32 tensors
    // whose byte ranges tile the data buffer from 0 to its end without gaps.
    const meta = header.__metadata__;
    assert.ok(Object.values(meta).every((v) => typeof v === 'string'));
    assert.equal(JSON.parse(meta.config).n_layer, 2);
    const entries = Object.entries(header).filter(([k]) => k !== '__metadata__').map(([, e]) => e);
    entries.sort((a, b) => a.data_offsets[0] - b.data_offsets[0]);
    let end = 0;
    for (const e of entries) {
      assert.equal(e.dtype, 'F32');
      assert.equal(e.data_offsets[0], end);
      assert.equal(e.data_offsets[1] - e.data_offsets[0], 4 * e.shape.reduce((a, b) => a * b, 1));
      end = e.data_offsets[1];
    }
    assert.equal(end, dataBytes);
    assert.ok('transformer.h.1.attn.c_attn.weight' in header && 'optimizer.exp_avg.transformer.wte.weight' in header);
  });

  test('bad input is an Error, and the trainer survives it', () => {
    assert.throws(() => new attn.Trainer({ model: SMALL, training: { batchSize: 0 }, text: TEXT }), { message: 'Trainer: expected batchSize to be an integer in [1, 65536], got 0' });
    assert.throws(() => new attn.Trainer({ model: SMALL, training: { batch_size: 4 }, text: TEXT }),
      { message: 'Trainer: unknown config field "batch_size"; did you mean "batchSize"?' });
    assert.throws(() => new attn.Trainer({ model: { ...SMALL, blockSize: 4096 }, text: TEXT }), /too short for a block size of 4096/);
    assert.throws(() => attn.loadCheckpoint(new Uint8Array([1, 2, 3])), {
      message: 'loadCheckpoint: a file of 3 bytes is too short for a safetensors header',
    });
    assert.throws(() => attn.loadCheckpoint('nope'), /loadCheckpoint: expected the checkpoint as a Uint8Array, got the string "nope"/);
    const trainer = own(new attn.Trainer({ model: SMALL, training: { batchSize: 2 }, text: TEXT }));
    const bytes = trainer.checkpoint();
    const corrupt = bytes.slice();
    corrupt[9] = 0x7b;
    corrupt[10] = 0x7b;
    assert.throws(() => attn.loadCheckpoint(corrupt), /loadCheckpoint: /);
    const tok = own(new attn.CharTokenizer(TEXT));
    assert.throws(() => attn.Trainer.resume(own(trainer.snapshot()).checkpoint(tok), TEXT), /holds no training state/);
    assert.throws(() => new attn.Trainer({ model: SMALL, training: { tokenizer: 'bpe' }, text: TEXT }), {
      message: 'Trainer: expected tokenizer to be one of char|word, got "bpe"',
    });
    assert.throws(() => new attn.Trainer({ model: SMALL, training: { tokenizer: 1 }, text: TEXT }), {
      message: 'Trainer: expected tokenizer to be one of char|word, got 1',
    });
    assert.equal(trainer.step().iter, 0);
  });

  test('a diverged step throws, and the model and its checkpoint stay as they were', () => {
    // Regression: learningRate 100 without clipping returned loss NaN at step 15,
    // and the next checkpoint held NaN weights that loadCheckpoint refused.
    const trainer = own(new attn.Trainer({ model: SMALL, training: { batchSize: 4, learningRate: 100, decayLr: false, gradClip: 0 }, text: TEXT }));
    let good;
    let error;
    for (let i = 0; i < 200 && !error; i++) {
      good = trainer.checkpoint();
      try {
        assert.ok(Number.isFinite(trainer.step().loss));
      } catch (e) {
        error = e;
      }
    }
    assert.ok(error, 'learningRate 100 without clipping did not diverge in 200 steps');
    assert.match(error.message, new RegExp(`^Trainer.step: training diverged at step ${trainer.iter} \\(.*\\); the model and optimizer ` +
      'are as they were before this step. Try a lower learningRate \\(now 100\\) or gradient clipping \\(gradClip 1\\)$'));
    assert.deepEqual(trainer.checkpoint(), good);
    const ck = attn.loadCheckpoint(trainer.checkpoint());
    own(ck.model);
    own(ck.tokenizer);
    assert.equal(ck.iter, trainer.iter);
  });

  test('infinite hyper-parameters are refused', () => {
    // Regression: eps or weightDecay Infinity were accepted and gave NaN weights at step 2.
    assert.throws(() => new attn.Trainer({ model: SMALL, training: { eps: Infinity }, text: TEXT }),
      { message: 'Trainer: expected eps as a finite number, got number Infinity' });
    assert.throws(() => new attn.Trainer({ model: SMALL, training: { weightDecay: Infinity }, text: TEXT }),
      { message: 'Trainer: expected weightDecay as a finite number, got number Infinity' });
  });
});

describe('checkpoint integrity', () => {
  /** The header of safetensors bytes (json), and a function that writes bytes with an edited header. */
  const header = (bytes) => {
    const { header: json, size, rewrite } = safetensors(bytes);
    return { json, size, rewrite };
  };

  test('the shipped model is verified; a flipped byte anywhere in its weights is refused as damaged', async () => {
    // Regression: 4,367 of 5,000 random byte flips loaded with silently changed weights.
    const bytes = new Uint8Array(readFileSync(join(ROOT, 'web/lib/models/agreement.safetensors')));
    const { model, tokenizer, verified } = attn.loadCheckpoint(bytes);
    own(model);
    own(tokenizer);
    assert.equal(verified, true);
    const { size } = header(bytes);
    for (let i = 0; i < 200; i++) {
      const damaged = bytes.slice();
      damaged[size + Math.floor(((i * 7919) % 1000) / 1000 * (bytes.length - size))] ^= 1 << (i % 8);
      assert.throws(() => attn.loadCheckpoint(damaged), { message: 'loadCheckpoint: the file is damaged: its digest does not match its contents' });
    }
  });

  test('an edited vocabulary is refused; a file without a digest loads, unverified', () => {
    // Regression: header flips loaded with a silently changed vocabulary.
    const bytes = new Uint8Array(readFileSync(join(ROOT, 'web/lib/models/agreement.safetensors')));
    const { json, rewrite } = header(bytes);
    // A word changed so that the vocabulary stays sorted and valid: only the digest can tell.
    const words = JSON.parse(json.__metadata__.vocabulary);
    const i = words.findIndex((w, k) => /^ ?[a-z]+$/.test(w) && k + 1 < words.length && w + 'z' < words[k + 1]);
    words[i] += 'z';
    const vocabulary = JSON.stringify(words);
    assert.throws(() => attn.loadCheckpoint(rewrite((h) => { h.__metadata__.vocabulary = vocabulary; })),
      { message: 'loadCheckpoint: the file is damaged: its digest does not match its contents' });
    const unsigned = attn.loadCheckpoint(rewrite((h) => {
      h.__metadata__.vocabulary = vocabulary;
      delete h.__metadata__.digest;
    }));
    own(unsigned.model);
    own(unsigned.tokenizer);
    assert.equal(unsigned.verified, false);
    assert.equal(unsigned.tokenizer.pieces[i], words[i]);
  });
});

describe('the shipped model', () => {
  test('loads, makes the verb agree with a distant subject, and a head looks at the subject', async () => {
    const { model, tokenizer } = await attn.loadDefaultModel();
    own(model);
    own(tokenizer);
    assert.deepEqual([model.config.nLayer, model.config.nHead, tokenizer.kind], [2, 4, 'word']);
    const V = model.config.vocabSize;
    // Cats purr, sleep, hide and yawn; teachers read, think, smile and listen; pilots fly, wave, nod and wait.
    const cases = [
      ['\nThe cats, which slept near the dog,', ' purr', ' purrs', [' purr', ' sleep', ' hide', ' yawn']],
      ['\nThe cat, which slept near the dogs,', ' purrs', ' purr', [' purrs', ' sleeps', ' hides', ' yawns']],
      ['\nThe teachers, who waited beside the king,', ' read', ' reads', [' read', ' think', ' smile', ' listen']],
      ['\nThe pilot, who danced behind the farmers,', ' waves', ' wave', [' flies', ' waves', ' nods', ' waits']],
    ];
    const subjectCounts = new Array(8).fill(0);
    for (const [prefix, right, wrong, verbs] of cases) {
      const ids = tokenizer.encode(prefix);
      const T = ids.length;
      assert.equal(T, 10); // "\n" "The" " cats" "," " which" " slept" " near" " the" " dog" ","
      const { logits, trace } = model.forward(ids, { trace: true });
      // The next token after the last ",": the agreeing form is more likely.
      const row = logits.data.subarray((T - 1) * V, T * V);
      const [r] = tokenizer.encode(right);
      const [w] = tokenizer.encode(wrong);
      assert.ok(row[r] > row[w], `${prefix.trim()}${right}`);
      // The four likeliest next tokens are the subject's own verbs, in the agreeing form.
      const likeliest = [...row.keys()].sort((a, b) => row[b] - row[a]).slice(0, 4).map((i) => tokenizer.pieces[i]);
      assert.deepEqual(likeliest.sort(), [...verbs].sort(), prefix.trim());
      // Heads whose largest weight at the last "," is on the subject (token 2).
      trace.layers.forEach((layer, l) => {
        for (let h = 0; h < model.config.nHead; h++) {
          const weights = Array.from(layer.weights.data.subarray((h * T + T - 1) * T, (h * T + T) * T));
          if (weights.indexOf(Math.max(...weights)) === 2) subjectCounts[l * model.config.nHead + h] += 1;
        }
      });
    }
    // The native probe's measurement, through WASM, on 300 held-out sentences.
    const report = attn.probeAgreement(model, tokenizer, { sentences: 300 });
    assert.equal(report.sentences, 300);
    assert.ok(report.accuracy >= 0.95, `agreement ${report.accuracy}`);
    assert.equal(report.subjectAttention.length, 8);
    assert.ok(report.bestSubjectAttention >= 0.8, `best head ${report.bestSubjectAttention}`);
    // The head the probe finds looks at the subject in every one of these sentences; some heads never do.
    assert.equal(subjectCounts[report.bestLayer * model.config.nHead + report.bestHead], cases.length, `per head ${subjectCounts}`);
    assert.equal(Math.min(...subjectCounts), 0, `per head ${subjectCounts}`);
    assert.throws(() => attn.probeAgreement(model, tokenizer, { sentences: 0 }), {
      message: 'probeAgreement: expected sentences to be an integer from 1 to 100000, got 0',
    });
    const chars = own(new attn.CharTokenizer('abc'));
    assert.throws(() => attn.probeAgreement(model, chars), /probeAgreement: character '\n' \(U\+000A\) at position 0 is not in the vocabulary of 3 characters/);
    const text = tokenizer.decode(model.generate(tokenizer.encode('\nThe dogs, which'), { maxNewTokens: 8, seed: 1, temperature: 0.5 }).data);
    assert.match(text, /^\nThe dogs, which [a-z]+ [a-z]+ the [a-z]+, [a-z]+\./);
  });
});
