// Head ablation through WASM: GPT.forward's and probeAgreement's headMask
// against an independent reference, the shipped model with the same heads
// switched off by hand in its file (a head reaches the rest of the model only
// through its d input columns of c_proj, so those columns are scaled), and the
// agreement figures docs/training.md states for the shipped model.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';

import { assertClose, attn, own, useAttention } from './helpers.js';

useAttention();

const SHIPPED = readFileSync(new URL('../../web/lib/models/agreement.safetensors', import.meta.url));

/**
 * A safetensors file with edit(name, values, shape) applied to its float tensors,
 * written again without its digest (it would no longer match), as another tool would.
 */
function editedCheckpoint(bytes, edit) {
  const n = Number(new DataView(bytes.buffer, bytes.byteOffset).getBigUint64(0, true));
  const header = JSON.parse(new TextDecoder().decode(bytes.subarray(8, 8 + n)));
  const data = bytes.slice(8 + n);
  for (const [name, info] of Object.entries(header)) {
    if (name === '__metadata__') continue;
    const [begin, end] = info.data_offsets;
    edit(name, new Float32Array(data.buffer, data.byteOffset + begin, (end - begin) / 4), info.shape);
  }
  delete header.__metadata__.digest;
  let json = JSON.stringify(header);
  json += ' '.repeat((8 - (json.length % 8)) % 8);
  const out = new Uint8Array(8 + json.length + data.length);
  new DataView(out.buffer).setBigUint64(0, BigInt(json.length), true);
  out.set(new TextEncoder().encode(json), 8);
  out.set(data, 8 + json.length);
  return out;
}

/** headMask (nLayer, nHead) with the given [layer, head, value] entries, ones elsewhere. */
function headMask(nLayer, nHead, entries) {
  const data = new Float32Array(nLayer * nHead).fill(1);
  for (const [l, h, v] of entries) data[l * nHead + h] = v;
  return { data, shape: [nLayer, nHead] };
}

describe('headMask', () => {
  let model, tokenizer, nLayer, nHead, d, ids;
  before(() => {
    ({ model, tokenizer } = attn.loadCheckpoint(SHIPPED)); // shared by the tests below
    ({ nLayer, nHead } = model.config);
    d = model.config.nEmbd / nHead;
    ids = tokenizer.encode('\nThe cats, which slept near the dog, purr.');
  });
  after(() => {
    model.dispose();
    tokenizer.dispose();
  });

  test('equals the model with the heads\' columns of c_proj scaled by hand', () => {
    const entries = [[1, 3, 0], [0, 1, 0.5]];
    const byHand = editedCheckpoint(SHIPPED, (name, values, [rows, cols]) => {
      for (const [l, h, keep] of entries) {
        if (name !== `transformer.h.${l}.attn.c_proj.weight`) continue;
        for (let r = 0; r < rows; r++) for (let c = h * d; c < (h + 1) * d; c++) values[r * cols + c] *= keep;
      }
    });
    const reference = attn.loadCheckpoint(byHand);
    own(reference.model);
    own(reference.tokenizer);
    assert.equal(reference.verified, false);
    const { logits, trace } = model.forward(ids, { headMask: headMask(nLayer, nHead, entries), trace: true });
    assertClose(logits, reference.model.forward(ids).logits, 1e-4);
    const plain = model.forward(ids).logits;
    assert.ok(plain.data.some((v, i) => Math.abs(v - logits.data[i]) > 1e-2), 'the mask changed nothing');
    // the trace shows the multiplied weights: layer 1 head 3 all zeros
    const T = ids.length;
    const head = trace.layers[1].weights.data.subarray(3 * T * T, 4 * T * T);
    assert.ok(head.every((w) => w === 0));
    // all ones is no mask at all
    assert.deepEqual(model.forward(ids, { headMask: headMask(nLayer, nHead, []) }).logits.data, plain.data);
  });

  test('agreement of the shipped model with one head switched off (the figures of docs/training.md)', () => {
    const without = (l, h) => attn.probeAgreement(model, tokenizer, { sentences: 300, headMask: headMask(nLayer, nHead, [[l, h, 0]]) });
    assert.equal(attn.probeAgreement(model, tokenizer, { sentences: 300 }).accuracy, 1);
    // The subject head (layer 1 head 3): agreement falls to about 73 %, and that head no longer looks anywhere.
    const subjectOff = without(1, 3);
    assert.ok(subjectOff.accuracy > 0.6 && subjectOff.accuracy < 0.8, `without 1.3: ${subjectOff.accuracy}`);
    assert.equal(subjectOff.subjectAttention[1 * nHead + 3], 0);
    // Layer 0 heads 0 and 1, which never look at the subject themselves: agreement falls to chance.
    for (const h of [0, 1]) {
      const r = without(0, h);
      assert.ok(r.accuracy < 0.65, `without 0.${h}: ${r.accuracy}`);
    }
    // Any of the other five: nothing lost.
    for (const [l, h] of [[0, 2], [0, 3], [1, 0], [1, 1], [1, 2]]) assert.equal(without(l, h).accuracy, 1, `without ${l}.${h}`);
  });

  test('without the subject head the next-token guess flattens (chapter 8\'s prose)', () => {
    const prompt = tokenizer.encode('The cats, which slept near the dog,');
    const next = (mask) => {
      const { logits } = model.forward(prompt, { headMask: mask });
      const V = model.config.vocabSize;
      return Array.from(attn.softmax(attn.tensor(logits.data.slice((prompt.length - 1) * V), [V])).data).sort((a, b) => b - a);
    };
    const all = next(null);
    assert.ok(all.slice(0, 4).reduce((a, b) => a + b) > 0.9, `every head: the top four take ${all.slice(0, 4)}`);
    const off = next(headMask(nLayer, nHead, [[1, 3, 0]]));
    assert.ok(off[0] < 0.1, `without 2.4 the likeliest token has ${off[0]}`);
  });

  test('bad masks are refused with the shape or value expected', () => {
    assert.throws(() => model.forward(ids, { headMask: [[1, 1], [1, 1]] }),
      { message: `GPT.forward: expected headMask of shape [${nLayer}, ${nHead}] (n_layer, n_head), got [2, 2]` });
    const nan = headMask(nLayer, nHead, [[0, 2, NaN]]);
    assert.throws(() => model.forward(ids, { headMask: nan }),
      { message: 'GPT.forward: expected finite values in headMask, got NaN at flat index 2' });
    assert.throws(() => attn.probeAgreement(model, tokenizer, { headMask: 'all' }), /^TypeError: probeAgreement: expected headMask/);
  });
});
