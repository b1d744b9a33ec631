// The hand-written declarations against the JS (tests/js/declarations.js compares them): every exported name, every
// member of the API createAttention returns, each function's and method's parameters and the option keys the JS
// accepts, as web/lib/*.d.ts declares them. They drifted: 1,248 lines of .d.ts beside 2,620 of JS, with no check
// that a parameter or an option added to one was in the other.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { test } from 'node:test';

import { compare, declarations, describeApi, describeExports, exportedType, exportsType, LIB } from './declarations.js';

const { createAttention } = await import('../../web/lib/single-thread.js');
const attn = await createAttention();
const API = describeApi(attn);

/** The drift of the API object and of `entry`'s exports against `module`'s, the declarations overridden by `overrides`. */
function driftOf(entry, module, overrides = {}) {
  const { checker, source } = declarations(entry, overrides);
  const api = entry === 'index.d.ts' ? compare(checker, source, 'Attention', API, exportedType(checker, source, 'Attention')) : [];
  return [...api, ...compare(checker, source, entry, describeExports(module), exportsType(checker, source))];
}

test('index.d.ts declares every member of the API as the JS has it: names, parameters, option keys', async () => {
  assert.deepEqual(driftOf('index.d.ts', await import('../../web/lib/index.js')), []);
});

test("each entry's declarations export what its JS exports", async () => {
  assert.deepEqual(driftOf('single-thread.d.ts', await import('../../web/lib/single-thread.js')), []);
  assert.deepEqual(driftOf('worker.d.ts', {}), []); // a worker script: it exports nothing
  // CommonJS: the require entries restate the values (index.d.cts, single-thread.d.cts).
  const require = createRequire(import.meta.url);
  assert.deepEqual(driftOf('index.d.cts', require('../../web/lib/index.cjs')), []);
  assert.deepEqual(driftOf('single-thread.d.cts', require('../../web/lib/single-thread.cjs')), []);
});

// Three option objects have their names in the C++ library's tables, read by the JS as JSON (generate.hpp's
// generation options, the training config, the model's config): their declared keys are the tables' keys.
test("GenerateOptions, TrainConfig and GPTConfig declare the C++ tables' keys", () => {
  const { checker, source } = declarations('index.d.ts');
  const keys = (name) => checker.getPropertiesOfType(exportedType(checker, source, name)).map((p) => p.name).sort();
  const config = attn.nanoGPTConfig({ vocabSize: 8, blockSize: 4, nLayer: 1, nHead: 1, nEmbd: 4 });
  assert.deepEqual(keys('GenerateOptions'), Object.keys(attn.defaultGenerateOptions()).sort());
  assert.deepEqual(keys('TrainConfig'), Object.keys(attn.defaultTrainConfig()).sort());
  assert.deepEqual(keys('GPTConfig'), Object.keys(config).sort());
  assert.deepEqual(keys('GenerationConfig'), Object.keys(attn.defaultGenerateOptions()).sort());
});

// The comparison itself must see a drift: a parameter renamed, an option dropped, a member removed, in a copy of the
// declarations given to the checker in place of the file.
test('a drifted declaration is reported (the check can fail)', async () => {
  const file = join(LIB, 'index.d.ts');
  const text = readFileSync(file, 'utf8');
  const edited = text
    .replace('causalMask(T: number): Tensor;', 'causalMask(length: number): Tensor;')
    .replace(/\n\s*\/\*\*[^/]*\*\/\n\s*memoryUsage\(\): [^;]+;/, '\n')
    .replace('export function format(t: TensorLike | IntTensor, options?: { precision?: number }): string;',
      'export function format(t: TensorLike | IntTensor, options?: { digits?: number }): string;');
  assert.notEqual(edited, text);
  const drift = driftOf('index.d.ts', await import('../../web/lib/index.js'), { [file]: edited });
  assert.ok(drift.includes('Attention.causalMask: the JS takes (T), the declarations say (length)'), drift.join('\n'));
  assert.ok(drift.includes('Attention.memoryUsage: in the JS, not declared'), drift.join('\n'));
  assert.ok(drift.includes('index.d.ts.format: option precision of opts not declared'), drift.join('\n'));
  assert.ok(drift.includes('index.d.ts.format: option digits declared, which the JS refuses'), drift.join('\n'));
});
