// A Hub model's files in a browser (a page or a worker), kept in the Cache API under their Hub addresses, with a
// small manifest per model and revision of which files exist (and their sizes) and which the Hub said do not: a
// second load of the same id and revision sends no request at all. Downloads stream into the cache, their bytes
// counted on the way, and the weights are read back as a Blob in slices (pretrained.js), so a model is never held
// whole in JS memory. Where there is no Cache API (an opaque origin, an http: page that is not localhost), files are
// downloaded each time. The cache is not checked against the Hub: a revision that moved is still the cached one
// until removeCachedModel; a commit hash as the revision names bytes that never change.
import { attnError } from './errors.js';
import { fileUrl, hubError, hubFetch, streamBody, Unreachable } from './hub.js';

/** The Cache API's cache that holds every model of this package. */
export const CACHE_NAME = 'attention-step-by-step-hub';
const MANIFEST = '?attention-step-by-step-manifest';
const manifestKey = (s, id, revision = s.revision) => `${fileUrl(s, id, '', revision)}${MANIFEST}`;

/** The package's cache, or null where the Cache API is missing or refused (transformers.js's getCache does the same). */
async function openCache() {
  try {
    return globalThis.caches ? await globalThis.caches.open(CACHE_NAME) : null;
  } catch {
    return null;
  }
}

const json = async (response) => (response ? response.json().catch(() => null) : null);

/** The model `id` as a folder of files (pretrained.js's filesOf), `ctx` as for hub-cache-node.js's. */
export async function openBrowserFolder(id, s, ctx) {
  const { fn, signal, progress } = ctx;
  const cache = await openCache();
  const key = (name) => fileUrl(s, id, name);
  const manifest = (await json(await cache?.match(manifestKey(s, id)))) ?? { id, revision: s.revision, commit: null, files: {} };
  const absent = [];
  // One manifest write at a time, each after the file it records is in the cache.
  let saving = Promise.resolve();
  const record = (name, size, commit) => {
    manifest.files[name] = size;
    manifest.commit ??= commit ?? null;
    if (!cache) return;
    const text = JSON.stringify(manifest);
    saving = saving.then(() => cache.put(manifestKey(s, id), new Response(text, { headers: { 'content-type': 'application/json' } }))).catch(() => {});
  };
  const failed = (e, what) => {
    if (signal?.aborted) throw signal.reason;
    if (!(e instanceof Unreachable)) throw e;
    const offline = globalThis.navigator?.onLine === false;
    throw attnError(offline ? 'ERR_ATTN_OFFLINE' : 'ERR_ATTN_LOAD_FAILED', `${fn}: ${e.message}${offline ? '; the browser is offline' : ''}, and ${what} is not in this browser's cache` +
      (offline ? '' : ' (a blocked cross-origin request or a redirect loop fails the same way in a browser)'));
  };

  /** A GET of `name`, its errors named; null where the file does not exist. */
  async function get(name, method = 'GET') {
    const { response } = await hubFetch(key(name), s, { method, signal, fn, what: `${id}'s ${name}` }).catch((e) => failed(e, name));
    if (response.status === 404 && response.headers.get('x-error-code') !== 'RepoNotFound' && response.headers.get('x-error-code') !== 'RevisionNotFound') {
      await response.body?.cancel();
      absent.push(name);
      record(name, null, response.headers.get('x-repo-commit'));
      return null;
    }
    if (!response.ok) {
      await response.body?.cancel();
      const error = hubError(response, s, id, name, s.revision, fn);
      throw error instanceof Unreachable ? attnError('ERR_ATTN_LOAD_FAILED', `${fn}: ${error.message}`) : error;
    }
    return response;
  }

  /** The body into the cache as it arrives (or into a Blob without one), then the cached bytes as a Blob. */
  async function store(name, response, size) {
    const what = `${id}'s ${name}`;
    const counted = (n) => progress.count(name, n);
    if (!cache) {
      const chunks = [];
      await streamBody(response, size, (chunk) => chunks.push(chunk), counted, { fn, what, signal });
      return new Blob(chunks);
    }
    const { readable, writable } = new TransformStream();
    const writer = writable.getWriter();
    const putting = cache.put(key(name), new Response(readable, { headers: { 'content-type': 'application/octet-stream', 'content-length': String(size) } }));
    try {
      await streamBody(response, size, (chunk) => writer.write(chunk), counted, { fn, what, signal });
      await writer.close();
      await putting;
    } catch (error) {
      writer.abort(error).catch(() => {});
      putting.catch(() => {});
      throw error;
    }
    return (await cache.match(key(name))).blob();
  }

  async function find(name) {
    if (name in manifest.files) {
      if (manifest.files[name] === null) {
        absent.push(`${name} (known absent)`);
        return null;
      }
      const hit = await cache?.match(key(name));
      const blob = hit && (await hit.blob());
      if (blob?.size === manifest.files[name]) return ctx.blobFile(blob, name);
    }
    if (!name.endsWith('.safetensors')) {
      // A small file: its size is the bytes that come (a Content-Length may be of a compressed body).
      const response = await get(name);
      if (!response) return null;
      const bytes = new Uint8Array(await response.arrayBuffer().catch((e) => failed(new Unreachable(e.message), name)));
      const blob = await store(name, new Response(bytes, { headers: { 'content-type': response.headers.get('content-type') ?? '' } }), bytes.length);
      record(name, bytes.length, response.headers.get('x-repo-commit'));
      return ctx.blobFile(blob, name);
    }
    // Weights: their size first (a HEAD: the total is known before their first byte), the bytes on the first read.
    const head = await get(name, 'HEAD');
    if (!head) return null;
    const size = Number(head.headers.get('x-linked-size') ?? head.headers.get('content-length') ?? NaN);
    if (/text\/html/i.test(head.headers.get('content-type') ?? '') || !Number.isSafeInteger(size)) {
      throw attnError('ERR_ATTN_LOAD_FAILED', `${fn}: ${s.hubUrl} answered ${id}'s ${name} with ${Number.isSafeInteger(size) ? 'an HTML page (a captive portal?)' : 'no size'}, not the file`);
    }
    let blob = null;
    const ensure = async () => {
      if (blob) return blob;
      const response = await get(name);
      if (!response) throw attnError('ERR_ATTN_LOAD_FAILED', `${fn}: ${id}'s ${name} went missing on ${s.hubUrl} while it was loaded`);
      blob = await store(name, response, size);
      record(name, size, head.headers.get('x-repo-commit'));
      return blob;
    };
    let file = null;
    const lazy = ctx.file(size, async (begin, end) => {
      file ??= ensure().then((b) => ctx.blobFile(b, name));
      return (await file).read(begin, end);
    });
    lazy.keep = ensure;
    return lazy;
  }

  return {
    has: () => false,
    find,
    describe: () => `${id} at ${s.hubUrl} (revision ${s.revision}) has no ${absent.join(', ') || 'such file'}`,
    missing: (message) => attnError('ERR_ATTN_INVALID_FILE', message),
    info: () => ({ id, revision: s.revision, commit: manifest.commit, folder: null }),
    settled: () => saving,
  };
}

/** The models this browser keeps from `s.hubUrl`: one entry per id and revision. */
export async function listCached(s) {
  const cache = await openCache();
  const listed = [];
  for (const request of (await cache?.keys()) ?? []) {
    if (!request.url.startsWith(`${s.hubUrl}/`) || !request.url.endsWith(MANIFEST)) continue;
    const m = await json(await cache.match(request));
    if (!m || manifestKey(s, m.id, m.revision) !== request.url) continue;
    const files = Object.entries(m.files).filter(([, size]) => size !== null);
    listed.push({ id: m.id, revision: m.revision, commit: m.commit, files: files.map(([name]) => name).sort(),
      size: files.reduce((sum, [, size]) => sum + size, 0), folder: null });
  }
  return listed.sort((a, b) => (a.id === b.id ? (a.revision < b.revision ? -1 : 1) : a.id < b.id ? -1 : 1));
}

/** Removes a model's files (every revision, or `revision`'s) and manifests from this browser's cache. */
export async function removeCached(id, revision, s) {
  const cache = await openCache();
  let removed = false;
  for (const entry of await listCached(s)) {
    if (entry.id !== id || (revision !== undefined && entry.revision !== revision)) continue;
    const m = await json(await cache.match(manifestKey(s, id, entry.revision)));
    for (const name of Object.keys(m?.files ?? {})) await cache.delete(fileUrl(s, id, name, entry.revision));
    removed = (await cache.delete(manifestKey(s, id, entry.revision))) || removed;
  }
  return removed;
}
