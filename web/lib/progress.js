// loadPretrained's progress: bytes of a model's files taken in, of all of them (config.json, the tokenizer's files,
// the weights, …). A byte is counted once, when it first arrives: as it is downloaded (hub-cache-*.js), or else
// as the loader reads it (a folder, a drop, a file already in a cache). Each file counts up to the highest byte
// seen, so the loader reading a downloaded file adds nothing. Nothing is reported before the total is known
// (start), which is before the first byte of the weights; `loaded` never falls and `total` never changes.

/** Reports no more often than this many bytes apart, besides a file's end (a download arrives in small chunks). */
const STEP = 1 << 20;

export class ByteProgress {
  #onProgress;
  #seen = new Map(); // file name -> bytes counted
  #sizes = new Map(); // file name -> its size, once started
  #reported = -Infinity;
  loaded = 0;
  total = null;

  constructor(onProgress) {
    this.#onProgress = onProgress;
  }

  /** Bytes [0, upTo) of `name` have arrived. */
  count(name, upTo) {
    const before = this.#seen.get(name) ?? 0;
    if (upTo <= before) return;
    this.#seen.set(name, upTo);
    this.loaded += upTo - before;
    if (this.total !== null && (this.loaded - this.#reported >= STEP || upTo === this.#sizes.get(name))) this.#report();
  }

  /** The files the load takes in, `[name, size]`: their total is reported, with what has arrived already. */
  start(files) {
    for (const [name, size] of files) this.#sizes.set(name, size);
    this.total = files.reduce((sum, [, size]) => sum + size, 0);
    this.#report();
  }

  /** Every file taken in whole (a part the loader skips, such as a mask buffer, counts too): loaded is total. */
  finish() {
    for (const [name, size] of this.#sizes) this.count(name, size);
    if (this.#reported !== this.loaded) this.#report();
  }

  #report() {
    this.#reported = this.loaded;
    this.#onProgress?.({ loaded: this.loaded, total: this.total });
  }
}
