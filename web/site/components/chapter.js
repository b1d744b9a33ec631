// How a chapter page starts: the WASM module is fetched and compiled (off the
// main thread) while the page typesets its formulas, then the chapter draws
// its figures. Only chapters import this file, so only they load the module.
import { createAttention } from '../../lib/index.js';
import { page } from './page.js';

/** Runs a chapter: page()'s navigation and math, then setup(attn) with the module loaded once. */
export function chapter(setup) {
  const loading = createAttention();
  loading.catch(() => {}); // reported by page(), once awaited
  return page(async () => setup(await loading));
}
