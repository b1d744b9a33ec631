// The errors every function of the package throws (docs/errors.md); errors.js makes them. Exported with the
// rest from index.d.ts.

/**
 * The `code` of every Error this package throws (docs/errors.md): stable across versions, unlike the
 * messages, so an app can branch on it. Codes cross the worker boundary of `{ worker: true }` unchanged.
 * - `ERR_ATTN_INVALID_TYPE` (a `TypeError`): an argument of the wrong JavaScript type.
 * - `ERR_ATTN_INVALID_ARGUMENT`: an argument refused for its value (a shape, a range, NaN, an unknown option).
 * - `ERR_ATTN_INVALID_FILE`: a file's contents refused (not its format, truncated, damaged, beyond a limit).
 * - `ERR_ATTN_LOAD_FAILED`: a file or URL could not be read.
 * - `ERR_ATTN_WRONG_FILE`: a URL answered with what cannot be the file asked for (an HTML page where a model, `.wasm`
 *   or tokenizer file was expected): a server's fallback page, the file not being where the app looks for it.
 * - `ERR_ATTN_HUB_AUTH`: the Hugging Face Hub wants a token for a model (gated or private), or refused the one given.
 * - `ERR_ATTN_NOT_FOUND`: the Hugging Face Hub has no model of that id, or no such revision.
 * - `ERR_ATTN_OFFLINE`: a Hub model's file is not in the cache and the Hub cannot be asked (offline mode, no network).
 * - `ERR_ATTN_OUT_OF_MEMORY`: the WebAssembly heap is full.
 * - `ERR_ATTN_DISPOSED`: an object used after `dispose()`, or disposed during one of its calls.
 * - `ERR_ATTN_WORKER`: the worker could not start, or has stopped.
 * - `ERR_ATTN_UNSUPPORTED`: this engine or page cannot do it (no WebAssembly SIMD, a policy refusing WebAssembly).
 * - `ERR_ATTN_INTERNAL`: a bug in the library; please report it.
 *
 * An aborted call rejects with its `AbortSignal`'s reason instead, as `fetch` does: by default a
 * `DOMException` named `'AbortError'`.
 */
export type AttentionErrorCode =
  | 'ERR_ATTN_INVALID_TYPE'
  | 'ERR_ATTN_INVALID_ARGUMENT'
  | 'ERR_ATTN_INVALID_FILE'
  | 'ERR_ATTN_LOAD_FAILED'
  | 'ERR_ATTN_WRONG_FILE'
  | 'ERR_ATTN_HUB_AUTH'
  | 'ERR_ATTN_NOT_FOUND'
  | 'ERR_ATTN_OFFLINE'
  | 'ERR_ATTN_OUT_OF_MEMORY'
  | 'ERR_ATTN_DISPOSED'
  | 'ERR_ATTN_WORKER'
  | 'ERR_ATTN_UNSUPPORTED'
  | 'ERR_ATTN_INTERNAL';

/** An Error thrown by this package (a `TypeError` for `ERR_ATTN_INVALID_TYPE`). */
export interface AttentionError extends Error {
  readonly code: AttentionErrorCode;
}
