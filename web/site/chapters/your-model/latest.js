// Chapter 9's views ask the worker again at each edit, and one pass of a real model over a long text takes seconds:
// only the latest request of a kind is sent, once the one before it has settled. While a request of a kind is being
// computed, newer ones wait; when it settles, the newest waiting is sent and those it replaced resolve to SKIPPED
// without ever reaching the worker. (The chapter's own worker protocol did the same in the worker; the package's
// worker API computes whatever it is sent, so the page decides what to send.)

/** What a request resolves to when a newer one of its kind replaced it before it was sent. */
export const SKIPPED = Symbol('skipped: a newer request of its kind replaced it');

/** run(kind, fn): fn() when its turn comes, unless a newer run of the same kind came first. */
export function latestOnly() {
  const kinds = new Map(); // kind -> { running, waiting: { fn, resolve, reject } | null }
  const next = (k) => {
    const job = k.waiting;
    k.waiting = null;
    k.running = Boolean(job);
    if (!job) return;
    Promise.resolve().then(job.fn).then(job.resolve, job.reject).finally(() => next(k));
  };
  return (kind, fn) => new Promise((resolve, reject) => {
    if (!kinds.has(kind)) kinds.set(kind, { running: false, waiting: null });
    const k = kinds.get(kind);
    k.waiting?.resolve(SKIPPED);
    k.waiting = { fn, resolve, reject };
    if (!k.running) next(k);
  });
}
