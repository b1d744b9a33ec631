// The hand-written declarations (web/lib/index.d.ts) against tests/types/usage.ts,
// under the TypeScript set-ups users have: a browser-only lib (no Node types),
// a bundler's (with the ./wasm and ./model URLs), Node's node16 resolution in an
// ES module and in a CommonJS file, each strict with skipLibCheck off. The Node
// builds are then run: what type-checks must also work.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

import { fullTier } from './helpers.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const TSC = fileURLToPath(new URL('../../node_modules/typescript/bin/tsc', import.meta.url));

function tsc(...args) {
  try {
    execFileSync(process.execPath, [TSC, ...args], { cwd: ROOT, encoding: 'utf8' });
    return '';
  } catch (e) {
    return `${e.stdout}${e.stderr}`;
  }
}

for (const setup of ['browser', 'bundler']) {
  test(`index.d.ts type-checks the documented usage under the ${setup} set-up`, () => {
    assert.equal(tsc('-p', `tests/types/tsconfig.${setup}.json`, '--noEmit'), '');
  });
}

// The Node set-ups are type-checked by the build that the tests after them run: one tsc per set-up.
const emitted = {};
/** tsc's output for a Node set-up, emitted once inside the repository (so that Node resolves 'attention-step-by-step' to this package). */
function emit(setup) {
  if (!(setup in emitted)) {
    rmSync(`${ROOT}/build/types-${setup}`, { recursive: true, force: true });
    emitted[setup] = tsc('-p', `tests/types/tsconfig.${setup}.json`, '--outDir', `build/types-${setup}`, '--rootDir', '.');
  }
  return emitted[setup];
}
for (const setup of ['node16', 'commonjs']) {
  test(`index.d.ts type-checks the documented usage under the ${setup} set-up`, () => {
    assert.equal(emit(setup), '');
  });
}

// The usage files load the package as an app does, on every core: the threaded module.
const THREADED = fullTier('the threaded module');

test('what type-checks runs: the node16 build of the usage files', THREADED, () => {
  assert.equal(emit('node16'), '');
  const out = 'build/types-node16';
  const printed = execFileSync(process.execPath, [`${out}/tests/types/usage.js`], { cwd: ROOT, encoding: 'utf8' });
  assert.deepEqual(JSON.parse(printed), { ok: true, loss: true, iter: 1, verified: true, memory: true, induction: true });
  const inWorker = execFileSync(process.execPath, [`${out}/tests/types/worker.js`], { cwd: ROOT, encoding: 'utf8' });
  assert.deepEqual(JSON.parse(inWorker), { text: true, loss: true, iter: 5, weights: [2, 2], nLayer: 1 });
  const assets = execFileSync(process.execPath, [`${out}/tests/types/assets.js`], { cwd: ROOT, encoding: 'utf8' });
  assert.deepEqual(JSON.parse(assets), { heads: '4', layers: 2, threads: 1 });
});

test('what type-checks runs: a CommonJS file requires every entry of the package (Node ≥ 20.19 loads its ES modules)', THREADED, () => {
  assert.equal(emit('commonjs'), '');
  const printed = execFileSync(process.execPath, ['build/types-commonjs/tests/types/commonjs.cjs'], { cwd: ROOT, encoding: 'utf8' });
  assert.deepEqual(JSON.parse(printed), { softmax: 'tensor([0.0900, 0.2447, 0.6652])', heads: 1, threads: 1, layers: [2, 2], worker: true });
});

test('the types refuse what the API refuses (a check that the type tests can fail)', () => {
  // Without its @ts-expect-error comments, usage.ts must not compile: the
  // declarations reject a string tensor and a tensor without a shape.
  const output = tsc('-p', 'tests/types/tsconfig.refused.json');
  assert.match(output, /^tests\/types\/refused\.ts\(5,\d+\): error TS2322: Type 'string' is not assignable/m);
  assert.match(output, /^tests\/types\/refused\.ts\(6,\d+\): error/m);
});
