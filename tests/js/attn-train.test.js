// attn-train, the native tool, as a user runs it: signals save the run, checkpoints are written safely, paths and
// flags are refused before any work, and the induction recipe gives the same run on any thread count.
import assert from 'node:assert/strict';
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { chmodSync, lstatSync, mkdtempSync, readdirSync, readFileSync, statSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';

import { attn, own, useAttention } from './helpers.js';
import { ROOT, TEXT } from './training-text.js';

useAttention();

describe('attn-train', () => {
  /**
   * A long run of attn-train, sent `signal` once it has logged step `at` (or printed a line `at` matches): its exit
   * code, output and checkpoint path.
   */
  async function interruptedRun(signal, at, extra = []) {
    const cli = join(ROOT, 'build/portable/attn-train');
    const dir = mkdtempSync(join(tmpdir(), 'attn-signal-'));
    writeFileSync(join(dir, 'text.txt'), TEXT);
    const out = join(dir, 'ck.safetensors');
    const flags = { '--n-layer': '1', '--n-head': '2', '--n-embd': '16', '--block-size': '16', '--batch-size': '4',
      '--max-iters': '100000000', '--eval-interval': '0', '--log-interval': '1' };
    for (let i = 0; i < extra.length; i += 2) flags[extra[i]] = extra[i + 1];
    const child = spawn(cli, ['train', '--data', join(dir, 'text.txt'), '--out', out, ...Object.entries(flags).flat()]);
    let stdout = '';
    child.stdout.on('data', (d) => {
      stdout += d;
      if ((at instanceof RegExp ? at : new RegExp(`iter ${at}:`)).test(stdout)) child.kill(signal);
    });
    const code = await new Promise((resolve) => child.on('close', resolve));
    return { code, stdout, out, dir };
  }

  test('SIGTERM saves like Ctrl-C (it lost the whole run), and the checkpoint resumes', async () => {
    for (const signal of ['SIGINT', 'SIGTERM']) await stopsAndSaves(signal);
  });

  test('--save-every N keeps a checkpoint during the run, so even a killed run loses at most N steps', async () => {
    const { code, out } = await interruptedRun('SIGKILL', 12, ['--save-every', '5']);
    assert.notEqual(code, 0);
    const ck = attn.loadCheckpoint(new Uint8Array(readFileSync(out)));
    own(ck.model);
    own(ck.tokenizer);
    assert.ok(ck.iter >= 10 && ck.iter % 5 === 0, `saved at step ${ck.iter}`);
  });

  test('--recipe induction trains the recipe, the same on 1 and 2 threads, and --snapshots writes the model before each step named', () => {
    const dir = mkdtempSync(join(tmpdir(), 'attn-recipe-'));
    writeFileSync(join(dir, 'letters.txt'), 'abcdefghijklmnopqrstuvwxyzABCDEF');
    const train = (threads, snapshots) => execFileSync(join(ROOT, 'build/portable/attn-train'), ['train', '--recipe', 'induction',
      '--data', join(dir, 'letters.txt'), '--out', join(dir, `run-${threads}.safetensors`), '--max-iters', '20', '--eval-interval', '10',
      '--eval-iters', '2', '--log-interval', '0', '--threads', String(threads),
      ...(snapshots ? ['--snapshots', '0,10,20', '--snapshot-dir', dir] : [])], { encoding: 'utf8' });
    const out = train(2, true);
    // A repeats run reports the two copies' losses and the best heads at each evaluation.
    assert.match(out, /^ {2}repeats: loss \d\.\d{3} on the first copy, \d\.\d{3} on the second; prefix matching \d\.\d{2} \(layer \d head \d\)/m);
    train(1, false);
    assert.deepEqual(readFileSync(join(dir, 'run-1.safetensors')), readFileSync(join(dir, 'run-2.safetensors')));
    assert.deepEqual(readdirSync(dir).filter((f) => f.startsWith('step-')), ['step-00000.safetensors', 'step-00010.safetensors', 'step-00020.safetensors']);
    const weights = (file) => {
      const { model, tokenizer } = attn.loadCheckpoint(new Uint8Array(readFileSync(join(dir, file))));
      own(tokenizer);
      assert.equal(own(model).config.attnOnly, true);
      return model.forward([[1, 2, 3]]).logits.data;
    };
    const [first, last, final] = [weights('step-00000.safetensors'), weights('step-00020.safetensors'), weights('run-2.safetensors')];
    assert.notDeepEqual(first, last);
    assert.deepEqual(last, final);
  });

  async function stopsAndSaves(signal) {
    const { code, stdout, out } = await interruptedRun(signal, 20);
    assert.equal(code, { SIGINT: 130, SIGTERM: 143 }[signal], stdout.slice(-300));
    assert.match(stdout, /interrupted at step \d+: saved/);
    const saved = Number(stdout.match(/interrupted at step (\d+)/)[1]);
    const bytes = new Uint8Array(readFileSync(out));
    const ck = attn.loadCheckpoint(bytes);
    own(ck.model);
    own(ck.tokenizer);
    assert.equal(ck.iter, saved);
    const resumed = own(attn.Trainer.resume(bytes, TEXT));
    assert.equal(resumed.step().iter, saved);
  }

  test('--out replaces only a regular file, keeps its mode and leaves no temporary file (it turned /dev/null, a FIFO or a symlink into a regular file, and a mode-600 file into 644)', () => {
    const cli = join(ROOT, 'build/portable/attn-train');
    const dir = mkdtempSync(join(tmpdir(), 'attn-out-'));
    const run = (out) => spawnSync(cli, ['corpus', '--out', out, '--sentences', '5'], { encoding: 'utf8' });
    const file = join(dir, 'corpus.txt');
    assert.equal(run(file).status, 0);
    chmodSync(file, 0o600);
    assert.equal(run(file).status, 0);
    assert.equal(statSync(file).mode & 0o777, 0o600, 'the mode of the file it replaced');
    // Its permission bits, without setuid: a 4755 target gave the new file, owned by whoever wrote it, 4755.
    chmodSync(file, 0o4755);
    assert.equal(run(file).status, 0);
    assert.equal(statSync(file).mode & 0o7777, 0o755, 'set-user-ID is not copied');
    symlinkSync(file, join(dir, 'link.txt'));
    execFileSync('mkfifo', [join(dir, 'fifo')]);
    for (const [target, what] of [[join(dir, 'link.txt'), 'a symbolic link'], [join(dir, 'fifo'), 'a FIFO'], ['/dev/null', 'a device'], [dir, 'a directory']]) {
      const r = run(target);
      assert.equal(r.status, 1, target);
      assert.equal(r.stderr, `attn-train: --out: refusing to write "${target}": it is ${what}, and only a regular file is replaced\n`);
    }
    assert.ok(lstatSync(join(dir, 'link.txt')).isSymbolicLink() && lstatSync(join(dir, 'fifo')).isFIFO() && statSync('/dev/null').isCharacterDevice());
    const failed = run(join(dir, 'missing', 'corpus.txt'));
    assert.equal(failed.status, 1);
    assert.equal(failed.stderr, `attn-train: --out: cannot write "${join(dir, 'missing', 'corpus.txt')}": its directory "${join(dir, 'missing')}": No such file or directory\n`);
    assert.deepEqual(readdirSync(dir).sort(), ['corpus.txt', 'fifo', 'link.txt'], 'no temporary file is left behind');
  });

  test('a bad --out, --data or --snapshot-dir, or --final-eval-iters 0, is refused before training (a finished run was thrown away when it saved)', () => {
    const cli = join(ROOT, 'build/portable/attn-train');
    const dir = mkdtempSync(join(tmpdir(), 'attn-paths-'));
    const data = join(dir, 'text.txt');
    writeFileSync(data, TEXT);
    execFileSync('mkfifo', [join(dir, 'fifo')]);
    writeFileSync(join(dir, 'plain'), 'x');
    const out = join(dir, 'ck.safetensors');
    const tiny = ['--n-layer', '1', '--n-head', '2', '--n-embd', '16', '--block-size', '16', '--max-iters', '300'];
    const huge = join(dir, 'huge.txt');
    writeFileSync(huge, '');
    truncateSync(huge, 2 ** 28 + 1); // sparse: no disk is used
    for (const [args, message] of [
      [['--data', data, '--out', join(dir, 'fifo')], `--out: refusing to write "${join(dir, 'fifo')}": it is a FIFO, and only a regular file is replaced`],
      [['--data', data, '--out', dir], `--out: refusing to write "${dir}": it is a directory, and only a regular file is replaced`],
      [['--data', data, '--out', join(dir, 'no', 'ck')], `--out: cannot write "${join(dir, 'no', 'ck')}": its directory "${join(dir, 'no')}": No such file or directory`],
      [['--data', data, '--out', data], `--out "${data}" is the --data file; saving would overwrite the corpus`],
      [['--data', data, '--out', out, '--snapshots', '100', '--snapshot-dir', join(dir, 'none')], `--snapshot-dir: "${join(dir, 'none')}": No such file or directory`],
      [['--data', data, '--out', out, '--snapshots', '100', '--snapshot-dir', join(dir, 'plain')], `--snapshot-dir: "${join(dir, 'plain')}" is a regular file, expected a directory`],
      [['--data', data, '--out', out, '--final-eval-iters', '0'], '--final-eval-iters: expected an integer >= 1, got "0"'],
      // Read, not waited on: a FIFO as --data hung for a writer, a directory said "basic_string::_M_create".
      [['--data', join(dir, 'fifo'), '--out', out], `--data: "${join(dir, 'fifo')}" is a FIFO, expected a regular file`],
      [['--data', dir, '--out', out], `--data: "${dir}" is a directory, expected a regular file`],
      // Refused by its size before it is read (300 MB were read in full, 20 s, before being refused).
      [['--data', huge, '--out', out], `--data: "${huge}" is 268435457 bytes, more than the 268435456 it may hold`],
    ]) {
      const r = spawnSync(cli, ['train', ...args, ...tiny], { encoding: 'utf8' });
      assert.equal(r.stderr.replace(/ \(attn-train help lists every command and flag\)/, ''), `attn-train: ${message}\n`, args.join(' '));
      assert.equal(r.stdout, '', 'nothing was built or trained');
    }
    assert.equal(readFileSync(data, 'utf8'), TEXT);
  });

  test('SIGTERM during an evaluation abandons it and saves at once (it waited 216 s for --eval-iters 1000000)', { timeout: 120_000 }, async () => {
    // Evaluations this long never end within the test: only an abandoned one lets the run save and exit.
    // The signal comes once the model is built, as step 0's evaluation starts.
    const { code, stdout, out } = await interruptedRun('SIGTERM', /^model: /m, ['--eval-interval', '1', '--eval-iters', '1000000']);
    assert.equal(code, 143, stdout.slice(-300));
    assert.match(stdout, /interrupted at step 0: saved/);
    const ck = attn.loadCheckpoint(new Uint8Array(readFileSync(out)));
    own(ck.model);
    own(ck.tokenizer);
    assert.equal(ck.iter, 0);
  });

  test('an unknown flag or a bad value is an error naming it, before any work is done', () => {
    // Regression: unknown flags were ignored: --max-iter 3 trained the default 2000 steps, --nlayer 2 four layers.
    const cli = join(ROOT, 'build/portable/attn-train');
    const run = (...args) => spawnSync(cli, args, { encoding: 'utf8' });
    for (const [args, message] of [
      [['train', '--data', 'missing.txt', '--out', 'x', '--nlayer', '2'], 'attn-train: unknown flag --nlayer for train; did you mean --n-layer?'],
      [['train', '--data', 'missing.txt', '--out', 'x', '--max-iter', '3'], 'attn-train: unknown flag --max-iter for train; did you mean --max-iters?'],
      [['generate', '--checkpoint', 'x', '--temprature', '0.1'], 'attn-train: unknown flag --temprature for generate; did you mean --temperature?'],
      // generate's flags are generate.hpp's table, checked before the checkpoint is read
      [['generate', '--checkpoint', 'x', '--top-k', '-1'], 'attn-train: expected --top-k to be an integer >= 0, got -1'],
      [['generate', '--checkpoint', 'x', '--use-kv-cache', 'no'], 'attn-train: unexpected argument "no" (flags start with --)'],
      [['generate', '--checkpoint', 'x', '--model', 'y'], 'attn-train: generate needs --checkpoint CKPT or --model DIR (one of them)'],
      [['train', '--data', 'missing.txt', '--out', 'x', '--n-layer', 'two'], 'attn-train: expected --n-layer to be an integer in [1, 1024], got "two"'],
      [['train', '--data', 'missing.txt', '--out', 'x', '--n-embd', '30'], 'attn-train: --n-embd must be divisible by --n-head, got --n-embd=30 and --n-head=4'],
      [['train', '--data', 'missing.txt', '--out', 'x', '--max-iters', '-5'], 'attn-train: --max-iters: expected an integer >= 0, got "-5"'],
      [['trian'], 'attn-train: unknown command "trian"; did you mean "train"?'],
      // a flag given twice was accepted silently, the last one winning
      [['corpus', '--out', 'x', '--seed', '1', '--seed', '2'], 'attn-train: --seed is given twice'],
      [['train', '--data', 'missing.txt', '--out', 'x', '--bias', '--no-bias'], 'attn-train: --bias is given twice'],
      [['train', '--data', 'missing.txt', '--out', 'x', '--recipe', 'gpt2'], 'attn-train: --recipe: expected induction, got "gpt2"'],
      [['train', '--data', 'missing.txt', '--out', 'x', '--recipe', 'induction', '--resume', 'x'],
        'attn-train: --recipe starts a run; a resumed run keeps its settings'],
      [['train', '--data', 'missing.txt', '--out', 'x', '--threads', '17'], 'attn-train: --threads: expected a thread count from 1 to 16, got 17'],
      [['train', '--data', 'missing.txt', '--out', 'x', '--snapshots', '1,x', '--snapshot-dir', 'd'],
        'attn-train: --snapshots: expected steps as 0,100,250, got "1,x"'],
      [['train', '--data', 'missing.txt', '--out', 'x', '--snapshots', '0'], 'attn-train: --snapshots and --snapshot-dir go together'],
      [['train', '--data', 'missing.txt', '--out', 'x', '--task', 'copy'], 'attn-train: expected --task to be one of text|repeats, got "copy"'],
    ]) {
      const r = run(...args);
      assert.equal(r.status, 2, args.join(' '));
      assert.equal(r.stderr, `${message} (attn-train help lists every command and flag)\n`);
      assert.equal(r.stdout, '', 'no usage text, no work');
    }
    const help = run('help');
    assert.equal(help.status, 0);
    for (const flag of ['--n-layer integer', '--learning-rate number', '--decay-lr (or --no-decay-lr)', '--tokenizer char|word',
      '--temperature number  divides the logits; 0 = greedy (the argmax) (default 0.8)', '--use-kv-cache (or --no-use-kv-cache)',
      '--weight-decay number  AdamW\'s decay of matrices and embeddings (default 0.1)']) {
      assert.ok(help.stdout.includes(flag), flag);
    }
  });
});
