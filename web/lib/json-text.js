// A file's JSON text read in JS, refused with the words every reader of the package's files uses.
import { attnError } from './errors.js';

/** JSON text as an object; a byte-order mark before it is accepted, as the C++ side accepts it. */
export function parseJson(text, name, fn) {
  try {
    return JSON.parse(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
  } catch (e) {
    throw attnError('ERR_ATTN_INVALID_FILE', `${fn}: ${name} is not valid JSON (${e.message})`);
  }
}
