// The real thing, end to end: a random model of each family made from its published config.json, every key of it
// (tests/fixtures/configs/: Llama 3.2 1B, Qwen3 0.6B, Qwen2.5 0.5B, Gemma 3 270M, GPT-2, Llama 2 7B, Mistral 7B v0.1,
// SmolLM2 135M, their sizes shrunk and their vocabularies whole; docs/testing.md says where each file was read), with
// the model's own tokenizer.json and tokenizer_config.json as the Hub publishes them (tests/fixtures/real-families.js).
// loadPretrained must read every published key without refusing one; the tokenizer must give the tokenizers library's
// ids, BOS included, for plain text, for accents, CJK and an emoji, and for the model's own chat tokens; and on those
// ids the logits, every head's attention weights and a greedy continuation must equal the plain-PyTorch references'
// (tools/llama_reference.py, tools/gpt2_reference.py), to 1e-4.
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';

import { assertSameAsTorch, configOf, FAMILIES, modelFolder, realFamilyReferences } from '../fixtures/real-families.js';
import { attn, fullTier, own, useAttention } from './helpers.js';

useAttention();

describe("each family's published config.json and real tokenizer give what PyTorch gives", fullTier('PyTorch (tools/llama_reference.py, tools/gpt2_reference.py)'), () => {
  let referenceDir;
  const folders = [];
  before(() => {
    referenceDir = realFamilyReferences(FAMILIES);
  });
  after(() => folders.forEach((f) => rmSync(f, { recursive: true, force: true })));

  for (const family of FAMILIES) {
    const what = family.tokenizer ? `its tokenizer (${family.tokenizer})` : 'ids over its whole vocabulary';
    test(`${family.name}: every published key read; ${what}; logits, every head's weights and greedy tokens as PyTorch's`, async () => {
      const folder = modelFolder(family, referenceDir(family));
      folders.push(folder);
      const { model, tokenizer, config } = await attn.loadPretrained(folder);
      own(model);
      own(tokenizer);
      assert.deepEqual(config, configOf(family));
      // Read, not only accepted: the shape the model was built with is the file's.
      assert.equal(model.config.nLayer, config.num_hidden_layers ?? config.n_layer);
      assert.equal(model.config.nHead, config.num_attention_heads ?? config.n_head);
      assert.equal(model.config.vocabSize, config.vocab_size);
      await assertSameAsTorch(model, tokenizer, family, referenceDir(family));
    });
  }
});
