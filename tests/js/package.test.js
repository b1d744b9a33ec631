// The real npm tarball: packed with `npm pack` (tests/fixtures/package.js), installed into an empty
// project, imported by its name from a separate Node process.
import assert from 'node:assert/strict';
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';

import { packTarball, ROOT } from '../fixtures/package.js';
import { gpt2References } from '../fixtures/torch-cache.js';
import { fullTier } from './helpers.js';

const run = (cmd, args, cwd) => execFileSync(cmd, args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });

test('the packed tarball installs and works from a fresh project', fullTier('a packed tarball'), () => {
  const work = mkdtempSync(join(tmpdir(), 'attn-pkg-'));
  const tarball = packTarball();
  const listing = run('tar', ['-tzf', tarball], work).split('\n').filter(Boolean).sort();
  // The code, its types, the WebAssembly module, the model and the documents a user
  // needs; nothing else (no sources, tests or build files).
  assert.deepEqual(listing, [
    'CHANGELOG.md', 'LICENSE', 'README.md', 'package.json',
    'tools/nanogpt_to_hf.py', 'web/bin/attn-train.cjs',
    // attn-train compiled for Node, apart from the page's files: an app that copies web/lib/wasm/ ships none of it.
    'web/cli/attn-train.cjs', 'web/cli/attn-train.wasm', 'web/cli/attn-train.worker.js', 'web/cli/package.json',
    'web/lib/abort.js', 'web/lib/arguments.js', 'web/lib/asset-url.d.cts', 'web/lib/asset-url.d.ts', 'web/lib/attention.js',
    'web/lib/bpe-tokenizer.js', 'web/lib/chat-template.js', 'web/lib/core.js', 'web/lib/errors.d.ts', 'web/lib/errors.js',
    'web/lib/format.js', 'web/lib/generation.js', 'web/lib/handles.js', 'web/lib/hub-cache-browser.js',
    'web/lib/hub-cache-node.js', 'web/lib/hub.js', 'web/lib/index.cjs', 'web/lib/index.d.cts', 'web/lib/index.d.ts',
    'web/lib/index.js', 'web/lib/induction-url.cjs', 'web/lib/induction-url.js', 'web/lib/json-text.js', 'web/lib/loading.js',
    'web/lib/messages.js', 'web/lib/model-url.cjs', 'web/lib/model-url.js', 'web/lib/model.d.ts', 'web/lib/model.js',
    'web/lib/models/agreement.safetensors', 'web/lib/models/induction.safetensors', 'web/lib/options.d.ts',
    'web/lib/positions.d.ts', 'web/lib/pretrained.d.ts', 'web/lib/pretrained.js', 'web/lib/progress.js', 'web/lib/remote.d.ts',
    'web/lib/remote.js', 'web/lib/scale.d.ts', 'web/lib/score-explanation.d.ts', 'web/lib/served-file.js',
    'web/lib/single-thread.cjs',
    'web/lib/single-thread.d.cts', 'web/lib/single-thread.d.ts', 'web/lib/single-thread.js', 'web/lib/tensors.js',
    'web/lib/threaded-module.js', 'web/lib/threads.js', 'web/lib/vendor/jinja.LICENSE', 'web/lib/vendor/jinja.js',
    'web/lib/wasm-url.cjs', 'web/lib/wasm-url.js',
    // What a page loads, and the package.json that keeps the threaded worker CommonJS in Node.
    'web/lib/wasm/attention_wasm.mjs', 'web/lib/wasm/attention_wasm.wasm', 'web/lib/wasm/attention_wasm_threads.mjs',
    'web/lib/wasm/attention_wasm_threads.wasm', 'web/lib/wasm/attention_wasm_threads.worker.js', 'web/lib/wasm/package.json',
    'web/lib/worker.cjs', 'web/lib/worker.d.cts', 'web/lib/worker.d.ts', 'web/lib/worker.js',
  ].map((f) => `package/${f}`));

  const app = join(work, 'app');
  run('mkdir', ['-p', app], work);
  writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'app', private: true, type: 'module' }));
  run('npm', ['install', '--no-audit', '--no-fund', '--silent', tarball], app);
  writeFileSync(
    join(app, 'main.js'),
    `import { createAttention } from 'attention-step-by-step';
const attn = await createAttention();
attn.manualSeed(123);
const sa = new attn.SelfAttentionV1(3, 2);
const t = sa.forward([[0.43, 0.15, 0.89], [0.55, 0.87, 0.66], [0.57, 0.85, 0.64],
                      [0.22, 0.58, 0.33], [0.77, 0.25, 0.10], [0.05, 0.80, 0.55]]);
sa.dispose();
let message = '';
try { attn.causalMask(-1); } catch (e) { message = e.message; }
// The same in a worker_thread, from the installed package's worker.js; never disposed, yet node exits.
const inWorker = await createAttention({ worker: true });
await inWorker.manualSeed(123);
const remoteQueries = (await (await new inWorker.SelfAttentionV1(3, 2)).forward([[0.43, 0.15, 0.89], [0.55, 0.87, 0.66], [0.57, 0.85, 0.64],
                      [0.22, 0.58, 0.33], [0.77, 0.25, 0.10], [0.05, 0.80, 0.55]])).queries;
console.log(JSON.stringify({ q: Array.from(t.queries.data.slice(2, 4)), message, sameInWorker: remoteQueries.data.every((v, i) => v === t.queries.data[i]) }));
`,
  );
  const out = JSON.parse(run('node', ['main.js'], app));
  assert.ok(Math.abs(out.q[0] - 0.4306) < 1e-4 && Math.abs(out.q[1] - 1.4551) < 1e-4, `queries row 1: ${out.q}`);
  assert.equal(out.message, 'causalMask: expected a sequence length > 0, got -1');
  assert.equal(out.sameInWorker, true, 'createAttention({ worker: true }) gives the same queries');
});

// The package as npm publishes it, checked by the tools users trust for that: publint (package.json's fields against
// the files) and arethetypeswrong (each entry's types and JS under Node's node16 resolution, from an ES module and
// from CommonJS, and under a bundler's). They once found a worker entry without types and CommonJS entries that
// reached ES modules, and the README linked 18 files of the repository that the tarball did not hold.
test('the packed tarball: publint and arethetypeswrong (node16) find nothing, and the README links only what it holds', fullTier('a packed tarball'), async () => {
  const tarball = packTarball();
  const dir = mkdtempSync(join(tmpdir(), 'attn-lint-'));
  run('tar', ['-xzf', tarball], dir);
  const pkgDir = join(dir, 'package');

  // npm corrects a package.json it finds wrong with a warning, at `npm pack` as at `npm publish`.
  const packed = spawnSync('npm', ['pack', '--dry-run', '--ignore-scripts'], { cwd: ROOT, encoding: 'utf8' });
  assert.equal(packed.status, 0, packed.stderr);
  assert.deepEqual(packed.stderr.split('\n').filter((line) => /^npm (warn|error)/i.test(line)), []);

  const { publint } = await import('publint');
  const { formatMessage } = await import('publint/utils');
  const { messages, pkg } = await publint({ pkgDir, pack: false, level: 'suggestion' });
  assert.deepEqual(messages.map((m) => `${m.type}: ${formatMessage(m, pkg, { color: false })}`), []);

  // The node16 profile leaves out node10's resolution (no "exports"), which no Node this package runs on uses.
  const attw = spawnSync(process.execPath, [join(ROOT, 'node_modules/@arethetypeswrong/cli/dist/index.js'), tarball,
    '--profile', 'node16', '--format', 'json'], { encoding: 'utf8' });
  const { analysis } = JSON.parse(attw.stdout);
  assert.deepEqual(Object.keys(analysis.entrypoints).sort(),
    ['.', './model', './models/induction', './package.json', './single-thread', './wasm', './worker']);
  assert.deepEqual(analysis.problems.filter((p) => p.resolutionKind !== 'node10'), []);
  assert.equal(attw.status, 0, attw.stderr);

  // The README is the package's front page on the registry and in node_modules: a relative link must reach a file
  // the tarball holds (docs/, examples/ and cpp/ are the repository's, linked absolutely: docs.test.js checks those).
  const readme = readFileSync(join(pkgDir, 'README.md'), 'utf8').replace(/^```[\s\S]*?^```/gm, '');
  const relative = [...readme.matchAll(/\]\(([^)\s]+)\)/g)].map(([, target]) => target).filter((t) => !/^[a-z]+:/.test(t));
  assert.deepEqual(relative.filter((t) => !existsSync(join(pkgDir, t.split('#')[0]))), []);
  assert.deepEqual(relative.sort(), ['CHANGELOG.md', 'LICENSE']);
});

// No compiler on a user's machine: `npx attn-train` once failed (no bin), and the converter lived only in the
// repository. The bin is the native tool compiled to WebAssembly: the same help, refusals and output.
test('npx attn-train from an install: the native tool on WebAssembly, same help, flags, output, and Ctrl-C saves', fullTier('a packed tarball and PyTorch'), async () => {
  const app = mkdtempSync(join(tmpdir(), 'attn-bin-'));
  writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'app', private: true }));
  run('npm', ['install', '--no-audit', '--no-fund', '--silent', packTarball()], app);
  const native = join(ROOT, 'build', 'portable', 'attn-train');
  const both = (args) => [spawnSync('npx', ['--no-install', 'attn-train', ...args], { cwd: app, encoding: 'utf8' }),
    spawnSync(native, args, { cwd: app, encoding: 'utf8' })];
  // Timings differ; every other character of the output is the same.
  const untimed = (text) => text.replace(/, \d+ tokens\/s/g, '').replace(/elapsed [\d.]+s/g, 'elapsed').replace(/saved \S+/g, 'saved');

  const [help, nativeHelp] = both(['--help']);
  assert.equal(help.status, 0, help.stderr);
  assert.equal(help.stdout, nativeHelp.stdout);
  assert.match(help.stdout, /^usage: attn-train COMMAND \[flags\]/);
  const [refused, nativeRefused] = both(['train', '--nlayer', '2']);
  assert.deepEqual([refused.status, refused.stderr], [2, nativeRefused.stderr]);

  writeFileSync(join(app, 'letters.txt'), 'abcdefghijklmnopqrstuvwxyzABCDEF');
  const train = (out) => ['train', '--recipe', 'induction', '--data', 'letters.txt', '--out', out, '--max-iters', '40',
    '--eval-interval', '20', '--log-interval', '10', '--seed', '7'];
  const [trained, nativeTrained] = [spawnSync('npx', ['--no-install', 'attn-train', ...train('wasm.safetensors')], { cwd: app, encoding: 'utf8' }),
    spawnSync(native, train('native.safetensors'), { cwd: app, encoding: 'utf8' })];
  assert.equal(trained.status, 0, trained.stderr);
  assert.match(trained.stdout, /^step 40: train loss \d\.\d{4}/m);
  assert.equal(untimed(trained.stdout), untimed(nativeTrained.stdout));
  const mode = statSync(join(app, 'wasm.safetensors')).mode & 0o777;
  assert.equal(mode, statSync(join(app, 'native.safetensors')).mode & 0o777, 'saved with the permission bits of a native save');
  const [generated, nativeGenerated] = both(['generate', '--checkpoint', 'wasm.safetensors', '--prompt', 'abcdefgh', '--max-new-tokens', '12', '--temperature', '0']);
  assert.equal(generated.status, 0, generated.stderr);
  assert.equal(generated.stdout, nativeGenerated.stdout);
  // A Hugging Face folder, read through the host's file system.
  const folder = join(gpt2References([{ name: 'small', n_layer: 2, n_head: 3, n_embd: 24, n_positions: 32 }]), 'small');
  const [fromFolder, nativeFromFolder] = both(['generate', '--model', folder, '--prompt', 'The cat sat', '--max-new-tokens', '6', '--temperature', '0']);
  assert.equal(fromFolder.status, 0, fromFolder.stderr);
  assert.equal(fromFolder.stdout, nativeFromFolder.stdout);

  // Ctrl-C during a run: the run is saved, and the exit status is a signal's, as natively. The installed bin is run
  // as npx runs it, without npx, whose own exit on a signal would hide the tool's.
  const child = spawn(join(app, 'node_modules', '.bin', 'attn-train'), ['train', '--recipe', 'induction', '--data', 'letters.txt',
    '--out', 'stopped.safetensors', '--max-iters', '1000000', '--log-interval', '10'], { cwd: app, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let sent = false;
  const status = await new Promise((resolve) => {
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
      if (!sent && /^iter 10:/m.test(stdout)) {
        sent = true;
        child.kill('SIGINT');
      }
    });
    child.on('close', (code, signal) => resolve(code ?? signal));
  });
  assert.equal(status, 130, stdout);
  assert.match(stdout, /^interrupted at step \d+: saved stopped\.safetensors$/m);
  assert.equal(spawnSync(native, ['generate', '--checkpoint', 'stopped.safetensors', '--prompt', 'ab', '--max-new-tokens', '2'], { cwd: app }).status, 0);

  // The nanoGPT converter ships with the package, as it is in the repository.
  assert.equal(readFileSync(join(app, 'node_modules', 'attention-step-by-step', 'tools', 'nanogpt_to_hf.py'), 'utf8'),
    readFileSync(join(ROOT, 'tools', 'nanogpt_to_hf.py'), 'utf8'));
});
