// What a server answers where a file was expected: a single-page app's host answers a path it does not have with
// the app's index.html and a 200 (vite preview, many static hosts). Read as the model, that page gave
// "loadCheckpoint: the header length 8104636974849335612 exceeds the file's 188 bytes". Every file the package
// fetches (the .wasm, a model, a model folder's files) is now told from such a page by its content type and its
// first bytes, and the error names the page, the URL, the status, the content type and what to change.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { after, before, describe, test } from 'node:test';

import { canBegin, kindOfName } from '../../web/lib/served-file.js';
import { createAttention } from './helpers.js';

const WASM = readFileSync(new URL('../../web/lib/wasm/attention_wasm.wasm', import.meta.url));
const MODEL = readFileSync(new URL('../../web/lib/models/agreement.safetensors', import.meta.url));
// Vite's index.html of a new app, as `vite preview` answers any path it does not have: 188 bytes, as in the report.
const PAGE = Buffer.from('<!doctype html>\n<html lang="en">\n  <head>\n    <meta charset="UTF-8" />\n    <title>apps</title>\n' +
  '    <script type="module" src="/assets/index.js"></script>\n  </head>\n  <body></body>\n</html>\n');
const PHRASE = "a server's fallback page: the file is not where the app looks for it";

let server;
let origin;
// Each path's answer: [status, content type, body]; any other path gets the app's page, as a fallback does.
const answers = new Map();
before(async () => {
  server = createServer((req, res) => {
    const [status, type, body] = answers.get(new URL(req.url, 'http://x').pathname) ?? [200, 'text/html', PAGE];
    res.writeHead(status, type ? { 'content-type': type } : {}).end(body);
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${server.address().port}`;
});
after(() => server.close());

const escape = (text) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

describe("a server's fallback page where a file was expected", () => {
  test('the page length as a safetensors header (8104636974849335612 > 188 bytes): the model is named as a page, with its URL, status and type', async () => {
    assert.equal(PAGE.length, 188);
    assert.equal(PAGE.readBigUInt64LE(0), 8104636974849335612n, "the number the report's error gave");
    const attn = await createAttention({ threads: 1 });
    const url = `${origin}/assets/models/agreement.safetensors`;
    await assert.rejects(attn.loadDefaultModel({ url }), {
      code: 'ERR_ATTN_WRONG_FILE',
      message: `loadDefaultModel: ${url} answered 200 with content type text/html, an HTML page, not the model: ${PHRASE}; ` +
        'url must be the address the server has the model file at',
    });
  });

  test('the .wasm: createAttention names the page, and says what to change', async () => {
    const url = `${origin}/assets/attention_wasm.wasm`;
    await assert.rejects(createAttention({ wasmUrl: url }), {
      code: 'ERR_ATTN_WRONG_FILE',
      message: new RegExp(`^createAttention: ${escape(url)} answered 200 with content type text/html, an HTML page, not the WebAssembly module: ` +
        `${escape(PHRASE)}; the address given \\(wasmUrl, or wasmPaths`),
    });
    // The same page under another content type is still a page, told by its first bytes.
    answers.set('/octet/attention_wasm.wasm', [200, 'application/octet-stream', PAGE]);
    await assert.rejects(createAttention({ wasmUrl: `${origin}/octet/attention_wasm.wasm` }),
      { code: 'ERR_ATTN_WRONG_FILE', message: /answered 200 with content type application\/octet-stream, an HTML page, not the WebAssembly module/ });
    // And the real file, served plainly, loads.
    answers.set('/real/attention_wasm.wasm', [200, 'application/wasm', WASM]);
    const attn = await createAttention({ wasmUrl: `${origin}/real/attention_wasm.wasm` });
    assert.equal(attn.softmax([0, 0]).data[0], 0.5);
  });

  test('bytes that cannot begin the file, not a page: their size and first bytes', async () => {
    const attn = await createAttention({ threads: 1 });
    answers.set('/junk.safetensors', [200, undefined, Buffer.from('PK\u0003\u0004 a zip archive, not the model at all')]);
    await assert.rejects(attn.loadDefaultModel({ url: `${origin}/junk.safetensors` }), {
      code: 'ERR_ATTN_WRONG_FILE',
      message: `loadDefaultModel: ${origin}/junk.safetensors answered 200 with no content type, 40 bytes that cannot be the model ` +
        `(they begin "PK?? a zip archi"), not the model: ${PHRASE}; url must be the address the server has the model file at`,
    });
    // The real model, served with no content type at all, loads.
    answers.set('/agreement.safetensors', [200, undefined, MODEL]);
    const { model, verified } = await attn.loadDefaultModel({ url: `${origin}/agreement.safetensors` });
    assert.equal(verified, true);
    model.dispose();
  });

  test("a model folder on a server: a file answered with the app's page names that file", async () => {
    const attn = await createAttention({ threads: 1 });
    await assert.rejects(attn.loadPretrained(`${origin}/models/gpt2/`), {
      code: 'ERR_ATTN_WRONG_FILE',
      message: `loadPretrained: ${origin}/models/gpt2/config.json answered 200 with content type text/html, an HTML page, not config.json: ` +
        `${PHRASE}; serve the model folder at the address given, with a 404 for a file it does not hold (not the app's page)`,
    });
  });

  test('each kind against its real files, and against a page', () => {
    const head = (bytes) => new Uint8Array(bytes).subarray(0, 16);
    assert.equal(canBegin('wasm', head(WASM), WASM.length), true);
    assert.equal(canBegin('safetensors', head(MODEL), MODEL.length), true);
    // A real safetensors header, in a file cut short of it: not the file.
    assert.equal(canBegin('safetensors', head(MODEL), 100), false);
    const json = readFileSync(new URL('../fixtures/configs/gpt2.json', import.meta.url));
    assert.equal(canBegin('json', head(json), json.length), true);
    assert.equal(canBegin('json', head(Buffer.from('\ufeff  {"a": 1}')), 12), true, 'a byte-order mark and spaces before it');
    assert.equal(canBegin('text', head(Buffer.from('#version: 0.2\nĠ t\n')), 20), true, 'merges.txt');
    for (const kind of ['wasm', 'safetensors', 'json', 'text']) assert.equal(canBegin(kind, head(PAGE), PAGE.length), false, kind);
    assert.equal(canBegin('text', head(Buffer.from('  <HTML><body>')), 14), false);
    assert.deepEqual(['model.safetensors', 'model-00001-of-00002.safetensors', 'tokenizer.json', 'merges.txt', 'chat_template.jinja'].map(kindOfName),
      ['safetensors', 'safetensors', 'json', 'text', 'text']);
  });
});
