// Errors an app can branch on: every Error the package throws carries a stable `code` from errors.js's list, wrong
// types are TypeErrors, and all of it survives the worker boundary of createAttention({ worker: true }), where
// the worker once sent only the message (so a TypeError arrived as an Error, and no code arrived at all).
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';

import { ERROR_CODES } from '../../web/lib/errors.js';
import { attn, createAttention, own, useAttention } from './helpers.js';

useAttention();

const read = (path) => readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8');
const codesIn = (text) => new Set(text.match(/\bERR_ATTN_[A-Z_]+/g) ?? []);

// A damaged checkpoint: the shipped model's file with its header length overwritten.
const damaged = () => {
  const bytes = new Uint8Array(readFileSync(new URL('../../web/lib/models/agreement.safetensors', import.meta.url)));
  bytes.fill(0xff, 0, 8);
  return bytes;
};

describe('the list of codes is the one the code uses', () => {
  test('every code thrown by web/lib and given by the C++ bindings is listed in errors.js', () => {
    const used = new Set();
    for (const file of readdirSync(new URL('../../web/lib/', import.meta.url))) {
      if (file.endsWith('.js') && file !== 'errors.js') for (const code of codesIn(read(`web/lib/${file}`))) used.add(code);
    }
    for (const code of codesIn(read('cpp/bindings/convert.hpp'))) used.add(code);
    assert.deepEqual([...used].filter((code) => !(code in ERROR_CODES)), []);
    // And none listed is dead: each is thrown somewhere.
    assert.deepEqual(Object.keys(ERROR_CODES).filter((code) => !used.has(code)), []);
  });

  test('docs/errors.md and the .d.ts list the same codes as errors.js', () => {
    const listed = Object.keys(ERROR_CODES).sort();
    assert.deepEqual([...codesIn(read('docs/errors.md'))].sort(), listed);
    assert.deepEqual([...codesIn(read('web/lib/errors.d.ts'))].sort(), listed);
  });
});

/** Each case: a call and the kind and code it must fail with, on this thread and in the worker alike. */
const cases = [
  ['a string where a tensor goes', (a) => a.softmax('x'), TypeError, 'ERR_ATTN_INVALID_TYPE'],
  ['an unknown option', (a) => a.repeatedSequences({ length: 4, vocabSize: 10, seeds: 1 }), Error, 'ERR_ATTN_INVALID_ARGUMENT'],
  ['shapes the C++ library refuses', (a) => a.contextVectors([[1, 0], [0, 1]], [[1, 2, 3], [4, 5, 6], [7, 8, 9]]),
    Error, 'ERR_ATTN_INVALID_ARGUMENT'],
  ['a damaged checkpoint', (a) => a.loadCheckpoint(damaged()), Error, 'ERR_ATTN_INVALID_FILE'],
];

describe('on this thread', () => {
  for (const [what, call, Kind, code] of cases) {
    test(`${what}: a ${Kind.name} with code ${code}`, () => {
      assert.throws(() => call(attn), (e) => e instanceof Kind && e.code === code && e.name === Kind.name);
    });
  }

  test('a Float32Array of the wrong length for its shape is refused for its value, not its type', () => {
    assert.throws(() => attn.softmax({ data: new Float32Array(5), shape: [2, 3] }),
      (e) => !(e instanceof TypeError) && e.code === 'ERR_ATTN_INVALID_ARGUMENT');
    assert.throws(() => attn.softmax([1, 2], 1.5), { code: 'ERR_ATTN_INVALID_ARGUMENT' });
    assert.throws(() => attn.softmax([1, 2], '0'), (e) => e instanceof TypeError && e.code === 'ERR_ATTN_INVALID_TYPE');
  });

  test('an object used after dispose()', () => {
    const layer = own(new attn.SelfAttentionV1(3, 2));
    layer.dispose();
    assert.throws(() => layer.forward([[1, 2, 3]]), { code: 'ERR_ATTN_DISPOSED', message: /used after dispose\(\)/ });
  });

  test('a file that cannot be read', async () => {
    await assert.rejects(attn.loadPretrained('/no/such/folder'), { code: 'ERR_ATTN_LOAD_FAILED' });
  });
});

describe('across the worker boundary', () => {
  let remote;
  before(async () => {
    remote = await createAttention({ worker: true });
  });
  after(() => remote.dispose());

  for (const [what, call, Kind, code] of cases) {
    test(`${what}: the same ${Kind.name} with code ${code}, and the message of this thread`, async () => {
      let here;
      try {
        call(attn);
      } catch (e) {
        here = e;
      }
      await assert.rejects(call(remote), (e) => e instanceof Kind && e.name === Kind.name && e.code === code &&
        e.message === here.message);
    });
  }

  test('an aborted call rejects with an AbortError', async () => {
    const controller = new AbortController();
    const loading = remote.loadPretrained(new Map([['config.json', new Uint8Array(8)]]), { signal: controller.signal });
    controller.abort();
    await assert.rejects(loading, (e) => e.name === 'AbortError' && e.code === DOMException.ABORT_ERR);
  });

  test('a call after the worker stopped', async () => {
    const other = await createAttention({ worker: true });
    await other.dispose();
    await assert.rejects(other.softmax([1, 2]), { code: 'ERR_ATTN_WORKER' });
  });
});
