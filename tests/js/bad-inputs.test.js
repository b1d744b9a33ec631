// Every public function checks its own arguments: a wrong type, a wrong shape,
// a value out of range or an unknown option is an Error whose message starts
// with the function the caller called and says what it expected and what it got,
// and whose code says which (a TypeError for a wrong type; errors.js).
// Nothing is coerced ("3" is not 3, "no" is not true). One row per case; after
// each, the module still computes notebook 000's weights.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';

import { ERROR_CODES } from '../../web/lib/errors.js';
import { assertClose, attn, createAttention, notebook, useAttention } from './helpers.js';

useAttention();

let model; // a small model, its tokenizer and a trainer, shared by the rows
let tok;
let trainer;
before(async () => {
  const a = await createAttention();
  tok = new a.CharTokenizer('abcdefgh ');
  model = new a.GPT({ vocabSize: tok.vocabSize, nEmbd: 8, nHead: 2, nLayer: 1, nInner: 16, blockSize: 8 });
  trainer = new a.Trainer({ model: { nEmbd: 8, nHead: 2, nLayer: 1, nInner: 16, blockSize: 4 }, training: { batchSize: 2 }, text: 'abcdefgh '.repeat(20) });
  Object.assign(globalThis, { rowsApi: a });
});
after(() => [model, tok, trainer].forEach((o) => o?.dispose()));
const api = () => globalThis.rowsApi;

const x = [[1, 2], [3, 4]];
// [the function called, the call, the message (a string: exactly; a RegExp: matched)]
const ROWS = [
  // scalars are numbers, not strings, booleans, arrays or null
  ['manualSeed', () => api().manualSeed('3'), 'manualSeed: expected seed as an integer, got the string "3"'],
  ['manualSeed', () => api().manualSeed(true), 'manualSeed: expected seed as an integer, got boolean true'],
  ['manualSeed', () => api().manualSeed(1.5), 'manualSeed: expected seed as an integer, got number 1.5'],
  ['manualSeed', () => api().manualSeed(1n), 'manualSeed: expected seed as an integer, got the BigInt 1n'],
  ['attentionScoresForQuery', () => api().attentionScoresForQuery(x, '1'), 'attentionScoresForQuery: expected queryIndex as a number, got the string "1"'],
  ['attentionScoresForQuery', () => api().attentionScoresForQuery(x, [1]), 'attentionScoresForQuery: expected queryIndex as a number, got [1]'],
  ['attentionScoresForQuery', () => api().attentionScoresForQuery(x, null), 'attentionScoresForQuery: expected queryIndex as a number, got null'],
  ['attentionScoresForQuery', () => api().attentionScoresForQuery(x, Symbol('q')), 'attentionScoresForQuery: expected queryIndex as a number, got a symbol (Symbol(q))'],
  ['attentionScoresForQuery', () => api().attentionScoresForQuery(x, 0.5), 'attentionScoresForQuery: expected an integer query index, got 0.5'],
  ['causalMask', () => api().causalMask('3'), 'causalMask: expected T as a number, got the string "3"'],
  ['causalMask', () => api().causalMask(2.5), 'causalMask: expected an integer length, got 2.5'],
  ['causalMask', () => api().causalMask(1e9), /^causalMask: shape \[1000000000, 1000000000\] has more than \d+ elements/],
  ['paddingMask', () => api().paddingMask([1], 2.5), 'paddingMask: expected keyLength to be a non-negative integer, got 2.5'],
  ['paddingMask', () => api().paddingMask([1], '2'), 'paddingMask: expected keyLength as a number, got the string "2"'],
  ['randint', () => api().randint('0', 10, [2]), 'randint: expected low as a number, got the string "0"'],
  ['randint', () => api().randint(0, 10, 2), 'randint: expected shape as an array of non-negative integers, got number 2'],
  ['rand', () => api().rand(-1), 'rand: expected sizes as an array of non-negative integers, got [-1]'],
  ['randn', () => api().randn('2'), 'randn: expected sizes as an array of non-negative integers, got ["2"]'],
  ['SelfAttentionV1', () => new (api().SelfAttentionV1)('3', 2), 'SelfAttentionV1: expected dIn as a number, got the string "3"'],
  ['SelfAttentionV1', () => new (api().SelfAttentionV1)(0, 2), 'SelfAttentionV1: expected dIn to be a positive integer, got 0'],
  ['Linear', () => new (api().Linear)(3, 2, 'yes'), 'Linear: expected bias as true or false, got the string "yes"'],
  ['LayerNorm', () => new (api().LayerNorm)(null), 'LayerNorm: expected normalizedShape as a number, got null'],
  ['Embedding', () => new (api().Embedding)([5], 3), 'Embedding: expected numEmbeddings as a number, got [5]'],
  ['agreementCorpus', () => api().agreementCorpus('10'), 'agreementCorpus: expected sentences as a number, got the string "10"'],
  ['Trainer.evaluate', () => trainer.evaluate('2'), 'Trainer.evaluate: expected evalIters as a number, got the string "2"'],
  ['GPT.numParameters', () => model.numParameters({ nonEmbedding: 'no' }), 'GPT.numParameters: expected nonEmbedding as true or false, got the string "no"'],
  ['GPT.parameter', () => model.parameter(3), 'GPT.parameter: expected name as a string, got number 3'],
  // array elements are numbers (or integers, for ids)
  ['softmax', () => api().softmax(['3', 1]), 'softmax: expected x to hold numbers, got the string "3"'],
  ['softmax', () => api().softmax([null, 1]), 'softmax: expected x to hold numbers, got null'],
  ['softmax', () => api().softmax({ data: [1, '2'], shape: [2] }), 'softmax: expected x.data to hold numbers, got the string "2" at index 1'],
  ['softmax', () => api().softmax([]), 'softmax: expected scores of shape [..., T] with T > 0, got [0]'],
  ['softmax', () => api().softmax([1, 2], 1), 'softmax: expected dim as an integer in [-1, 0] for a 1-D tensor, got number 1'],
  ['softmax', () => api().softmax([[1, 2]], 0.5), 'softmax: expected dim as an integer in [-2, 1] for a 2-D tensor, got number 0.5'],
  ['normalizeSum', () => api().normalizeSum([[1, 2]], '1'), 'normalizeSum: expected dim as an integer in [-2, 1] for a 2-D tensor, got the string "1"'],
  ['softmaxNaive', () => api().softmaxNaive({ data: [], shape: [2, 0] }, 0), 'softmaxNaive: expected scores with no dimension of size 0, got shape [2, 0]'],
  ['format', () => api().format([1, 2], { precision: 20 }), 'format: expected precision as an integer from 0 to 16, got number 20'],
  ['format', () => api().format([1, 2], { digits: 2 }), 'format: unknown option "digits"; expected one of precision'],
  ['format', () => api().format({ data: new Int32Array(3), shape: [2, 2] }), 'format: t of shape [2, 2] needs 4 values, got 3'],
  ['toArray', () => api().toArray('abc'), 'toArray: expected t as a tensor {data, shape} or a nested array of numbers, got the string "abc"'],
  ['tensor', () => api().tensor([[1, '2']]), 'tensor: expected data to hold numbers, got the string "2"'],
  ['paddingMask', () => api().paddingMask(['1'], 2), 'paddingMask: expected lengths to hold integers, got the string "1" at index 0'],
  ['Embedding.forward', () => new (api().Embedding)(5, 2).forward([1, 1.5]), 'Embedding.forward: expected ids to hold integers, got number 1.5 at index 1'],
  ['GPT.forward', () => model.forward([1, null]), 'GPT.forward: expected ids to hold integers, got null at index 1'],
  ['GPT.forward', () => model.forward([1, 99]), 'GPT.forward: expected token ids in [0, 9), got 99 at index 1'],
  ['CharTokenizer.decode', () => tok.decode(['1']), 'CharTokenizer.decode: expected ids to hold integers, got the string "1" at index 0'],
  // booleans are booleans: "no" and "false" are not true
  ['scaledDotProductAttention', () => api().scaledDotProductAttention(x, x, x, { causal: 'no' }), 'scaledDotProductAttention: expected causal as true or false, got the string "no"'],
  ['SelfAttentionV2', () => new (api().SelfAttentionV2)(3, 2, 'false'), 'SelfAttentionV2: expected qkvBias as true or false, got the string "false"'],
  ['GPT.forward', () => model.forward([1], { trace: 'false' }), 'GPT.forward: expected trace as true or false, got the string "false"'],
  ['generate', () => model.generate([1], { useKvCache: 'no' }), 'generate: expected useKvCache to be true or false, got "no"'],
  ['nanoGPTConfig', () => api().nanoGPTConfig({ vocabSize: 9, blockSize: 8, nLayer: 1, nHead: 2, nEmbd: 8, bias: 'no' }), 'nanoGPTConfig: expected bias as true or false, got the string "no"'],
  ['TorchMultiheadAttention', () => new (api().TorchMultiheadAttention)(8, 2, { bias: 0 }), 'TorchMultiheadAttention: expected bias as true or false, got number 0'],
  // config builders and configs: types, ranges, names
  ['notebook001Config', () => api().notebook001Config(-1, 8, 2, 16, 6), 'notebook001Config: expected vocabSize to be a positive integer, got -1'],
  ['notebook001Config', () => api().notebook001Config(10, 8, 3, 16, 6), 'notebook001Config: dModel must be divisible by numHeads, got dModel=8 and numHeads=3'],
  ['nanoGPTConfig', () => api().nanoGPTConfig({ vocabSize: 1.5, blockSize: 8, nLayer: 1, nHead: 2, nEmbd: 8 }), 'nanoGPTConfig: expected vocabSize to be a positive integer, got 1.5'],
  ['nanoGPTConfig', () => api().nanoGPTConfig(null), 'nanoGPTConfig: expected options as an object, got null'],
  ['nanoGPTConfig', () => api().nanoGPTConfig({ nLayers: 2 }), /^nanoGPTConfig: unknown option "nLayers"; expected one of vocabSize, blockSize, nLayer/],
  ['GPT', () => new (api().GPT)({ nHead: '4' }), 'GPT: expected nHead to be an integer in [1, 4096], got "4"'],
  ['GPT', () => new (api().GPT)({ nEmbd: 8n }), 'GPT: expected nEmbd as a number, true or false, a string or a list of numbers, got the BigInt 8n'],
  ['GPT', () => new (api().GPT)({ dropout: NaN }), 'GPT: expected dropout as a finite number, got number NaN'],
  // The caller's own key is quoted as they wrote it: the C++-to-JS renaming of messages made it "numHeads".
  ['GPT', () => new (api().GPT)({ num_heads: 3 }), 'GPT: unknown config field "num_heads"; did you mean "nHead"?'],
  ['GPT', () => new (api().GPT)({ nEmbed: 8 }), 'GPT: unknown config field "nEmbed"; did you mean "nEmbd"?'],
  ['GPT', () => new (api().GPT)({ norm: 'middle' }), 'GPT: expected norm to be one of post|pre, got "middle"'],
  ['GPT', () => new (api().GPT)(null), 'GPT: expected config as an object, got null'],
  ['Trainer', () => new (api().Trainer)({ training: { decayLr: 'false' }, text: 'abc' }), 'Trainer: expected decayLr to be true or false, got "false"'],
  ['Trainer', () => new (api().Trainer)({ training: { eps: Infinity }, text: 'abc' }), 'Trainer: expected eps as a finite number, got number Infinity'],
  ['Trainer', () => new (api().Trainer)({ text: 'abc', steps: 3 }), /^Trainer: unknown option "steps"/],
  // {data, shape} whose length does not fit its shape
  ['softmax', () => api().softmax({ data: [1, 2, 3], shape: [2, 2] }), 'softmax: x of shape [2, 2] needs 4 values, got 3'],
  ['Linear.forward', () => new (api().Linear)(3, 2).forward({ data: new Float32Array(5), shape: [2, 3] }), 'Linear.forward: x of shape [2, 3] needs 6 values, got 5'],
  ['GPT.forward', () => model.forward({ data: [1, 2, 3], shape: [2, 2] }), 'GPT.forward: ids of shape [2, 2] need 4 values, got 3'],
  // BigInt, Symbol and null, named
  ['softmax', () => api().softmax([1n]), 'softmax: expected x to hold numbers, got the BigInt 1n'],
  ['softmax', () => api().softmax({ data: new BigInt64Array(2), shape: [2] }), 'softmax: expected x.data as a Float32Array or an array of numbers, got a BigInt64Array of length 2'],
  ['causalMask', () => api().causalMask(Symbol('T')), 'causalMask: expected T as a number, got a symbol (Symbol(T))'],
  ['CharTokenizer.encode', () => tok.encode(Symbol('s')), 'CharTokenizer.encode: expected text as a string, got a symbol (Symbol(s))'],
  ['CharTokenizer', () => new (api().CharTokenizer)(null), 'CharTokenizer: expected text as a string, got null'],
  // null or unknown options
  ['scaledDotProductAttention', () => api().scaledDotProductAttention(x, x, x, null), 'scaledDotProductAttention: expected options as an object, got null'],
  ['scaledDotProductAttention', () => api().scaledDotProductAttention(x, x, x, { casual: true }), /^scaledDotProductAttention: unknown option "casual"; expected one of causal/],
  ['MultiHeadAttention.forward', () => new (api().MultiHeadAttention)(2, 1).forward(x, { fill: -1e9 }), /^MultiHeadAttention.forward: unknown option "fill"/],
  ['generate', () => model.generate([1], null), 'generate: expected options as an object, got null'],
  ['stream', () => model.stream([1], { maxTokens: 3 }), /^stream: unknown option "maxTokens"/],
  // The README's worker recipe passes a signal to stream; here it was "expected signal as a number, true or false…".
  ['stream', () => model.stream([1], { signal: new AbortController().signal }), /^stream: expected no signal: only the stream of the worker API/],
  ['generate', () => model.generate([1], { signal: new AbortController().signal }), /^generate: expected no signal/],
  ['probeAgreement', () => api().probeAgreement(model, tok, null), 'probeAgreement: expected options as an object, got null'],
  ['TorchMultiheadAttention', () => new (api().TorchMultiheadAttention)(8, 2, null), 'TorchMultiheadAttention: expected options as an object, got null'],
  // messages name the function called, not the one inside it that found the problem
  ['simpleSelfAttention', () => api().simpleSelfAttention([1, 2, 3]), 'simpleSelfAttention: expected inputs of shape [T, d] with T, d > 0, got [3]'],
  ['probeAgreement', () => api().probeAgreement(model, tok), /^probeAgreement: character '\n' \(U\+000A\) at position 0 is not in the vocabulary of 9 characters/],
  ['Trainer.resume', () => api().Trainer.resume(new Uint8Array([1, 2]), 'abc'), 'Trainer.resume: a file of 2 bytes is too short for a safetensors header'],
  ['stream', () => model.stream([99]), 'stream: expected token ids in [0, 9), got 99 at index 0'],
  // generate is kept short; stream goes longer and can be stopped
  ['generate', () => model.generate([1], { maxNewTokens: 1e6 }), 'generate: expected maxNewTokens of at most 10000, got 1000000; stream() generates longer runs a token at a time, and can be stopped'],
  // text is well-formed: a lone surrogate cannot round-trip through UTF-8
  ['CharTokenizer.encode', () => tok.encode('ab\uD800'), 'CharTokenizer.encode: expected text as well-formed text, got a lone surrogate (half of a UTF-16 character, U+D800) at index 2'],
  ['WordTokenizer', () => new (api().WordTokenizer)('\uDC00 cats'), 'WordTokenizer: expected text as well-formed text, got a lone surrogate (half of a UTF-16 character, U+DC00) at index 0'],
];

describe('bad input is an Error naming the function called, what it expected and what it got', () => {
  for (const [fn, call, message] of ROWS) {
    test(`${fn}: ${message instanceof RegExp ? message.source : message}`, () => {
      assert.throws(call, (error) => {
        // The package's own error (errors.js), not one the engine threw from inside it ("Cannot read properties of …").
        assert.ok(error?.code in ERROR_CODES && error.constructor === ERROR_CODES[error.code], `${error?.constructor?.name} ${error?.code}: ${error?.message}`);
        assert.ok(error.message.startsWith(`${fn}: `), error.message);
        if (message instanceof RegExp) assert.match(error.message, message);
        else assert.equal(error.message, message);
        return true;
      });
      assertClose(attn.softmax(attn.attentionScoresForQuery(notebook('nb000.inputs'), 1)), notebook('nb000.attn_weights_2'));
    });
  }

  test('a string with surrogate pairs (a character outside the BMP) round-trips', () => {
    const t = new (api().CharTokenizer)('a😀b');
    assert.equal(t.decode(t.encode('😀ab')), '😀ab');
    t.dispose();
  });
});
