// The SIMD kernels as the package runs them: tests/kernels/kernel_checks.cpp
// compiled to WebAssembly (build/wasm/kernel_checks.cjs, built with the module)
// checks gemm, the pre-packed gemm and e^x against Eigen and libm inside WASM,
// where they compile to SIMD128. ctest runs the same program natively.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const CHECKS = fileURLToPath(new URL('../../build/wasm/kernel_checks.cjs', import.meta.url));

test('the WASM SIMD kernels agree with the references', () => {
  let output;
  try {
    output = execFileSync(process.execPath, [CHECKS], { encoding: 'utf8' });
  } catch (e) {
    assert.fail(`kernel checks failed:\n${(e.stdout ?? '').split('\n').filter((l) => l.startsWith('FAIL')).join('\n')}${e.stderr ?? ''}`);
  }
  const lines = output.trim().split('\n');
  assert.equal(lines.at(-1), 'passed: 0 failed');
  assert.ok(lines.filter((l) => l.startsWith('ok   gemm ')).length > 400, 'every gemm shape ran');
  assert.ok(lines.some((l) => l.startsWith('ok   gemm_packed')));
  assert.ok(lines.some((l) => l.startsWith('ok   simd::exp_nonpositive')));
});
