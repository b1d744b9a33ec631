// Loading what the package needs: bytes from a URL or a path (Node reads
// files, a browser fetches), and the WebAssembly module compiled after a check
// that the engine has the features it is built with.
import { attnError } from './errors.js';
import { checkServedFile } from './served-file.js';

// What relative URLs resolve against: the page. A worker is told its page's address (worker.js),
// since its own location is that of the worker's script.
let pageUrl = null;
export const setPageUrl = (url) => {
  pageUrl = url;
};
/** The address a relative URL is read from: the page's in a browser and its workers, none in Node. */
export const baseUrl = () => pageUrl ?? globalThis.location?.href;

/** A string, or a URL object (of this realm or another: anything with a string href). */
export const isUrlLike = (value) => typeof value === 'string' || (typeof value?.href === 'string' && value.href !== '');

/**
 * A folder's address as a URL ending in '/', so that file names resolve inside it: `value` is a URL, or a
 * string resolved against the page (a browser, its workers) or, in Node, a path or file: URL.
 */
export function folderUrl(value) {
  const text = typeof value === 'string' ? value : value.href;
  const withSlash = text.endsWith('/') ? text : `${text}/`;
  const base = baseUrl();
  if (base) return new URL(withSlash, base);
  try {
    return new URL(withSlash);
  } catch {
    const { pathToFileURL } = globalThis.process.getBuiltinModule('node:url');
    return pathToFileURL(withSlash);
  }
}

/**
 * The bytes at a URL or path: read from disk in Node (file: URLs and plain
 * paths), fetched in a browser. Emscripten 3.1.6's own loader cannot fetch a
 * file: URL in Node (docs/toolchain.md), which is why the package reads files itself.
 * `what` names the file in errors. `missing` is said after any failure to load it: what to do when the package's
 * own file is not where it was looked for. A fetched answer that cannot be a file of `kind` (served-file.js:
 * 'wasm', 'safetensors') is refused as a server's fallback page, saying `change` (by default `missing`).
 */
export async function loadBytes(location, fn, { what, kind, missing = '', change = missing }) {
  // process.getBuiltinModule (Node >= 20.16) reaches node:fs without an import
  // statement, so bundlers for the browser have nothing to resolve or warn about.
  const fs = globalThis.process?.getBuiltinModule?.('node:fs/promises');
  let url;
  try {
    url = new URL(typeof location === 'string' ? location : location.href, fs ? undefined : baseUrl());
  } catch {
    url = null; // a plain path: only Node can read it
  }
  let response;
  let bytes;
  try {
    if (fs && (!url || url.protocol === 'file:')) return new Uint8Array(await fs.readFile(url ?? location));
    if (!url) throw new Error('not a URL');
    response = await fetch(url);
    if (!response.ok) throw new Error(`HTTP ${response.status}`);
    bytes = new Uint8Array(await response.arrayBuffer());
  } catch (e) {
    throw attnError('ERR_ATTN_LOAD_FAILED', `${fn}: could not load ${what} from ${url ?? location}: ${e.message}${missing ? `; ${missing}` : ''}`);
  }
  checkServedFile({ url: url.href, status: response.status, contentType: response.headers.get('content-type') }, bytes.subarray(0, 16),
    bytes.length, kind, fn, what, change);
  return bytes;
}

// The WebAssembly features the module is compiled with (CMakeLists.txt:
// -msimd128, -fwasm-exceptions), each as the smallest module that uses it:
// one function returning i8x16.splat(0), and one holding try … catch_all.
// An engine without them would fail deep inside the module's start-up;
// checking first turns that into an Error that says what is missing.
const WASM_FEATURES = {
  'WebAssembly SIMD': Uint8Array.of(0, 97, 115, 109, 1, 0, 0, 0, 1, 5, 1, 96, 0, 1, 123, 3, 2, 1, 0,
    10, 8, 1, 6, 0, 65, 0, 253, 15, 11),
  'WebAssembly exception handling': Uint8Array.of(0, 97, 115, 109, 1, 0, 0, 0, 1, 4, 1, 96, 0, 0, 3, 2, 1, 0,
    10, 8, 1, 6, 0, 6, 64, 25, 11, 11),
};
const SUPPORTED = 'Chrome and Edge 95+, Firefox 100+, Safari 16.4+ and Node 20.19+ have them';

export function checkEngine(fn) {
  if (typeof WebAssembly !== 'object') {
    throw attnError('ERR_ATTN_UNSUPPORTED', `${fn}: this JavaScript engine has no WebAssembly (is it disabled, or running without a JIT?); ${SUPPORTED}`);
  }
  const missing = Object.keys(WASM_FEATURES).filter((name) => !WebAssembly.validate(WASM_FEATURES[name]));
  if (missing.length > 0) throw attnError('ERR_ATTN_UNSUPPORTED', `${fn}: this JavaScript engine lacks ${missing.join(' and ')}; ${SUPPORTED}`);
}

export async function compile(bytes, fn) {
  try {
    return await WebAssembly.compile(bytes);
  } catch (e) {
    const csp = /unsafe-eval|Content.Security.Policy/i.test(e.message)
      ? " The page's Content-Security-Policy must allow script-src 'wasm-unsafe-eval'."
      : '';
    throw attnError(csp ? 'ERR_ATTN_UNSUPPORTED' : 'ERR_ATTN_INVALID_FILE',
      `${fn}: could not compile the WebAssembly module: ${e.message.replace(/\.$/, '')}.${csp}`);
  }
}
