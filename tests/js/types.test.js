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

for (const setup of ['browser', 'bundler', 'node16', 'commonjs']) {
  test(`index.d.ts type-checks the documented usage under the ${setup} set-up`, () => {
    assert.equal(tsc('-p', `tests/types/tsconfig.${setup}.json`, '--noEmit'), '');
  });
}

test('what type-checks runs: the node16 build of the usage files', () => {
  // Emitted inside the repository so that Node resolves 'attention-step-by-step' to this package.
  const out = 'build/types-usage';
  rmSync(`${ROOT}/${out}`, { recursive: true, force: true });
  assert.equal(tsc('-p', 'tests/types/tsconfig.node16.json', '--outDir', out, '--rootDir', '.'), '');
  const printed = execFileSync(process.execPath, [`${out}/tests/types/usage.js`], { cwd: ROOT, encoding: 'utf8' });
  assert.deepEqual(JSON.parse(printed), { ok: true, loss: true, iter: 1, verified: true, memory: true, induction: true });
  const inWorker = execFileSync(process.execPath, [`${out}/tests/types/worker.js`], { cwd: ROOT, encoding: 'utf8' });
  assert.deepEqual(JSON.parse(inWorker), { text: true, loss: true, iter: 5, weights: [2, 2], nLayer: 1 });
});

test('what type-checks runs: a CommonJS file requires the package (Node ≥ 20.19 loads its ES module)', () => {
  const out = 'build/types-commonjs';
  rmSync(`${ROOT}/${out}`, { recursive: true, force: true });
  assert.equal(tsc('-p', 'tests/types/tsconfig.commonjs.json', '--outDir', out, '--rootDir', '.'), '');
  const printed = execFileSync(process.execPath, [`${out}/tests/types/commonjs.cjs`], { cwd: ROOT, encoding: 'utf8' });
  assert.deepEqual(JSON.parse(printed), { softmax: 'tensor([0.0900, 0.2447, 0.6652])', heads: 1 });
});

test('the types refuse what the API refuses (a check that the type tests can fail)', () => {
  // Without its @ts-expect-error comments, usage.ts must not compile: the
  // declarations reject a string tensor and a tensor without a shape.
  const output = tsc('-p', 'tests/types/tsconfig.refused.json');
  assert.match(output, /^tests\/types\/refused\.ts\(5,\d+\): error TS2322: Type 'string' is not assignable/m);
  assert.match(output, /^tests\/types\/refused\.ts\(6,\d+\): error/m);
});
