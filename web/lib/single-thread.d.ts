// Types of 'attention-step-by-step/single-thread' (single-thread.js): the API of the main entry on the calling
// thread, on one thread. An app importing this entry ships only the single-threaded WebAssembly module.
import type { Attention, ModuleSource } from './index.js';

export type * from './index.js';
export { format, tensor, toArray } from './index.js';

/**
 * Loads the single-threaded WASM module on this thread (by default the .wasm beside the package's files, read
 * from disk in Node and fetched in a browser) and returns the API; its `threads.count` is 1.
 */
export function createAttention(options?: ModuleSource): Promise<Attention>;
