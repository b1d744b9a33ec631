// Reading a model where the reading itself is hostile: a FIFO in place of a file, a server that drips its body or
// promises more bytes than it sends, a folder URL that lacks files, a Blob or typed array that lies about its size.
// Each ends in a named Error, or an AbortError when the caller aborts, and keeps nothing allocated.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, symlinkSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';

import { attn, useAttention } from './helpers.js';

useAttention();

/** A server answering each path with `handler(req, res)`; closed after `use(base)`. */
async function withServer(handler, use) {
  const server = createServer(handler);
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    return await use(`http://127.0.0.1:${server.address().port}/`);
  } finally {
    server.closeAllConnections();
    server.close();
  }
}

describe('a model folder read from disk', () => {
  test('a FIFO, a directory or a link loop as config.json is a named Error at once, not waited on (a FIFO kept the load pending past its abort)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'attn-fifo-'));
    execFileSync('mkfifo', [join(dir, 'config.json')]);
    await assert.rejects(attn.loadPretrained(dir, { signal: new AbortController().signal }),
      { message: `loadPretrained: could not read ${dir}/config.json: expected a regular file, got a FIFO` });
    const other = mkdtempSync(join(tmpdir(), 'attn-dir-'));
    mkdirSync(join(other, 'config.json'));
    await assert.rejects(attn.loadPretrained(other),
      { message: `loadPretrained: could not read ${other}/config.json: expected a regular file, got a directory` });
    // A symbolic link to itself: the system's ELOOP, under the function's name (it was a raw ELOOP).
    const loop = mkdtempSync(join(tmpdir(), 'attn-loop-'));
    symlinkSync('config.json', join(loop, 'config.json'));
    await assert.rejects(attn.loadPretrained(loop), { message: new RegExp(`^loadPretrained: could not read ${loop}/config\\.json: ELOOP`) });
  });
});

describe('a model folder on a server', () => {
  test('a body that drips: an abort rejects the load with an AbortError while the server is still sending', async () => {
    let sending = null;
    await withServer((req, res) => {
      res.writeHead(200, { 'content-length': '1000' });
      res.write('{');
      sending = res;
    }, async (base) => {
      const controller = new AbortController();
      const loading = attn.loadPretrained({ 'config.json': `${base}config.json` }, { signal: controller.signal });
      // Aborted once the body has begun, and settled while the server still holds it open.
      while (!sending) await new Promise((resolve) => setImmediate(resolve));
      controller.abort();
      await assert.rejects(loading, { name: 'AbortError' });
      assert.equal(sending.writableEnded, false, 'the body was not finished: the abort, not the end, settled the load');
    });
  });

  test('a Content-Length longer than the body is a named Error (it was a bare "TypeError: terminated")', async () => {
    await withServer((req, res) => {
      res.writeHead(200, { 'content-length': '1000' });
      res.end('{"model_type"');
      res.socket.destroy();
    }, async (base) => {
      await assert.rejects(attn.loadPretrained({ 'config.json': `${base}config.json` }),
        { message: /^loadPretrained: could not fetch config\.json from http:\/\/127\.0\.0\.1:\d+\/config\.json: the download broke off: / });
    });
  });

  test('a folder URL reads what exists and says which files were tried (it demanded tokenizer.json)', async () => {
    const files = { 'config.json': '{"model_type": "gpt2"}', 'vocab.json': '{}', 'merges.txt': '' };
    await withServer((req, res) => {
      const body = files[req.url.slice(1)];
      if (body === undefined) res.writeHead(404).end();
      else res.writeHead(200).end(body);
    }, async (base) => {
      // vocab.json + merges.txt were found (the load goes on to the weights, which are missing).
      await assert.rejects(attn.loadPretrained(base),
        { message: `loadPretrained: the model folder has no model.safetensors (the weights, or model.safetensors.index.json and its shards); at ${base}, tokenizer.json (HTTP 404), model.safetensors (HTTP 404), model.safetensors.index.json (HTTP 404) were not found` });
      delete files['merges.txt'];
      await assert.rejects(attn.loadPretrained(base),
        { message: `loadPretrained: the model folder has no tokenizer: expected tokenizer.json, or vocab.json and merges.txt; at ${base}, tokenizer.json (HTTP 404), merges.txt (HTTP 404) were not found` });
    });
  });
});

describe('sizes that lie', () => {
  test('a Blob whose size is NaN is a named Error (it reached Node\'s own assertion in Blob.slice)', async () => {
    class Liar extends Blob {
      get size() { return NaN; }
    }
    await assert.rejects(attn.loadPretrained({ 'config.json': new Liar(['{}']) }),
      { message: 'loadPretrained: expected config.json as a Blob whose size is a whole number of bytes, got number NaN' });
  });

  test('a Uint8Array whose length says 1e9 is read at its true 16 bytes (the module allocated 1 GB first)', () => {
    class Liar extends Uint8Array {
      get length() { return 1e9; }
    }
    const before = attn.memoryUsage().memoryBytes;
    assert.throws(() => attn.loadCheckpoint(new Liar(16)), { message: /^loadCheckpoint: / });
    assert.equal(attn.memoryUsage().memoryBytes, before, 'WASM memory did not grow');
  });
});
