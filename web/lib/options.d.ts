// createAttention's options (where the WebAssembly module comes from, whether it runs in a worker, on how many
// threads) and what it reports of the threads it got. Exported with the rest from index.d.ts.
import type { AsyncAttention } from './remote.js';
import type { Attention } from './index.js';

/**
 * A URL, as a string or a URL object (anything with an `href`); in Node also a file path.
 * Relative strings resolve against the page in a browser and the working directory in Node.
 */
export type UrlLike = string | { readonly href: string };

/** Where the WebAssembly module comes from: at most one of these; by default, from beside the package's files. */
export interface ModuleSource {
  /**
   * The single-threaded .wasm file's URL or (in Node) path, for bundlers that do not copy it themselves:
   * `import wasmUrl from 'attention-step-by-step/wasm'` with esbuild's `--loader:.wasm=file`. One thread.
   */
  wasmUrl?: UrlLike;
  /** The single-threaded .wasm file's bytes. One thread. */
  wasmBinary?: ArrayBuffer | Uint8Array;
  /**
   * The folder (URL, or path in Node) an app serves the package's `web/lib/wasm/` files from, as they are
   * named there: the single-threaded module and, for threads, the threaded module's three files. For
   * bundlers that copy none of them (esbuild), a CDN, or a site that serves them under its own paths, like
   * onnxruntime-web's `env.wasm.wasmPaths`. A relative URL is resolved against the page.
   */
  wasmPaths?: UrlLike;
}

export interface CreateAttentionOptions extends ModuleSource {
  /**
   * true: run the module in a Web Worker (a worker_thread in Node) and return {@link AsyncAttention},
   * whose every call returns a Promise, so that a page's main thread never waits for a computation.
   */
  worker?: boolean;
  /**
   * With `worker: true`, the worker script's URL, for bundlers that do not bundle it themselves
   * (Vite and webpack do): bundle `attention-step-by-step/worker` as an entry of its own.
   */
  workerUrl?: UrlLike;
  /**
   * With `worker: true`, how long the worker's script may take to load and run, in milliseconds, before
   * `createAttention` rejects with `ERR_ATTN_WORKER` naming the file: 15000 by default. A worker whose script is
   * empty (a bundler tree-shook `attention-step-by-step/worker` away) or never runs fires no event; this bound
   * turns that silence into an error. Loading the module afterwards is not bounded by it.
   */
  workerTimeoutMs?: number;
  /**
   * The threads the module computes on: `'auto'` (the default: the machine's cores, at most 8) or a count
   * from 1 to 16. Results are bit-identical on any count; only speed changes. More than one thread loads the
   * package's threaded module, which needs shared memory: always there in Node, and in a browser only in a
   * cross-origin-isolated page (headers `Cross-Origin-Opener-Policy: same-origin` and
   * `Cross-Origin-Embedder-Policy: require-corp`), in a worker: a page's main thread may not wait for
   * other threads, so there it runs behind `worker: true`. Where it cannot, the API runs on one thread
   * and {@link Attention.threads} says why; a threaded module that fails to start does the same, with a
   * console warning. `wasmUrl` and `wasmBinary` name the single-threaded module, so they mean one thread;
   * `wasmPaths` names both.
   */
  threads?: 'auto' | number;
}

/** What `createAttention({ threads })` got: `count` threads (this one and count − 1 workers), and why. */
export interface Threads {
  readonly count: number;
  readonly requested: 'auto' | number;
  readonly reason: string;
}
