// The C++ library's layering, as attn.hpp's reading map states it: every file
// includes only files listed above it (internals sit where they are used), no
// installed header includes an internal one, and only cpp/bindings knows about
// Emscripten. A file that breaks this fails here with the include that does.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { test } from 'node:test';

const root = new URL('../../', import.meta.url);
const read = (path) => readFileSync(new URL(path, root), 'utf8');
const list = (dir, ext) => readdirSync(new URL(dir, root)).filter((f) => f.endsWith(ext)).map((f) => `${dir}${f}`);
const stem = (path) => path.split('/').pop().replace(/\.(hpp|cpp)$/, '');

/** The headers in the reading map's order: its lines after "Files, in the order", up to the blank comment line. */
function readingOrder() {
  const lines = read('cpp/include/attn/attn.hpp').split('\n');
  const start = lines.findIndex((l) => l.includes('Files, in the order'));
  const order = [];
  for (const line of lines.slice(start + 1)) {
    if (line.trim() === '//') break;
    for (const [, name] of line.slice(0, 37).matchAll(/([a-z_]+)\.hpp/g)) order.push(name);
  }
  return order;
}

// Internals a public file's .cpp splits off and includes (they include its header in turn).
const OWN_PARTS = { gpt: ['gpt_blocks'], tokenizer: ['utf8'], config: ['schema'], checkpoint: ['safetensors'], pretrained: ['hf_formats'],
  bpe_tokenizer: ['tokenizer_pipeline', 'added_vocabulary', 'post_processor', 'tokenizer_config', 'flat_hash', 'byte_alphabet', 'bpe_tables'] };
// Internals (cpp/src) and the public file whose place they take in the order.
const INTERNAL_PLACE = { thread_pool: 'threads', simd: 'tensor', gemm: 'tensor', json_limits: 'tensor', attention_kernel: 'attention_options', schema: 'config', gpt_blocks: 'gpt',
  unicode_classes: 'tokenizer', utf8: 'tokenizer', parameter_chunks: 'cross_entropy', safetensors: 'checkpoint', hf_formats: 'pretrained', gpt_init: 'gpt',
  regex: 'tokenizer', unicode_normalization: 'tokenizer', tokenizer_pipeline: 'bpe_tokenizer', tokenizer_json: 'bpe_tokenizer',
  added_vocabulary: 'bpe_tokenizer', post_processor: 'bpe_tokenizer', tokenizer_config: 'bpe_tokenizer', flat_hash: 'bpe_tokenizer',
  byte_alphabet: 'bpe_tokenizer', bpe_tables: 'bpe_tokenizer', bpe_tokenizer_files: 'bpe_tokenizer' };

test('attn.hpp lists every public header once, and includes each', () => {
  const order = readingOrder();
  const headers = list('cpp/include/attn/', '.hpp').map(stem).filter((h) => h !== 'attn');
  assert.deepEqual([...order].sort(), headers.sort());
  const umbrella = read('cpp/include/attn/attn.hpp');
  for (const h of headers) assert.ok(umbrella.includes(`#include "attn/${h}.hpp"`), h);
});

test('every C++ file includes only what comes before it in the reading map', () => {
  const order = readingOrder();
  // An internal file sits just after its public place (simd and gemm below everything but the tensor type).
  const rank = (name) => (name in INTERNAL_PLACE ? order.indexOf(INTERNAL_PLACE[name]) + 0.5 - (name === 'simd' || name === 'gemm' ? 1 : 0) : order.indexOf(name));
  const files = [...list('cpp/include/attn/', '.hpp'), ...list('cpp/src/', '.hpp'), ...list('cpp/src/', '.cpp')];
  const arrows = [];
  for (const file of files) {
    const self = stem(file);
    if (self === 'attn') continue;
    for (const [, included] of read(file).matchAll(/#include "(?:attn\/)?([a-z_0-9]+)\.hpp"/g)) {
      if (included === self || OWN_PARTS[self]?.includes(included)) continue; // a file and its own parts
      if (rank(included) > rank(self)) arrows.push(`${file} includes ${included}.hpp, which comes after it`);
    }
  }
  assert.deepEqual(arrows, []);
});

test('installed headers include no internal header and no Emscripten; only cpp/bindings does', () => {
  for (const file of [...list('cpp/include/attn/', '.hpp'), ...list('cpp/src/', '.hpp'), ...list('cpp/src/', '.cpp')]) {
    const text = read(file);
    assert.doesNotMatch(text, /#include <emscripten/, file);
    if (file.startsWith('cpp/include/')) {
      for (const internal of Object.keys(INTERNAL_PLACE)) assert.doesNotMatch(text, new RegExp(`#include "(attn/)?${internal}\\.hpp"`), file);
    }
  }
  // The registration file registers: it defines no function of its own besides the EMSCRIPTEN_BINDINGS block.
  const bindings = read('cpp/bindings/bindings.cpp');
  assert.equal((bindings.match(/^[a-z].*\)\s*\{$/gm) ?? []).length, 0, 'bindings.cpp defines functions');
});
