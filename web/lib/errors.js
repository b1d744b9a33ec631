// The errors this package throws. Each has a message that names the function, what it expected and what it got,
// and a stable `code` an app can branch on (the message may be reworded between versions; the code is not).
// docs/errors.md is the reader's list; cpp/bindings/convert.hpp gives the C++ library's errors theirs.
//
//   try { attn.softmax(x) } catch (e) { if (e.code === 'ERR_ATTN_INVALID_ARGUMENT') … }
//
// An aborted call rejects with its AbortSignal's reason, as fetch does: by default a DOMException named
// 'AbortError' (its numeric code is DOMException.ABORT_ERR). All of this crosses the worker boundary of
// createAttention({ worker: true }) unchanged: the worker sends name, code and message (toMessage), and the
// calling side rebuilds the same kind of error (fromMessage).

/** Every code, with the kind of Error that carries it. */
export const ERROR_CODES = Object.freeze({
  /** An argument of the wrong JavaScript type: a string for a number, an array for an options object. */
  ERR_ATTN_INVALID_TYPE: TypeError,
  /** An argument of the right type refused for its value: a shape that does not fit, NaN, an id out of range. */
  ERR_ATTN_INVALID_ARGUMENT: Error,
  /** A file's contents refused: not what it claims to be, truncated, damaged, or beyond a limit. */
  ERR_ATTN_INVALID_FILE: Error,
  /** A file or URL could not be read (not found, HTTP error, permission). */
  ERR_ATTN_LOAD_FAILED: Error,
  /**
   * A URL answered with what cannot be the file asked for (an HTML page where a model, a .wasm or a tokenizer
   * file was expected): a server's fallback page, because the file is not where the app looks for it.
   */
  ERR_ATTN_WRONG_FILE: Error,
  /** The Hugging Face Hub wants a token for a model, or refused the one given: a gated or private model. */
  ERR_ATTN_HUB_AUTH: Error,
  /** The Hugging Face Hub has no model of that id, or no such revision of it. */
  ERR_ATTN_NOT_FOUND: Error,
  /** A file of a Hub model is not in the cache, and the Hub cannot be asked: offline mode, or no network. */
  ERR_ATTN_OFFLINE: Error,
  /** The WebAssembly module ran out of memory (its memory cannot grow past 2 GiB). */
  ERR_ATTN_OUT_OF_MEMORY: Error,
  /** An object used after dispose(), or disposed while one of its calls runs. */
  ERR_ATTN_DISPOSED: Error,
  /** The worker of createAttention({ worker: true }) could not start, or stopped. */
  ERR_ATTN_WORKER: Error,
  /** This engine or page cannot do what was asked: no WebAssembly SIMD, a policy refusing WebAssembly. */
  ERR_ATTN_UNSUPPORTED: Error,
  /** A failure inside the library that no input should cause: a bug to report. */
  ERR_ATTN_INTERNAL: Error,
});

/** An Error of the kind `code` has, carrying it. */
export function attnError(code, message) {
  const Kind = ERROR_CODES[code];
  if (!Kind) throw new Error(`attnError: unknown code ${code}`);
  const error = new Kind(message);
  error.code = code;
  return error;
}

/** What crosses from the worker for an error: its name, code and message (structured clone keeps none of a class). */
export function toMessage(error) {
  if (error === null || typeof error !== 'object') return { name: 'Error', message: String(error) };
  return { name: String(error.name ?? 'Error'), code: error.code, message: String(error.message ?? error) };
}

/** The error `toMessage` described, rebuilt on this side: same kind, name, code and message. */
export function fromMessage({ name, code, message }) {
  if (typeof code === 'string' && code in ERROR_CODES) return attnError(code, message);
  if (typeof DOMException === 'function' && (name === 'AbortError' || name === 'TimeoutError')) return new DOMException(message, name);
  const Kind = { TypeError, RangeError, SyntaxError }[name] ?? Error;
  const error = new Kind(message);
  if (Kind === Error && name !== 'Error') error.name = name;
  if (code !== undefined) error.code = code;
  return error;
}
