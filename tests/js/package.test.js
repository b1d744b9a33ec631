// The real npm tarball: packed with `npm pack` (tests/fixtures/package.js), installed into an empty
// project, imported by its name from a separate Node process.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';

import { packTarball } from '../fixtures/package.js';
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
    'web/lib/abort.js', 'web/lib/arguments.js', 'web/lib/asset-url.d.ts', 'web/lib/attention.js', 'web/lib/core.js', 'web/lib/errors.js', 'web/lib/format.js', 'web/lib/handles.js', 'web/lib/index.cjs', 'web/lib/index.d.cts', 'web/lib/index.d.ts',
    'web/lib/index.js', 'web/lib/induction-url.js', 'web/lib/loading.js', 'web/lib/messages.js', 'web/lib/model-url.js', 'web/lib/model.d.ts', 'web/lib/model.js', 'web/lib/models/agreement.safetensors', 'web/lib/models/induction.safetensors', 'web/lib/pretrained.d.ts', 'web/lib/pretrained.js', 'web/lib/remote.d.ts', 'web/lib/remote.js', 'web/lib/single-thread.d.ts', 'web/lib/single-thread.js', 'web/lib/tensors.js', 'web/lib/threaded-module.js', 'web/lib/threads.js', 'web/lib/wasm-url.js', 'web/lib/wasm/attention_wasm.mjs', 'web/lib/wasm/attention_wasm.wasm',
    'web/lib/wasm/attention_wasm_threads.mjs', 'web/lib/wasm/attention_wasm_threads.wasm', 'web/lib/wasm/attention_wasm_threads.worker.js',
    'web/lib/wasm/package.json', 'web/lib/worker.js',
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
