// What an AbortSignal means in this package: the call settles at once. An operation that cannot itself be
// interrupted (a read already handed to the file system, a worker's reply) is left to finish unobserved, and what
// it brings back is freed by its owner.

/** `promise`, or the signal's reason as soon as it aborts (at once when it already has). No signal: `promise`. */
export function abortable(promise, signal) {
  if (!signal) return promise;
  if (signal.aborted) {
    Promise.resolve(promise).catch(() => {}); // its own failure is no longer anyone's to report
    return Promise.reject(signal.reason);
  }
  return new Promise((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    Promise.resolve(promise).then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

/** Whether `value` is an AbortSignal (of this realm or another). */
export const isSignal = (value) => typeof value?.aborted === 'boolean' && typeof value?.addEventListener === 'function';
