// Shared by the Node tests: the loaded API, disposal of what a test creates,
// and the golden numbers shared with the C++ and browser tests (tests/golden/*.json).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { afterEach, before } from 'node:test';

import { createAttention as createModule } from '../../web/lib/index.js';

/**
 * The tier of this run (docs/testing.md). `npm run test:quick` sets ATTN_TEST_TIER=quick: the Node tests run on
 * the single-threaded module, which is all that tier builds, and leave out what needs PyTorch, a packed tarball
 * or the threaded module. `npm test`, and any file run on its own, runs everything.
 */
export const QUICK = process.env.ATTN_TEST_TIER === 'quick';

/** The options of a test or suite that only the full tier runs: `what` it needs, shown beside the quick tier's skip. */
export const fullTier = (what) => ({ skip: QUICK && `needs ${what}; npm test runs it` });

/** createAttention as this tier runs it: on one thread in the quick tier unless the call says otherwise. */
export const createAttention = (options) => createModule(QUICK ? { threads: 1, ...options } : options);

/** The API, loaded once per test file by useAttention(). */
export let attn;
const created = [];
/** Registers an object owning WASM memory to be disposed after the current test. */
export const own = (obj) => (created.push(obj), obj);

export function useAttention() {
  before(async () => {
    attn ??= await createAttention();
  });
  // Node 20 cannot parse `using`; dispose through Symbol.dispose the same way.
  afterEach(() => {
    while (created.length) created.pop()[Symbol.dispose]();
  });
}

const load = (name) => JSON.parse(readFileSync(new URL(`../golden/${name}`, import.meta.url), 'utf8'));
const notebooks = load('notebooks.json');
const rng = load('torch_rng.json');

/** A tensor printed in a notebook, e.g. notebook('nb000.attn_weights'). */
export function notebook(key) {
  const e = notebooks[key];
  if (!e) throw new Error(`no golden tensor ${key}`);
  return { data: Float32Array.from(e.data), shape: e.shape };
}

export function rngCase(key) {
  return rng[key];
}

/** Same shape (when given) and every element within tol (4 printed decimals). */
export function assertClose(actual, expected, tol = 1e-4) {
  const exp = Array.isArray(expected) ? { data: expected, shape: actual.shape } : expected;
  assert.deepEqual(actual.shape, exp.shape, 'shape');
  assert.equal(actual.data.length, exp.data.length, 'length');
  for (let i = 0; i < exp.data.length; i++) {
    assert.ok(Math.abs(actual.data[i] - exp.data[i]) <= tol, `element ${i}: ${actual.data[i]} vs ${exp.data[i]}`);
  }
}

export function row(t, r) {
  const n = t.shape[t.shape.length - 1];
  return { data: t.data.slice(r * n, (r + 1) * n), shape: [n] };
}

/**
 * safetensors bytes taken apart: {header (parsed), size (bytes up to the data), rewrite(edit)}, where
 * rewrite(edit) gives the same file with edit(header) applied to a copy of the header and the data unchanged.
 */
export function safetensors(bytes) {
  const n = Number(new DataView(bytes.buffer, bytes.byteOffset).getBigUint64(0, true));
  const header = JSON.parse(new TextDecoder().decode(bytes.subarray(8, 8 + n)));
  const rewrite = (edit) => {
    const h = structuredClone(header);
    edit(h);
    const text = new TextEncoder().encode(JSON.stringify(h));
    const out = new Uint8Array(8 + text.length + bytes.length - 8 - n);
    new DataView(out.buffer).setBigUint64(0, BigInt(text.length), true);
    out.set(text, 8);
    out.set(bytes.subarray(8 + n), 8 + text.length);
    return out;
  };
  return { header, size: 8 + n, rewrite };
}
