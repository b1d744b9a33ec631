// What a server answered where a file of the package (its .wasm, a model) or of a model folder (a tokenizer, its
// weights) was expected, checked before it is read as that file. A static host or a dev server that does not
// have a path answers many apps' missing files with the app's index.html and a 200 (a single-page app's
// fallback): read as a model, its first 8 bytes gave "the header length 8104636974849335612 exceeds the file's
// 188 bytes", which named neither the page nor the address. Each kind is told from a page by what its first bytes
// must be, and a text/html answer is a page whatever its bytes.
import { attnError } from './errors.js';

const ASCII = (text) => Array.from(text, (c) => c.charCodeAt(0));
const WASM_MAGIC = ASCII('\0asm'); // the WebAssembly binary format's magic number (its spec, 5.5.16 "Modules")

/** The index of the first byte that is not whitespace or a UTF-8 byte-order mark. */
function firstContent(bytes) {
  let i = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0;
  while (i < bytes.length && [0x20, 0x09, 0x0a, 0x0d].includes(bytes[i])) i++;
  return i;
}

/** Up to 16 bytes from the first that is not whitespace, as Latin-1 text. */
const opening = (head) => String.fromCharCode(...head.subarray(firstContent(head), firstContent(head) + 16));

/** How an HTML page begins (the HTML standard's "writing HTML documents": a DOCTYPE, or a first element). */
const HTML_START = /^<(!doctype\s+html|html|head|body|meta|script|title)\b/i;

/**
 * Whether `head`, a file's first bytes (at least 16, or all of a shorter file), can begin a file of `kind` of
 * `size` bytes: 'wasm' (the magic number), 'safetensors' (a little-endian u64 header length that fits the file,
 * then the header's '{', as the format's specification lays it out), 'json' (an object or array), or 'text' (any
 * text but a page).
 */
export function canBegin(kind, head, size) {
  switch (kind) {
    case 'wasm': return WASM_MAGIC.every((b, i) => head[i] === b);
    case 'safetensors': {
      if (size < 10 || head.length < 9) return false;
      const length = new DataView(head.buffer, head.byteOffset, 8).getBigUint64(0, true);
      return length + 8n <= BigInt(size) && head[8] === 0x7b;
    }
    case 'json': return [0x7b, 0x5b].includes(head[firstContent(head)]);
    case 'text': return !HTML_START.test(opening(head));
    default: throw new Error(`canBegin: unknown kind ${kind}`);
  }
}

/** A file of a model folder's kind, by its name: what canBegin checks it against. */
export const kindOfName = (name) => (/\.safetensors$/.test(name) ? 'safetensors' : /\.json$/.test(name) ? 'json' : 'text');

/**
 * Throws ERR_ATTN_WRONG_FILE when a response cannot be the file of `kind` expected at `url`: its content type
 * is text/html, or its first bytes `head` (of `size`) cannot begin such a file. `what` names the file for the
 * message ("the model"), `change` says what to change for the app to find it.
 */
export function checkServedFile({ url, status, contentType }, head, size, kind, fn, what, change) {
  const html = /^\s*text\/html\b/i.test(contentType ?? '');
  if (!html && canBegin(kind, head, size)) return;
  const preview = JSON.stringify(opening(head).replace(/[^\x20-\x7e]/g, '?'));
  const page = html || !canBegin('text', head, size);
  const body = page ? 'an HTML page' : `${size} bytes that cannot be ${what} (they begin ${preview})`;
  throw attnError('ERR_ATTN_WRONG_FILE', `${fn}: ${url} answered ${status} with ${contentType ? `content type ${contentType}` : 'no content type'}, ` +
    `${body}, not ${what}: a server's fallback page: the file is not where the app looks for it; ${change}`);
}
