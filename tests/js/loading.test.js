// Loading the module and the shipped model from wherever an app keeps them,
// and what an engine or a file that cannot run it gets: an Error saying why,
// never Aborted() or an unhandled rejection.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer } from 'node:http';
import { describe, test } from 'node:test';
import { fileURLToPath, pathToFileURL } from 'node:url';

import * as library from '../../web/lib/index.js';
import { createAttention, fullTier } from './helpers.js';

const WASM = new URL('../../web/lib/wasm/attention_wasm.wasm', import.meta.url);
const MODEL = new URL('../../web/lib/models/agreement.safetensors', import.meta.url);
const INDEX = new URL('../../web/lib/index.js', import.meta.url).href;

/** softmax([1, 2]) through a freshly loaded module: a number only a working module gives. */
async function works(options) {
  const attn = await createAttention(options);
  return attn.softmax([1, 2]).data[0];
}
const SOFTMAX_1_2 = Math.fround(1 / (1 + Math.E));

describe('createAttention finds the WebAssembly module', () => {
  test('next to the package by default, or at wasmUrl (path, file: URL, string URL), or as bytes', async () => {
    const bytes = readFileSync(WASM);
    for (const options of [undefined, {}, { wasmUrl: fileURLToPath(WASM) }, { wasmUrl: WASM }, { wasmUrl: WASM.href },
      { wasmBinary: new Uint8Array(bytes) }, { wasmBinary: bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length) }]) {
      assert.equal(await works(options), SOFTMAX_1_2);
    }
  });

  test('wasmPaths: every module from a folder the app serves itself, threads included, with the numbers of one thread', fullTier('the threaded module'), async () => {
    // The folder an app copies the package's wasm/ files into (esbuild copies none); served over HTTP, as a
    // page would be, and read from disk in Node as a path and as a file: URL.
    const folder = mkdtempSync(join(tmpdir(), 'attn-wasm-paths-'));
    cpSync(fileURLToPath(new URL('../../web/lib/wasm/', import.meta.url)), folder, { recursive: true });
    const x = { data: Float32Array.from({ length: 64 * 32 }, (_, i) => Math.sin(i)), shape: [64, 32] };
    const one = (await library.createAttention({ threads: 1 })).attention(x, x, x, { causal: true });
    for (const wasmPaths of [folder, pathToFileURL(folder)]) {
      const attn = await library.createAttention({ wasmPaths, threads: 2 });
      assert.equal(attn.threads.count, 2);
      assert.deepEqual(attn.attention(x, x, x, { causal: true }), one);
    }
    // The threaded files missing from the folder: one thread, and the plan says which file was not found.
    rmSync(join(folder, 'attention_wasm_threads.wasm'));
    const warned = [];
    const warn = console.warn;
    console.warn = (text) => warned.push(text);
    try {
      const attn = await library.createAttention({ wasmPaths: folder, threads: 2 });
      assert.equal(attn.threads.count, 1);
      assert.match(attn.threads.reason, /could not load the threaded WebAssembly module from file:.*attention_wasm_threads\.wasm: ENOENT/);
      assert.equal(attn.softmax([1, 2]).data[0], SOFTMAX_1_2);
    } finally {
      console.warn = warn;
    }
    assert.equal(warned.length, 1);
    rmSync(folder, { recursive: true });
  });

  test("the single-thread entry: one thread, the same API, the same options but threads and worker", async () => {
    const single = await import('../../web/lib/single-thread.js');
    const attn = await single.createAttention();
    assert.equal(attn.threads.count, 1);
    assert.match(attn.threads.reason, /^attention-step-by-step\/single-thread runs on one thread/);
    assert.equal(attn.softmax([1, 2]).data[0], SOFTMAX_1_2);
    assert.deepEqual(Object.keys(attn).sort(), Object.keys(await createAttention({ threads: 1 })).sort());
    assert.equal((await single.createAttention({ wasmUrl: WASM })).softmax([1, 2]).data[0], SOFTMAX_1_2);
    await assert.rejects(single.createAttention({ worker: true }),
      { code: 'ERR_ATTN_INVALID_ARGUMENT', message: 'createAttention: unknown option "worker"; expected one of wasmBinary, wasmUrl, wasmPaths' });
  });

  test('a URL the caller gave that the server does not have: the status, and no hint (the URL is theirs to fix)', async () => {
    const server = createServer((req, res) => res.writeHead(404).end());
    await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
    const missing = `http://127.0.0.1:${server.address().port}/assets/attention_wasm.wasm`;
    try {
      await assert.rejects(createAttention({ wasmUrl: missing }),
        { message: `createAttention: could not load the WebAssembly module from ${missing}: HTTP 404` });
    } finally {
      server.close();
    }
  });

  test('a missing file, bytes that are not WebAssembly, or another module: an Error naming the cause', async () => {
    await assert.rejects(createAttention({ wasmUrl: '/nonexistent/attention.wasm' }),
      { message: /^createAttention: could not load the WebAssembly module from \/nonexistent\/attention\.wasm: ENOENT/ });
    await assert.rejects(createAttention({ wasmBinary: readFileSync(MODEL) }),
      { message: /^createAttention: could not compile the WebAssembly module: WebAssembly\.compile\(\): expected magic word/ });
    await assert.rejects(createAttention({ wasmBinary: Uint8Array.of(0, 97, 115, 109, 1, 0, 0, 0) }),
      { message: /^createAttention: could not start the WebAssembly module \(is it the \.wasm of this version of the package\?\)/ });
  });

  test('its options are checked like every other call\'s', async () => {
    // The library's own createAttention: the quick tier's would add its threads option to the keys named.
    const { createAttention } = library;
    await assert.rejects(createAttention({ wasmUrl: 'a.wasm', wasmBinary: new Uint8Array(8) }),
      { message: 'createAttention: expected one of wasmBinary, wasmUrl and wasmPaths, not two, got an object with keys [wasmUrl, wasmBinary]' });
    await assert.rejects(createAttention({ wasmUrl: 5 }), { message: 'createAttention: expected wasmUrl as a string or a URL, got number 5' });
    await assert.rejects(createAttention({ wasmBinary: 'bytes' }),
      { message: 'createAttention: expected wasmBinary as a Uint8Array or an ArrayBuffer, got the string "bytes"' });
    await assert.rejects(createAttention({ wasm: 1 }), { message: 'createAttention: unknown option "wasm"; expected one of wasmBinary, wasmUrl, wasmPaths, worker, workerUrl, workerTimeoutMs, threads' });
  });
});

describe('an engine that cannot run the module', () => {
  // Each in its own process: the engine is changed before the package loads.
  const run = (flags, prelude) => execFileSync(process.execPath, [...flags, '--input-type=module', '-e', `${prelude}
const { createAttention } = await import(${JSON.stringify(INDEX)});
try { await createAttention(); console.log('loaded'); } catch (e) { console.log(e.constructor.name + ': ' + e.message); }`],
  { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();

  test('without WebAssembly at all (node --jitless)', () => {
    assert.equal(run(['--jitless'], ''), 'Error: createAttention: this JavaScript engine has no WebAssembly (is it disabled, '
      + 'or running without a JIT?); Chrome and Edge 95+, Firefox 100+, Safari 16.4+ and Node 20.19+ have them');
  });

  test('without SIMD, or without exception handling (as engines before 2021-22)', () => {
    // Such an engine's validate() refuses modules that use the feature; emulate it by
    // refusing the opcodes themselves (0xfd: the SIMD prefix; 0x06 0x40: try).
    for (const [feature, refuses] of [['WebAssembly SIMD', 'b.includes(0xfd)'],
      ['WebAssembly exception handling', 'b.some((x, i) => x === 0x06 && b[i + 1] === 0x40)']]) {
      const stub = `const validate = WebAssembly.validate;
WebAssembly.validate = (bytes) => { const b = [...new Uint8Array(bytes)].slice(8); return !(${refuses}) && validate(bytes); };`;
      assert.equal(run([], stub), `Error: createAttention: this JavaScript engine lacks ${feature}; `
        + 'Chrome and Edge 95+, Firefox 100+, Safari 16.4+ and Node 20.19+ have them');
    }
  });
});

describe('loadDefaultModel', () => {
  test('from next to the package, from a url or path, or from bytes: the same model', async () => {
    const attn = await createAttention();
    const ids = [[1, 2, 3]];
    const reference = await attn.loadDefaultModel();
    const expected = reference.model.forward(ids).logits.data;
    for (const options of [{ url: MODEL }, { url: MODEL.href }, { url: fileURLToPath(MODEL) },
      { url: pathToFileURL(fileURLToPath(MODEL)) }, { bytes: new Uint8Array(readFileSync(MODEL)) }]) {
      const loaded = await attn.loadDefaultModel(options);
      assert.equal(loaded.verified, true);
      assert.deepEqual(loaded.model.forward(ids).logits.data, expected);
      loaded.model.dispose();
    }
    reference.model.dispose();
  });

  test('bad options and a missing file are Errors', async () => {
    const attn = await createAttention();
    await assert.rejects(attn.loadDefaultModel({ url: '/nonexistent/model.safetensors' }),
      { message: /^loadDefaultModel: could not load the model from \/nonexistent\/model\.safetensors: ENOENT/ });
    await assert.rejects(attn.loadDefaultModel({ url: 'x', bytes: new Uint8Array(1) }),
      { message: 'loadDefaultModel: expected either url or bytes, not both, got an object with keys [url, bytes]' });
    await assert.rejects(attn.loadDefaultModel({ path: 'x' }),
      { message: 'loadDefaultModel: unknown option "path"; expected one of name, url, bytes' });
    await assert.rejects(attn.loadDefaultModel({ name: 'gpt2' }),
      { message: "loadDefaultModel: expected name as 'agreement' or 'induction', got the string \"gpt2\"" });
    await assert.rejects(attn.loadDefaultModel({ bytes: new Uint8Array(16) }), { message: /^loadCheckpoint: / });
  });
});
