// A deadline on the site's requests to IndexedDB (chapters 8 and 11 through model-store.js, chapter 9 through
// your-model/store.js). A browser whose IndexedDB never answers (it happens: a profile being torn down, some
// private modes, a blocked upgrade in another tab) must not leave a chapter undrawn, never ready and with no
// error. After STORAGE_DEADLINE_MS the request fails with an Error saying what was not done, which the chapter
// shows or passes over as it does any other failure of storage. After one request has timed out, every later
// request of the page fails at once: they would otherwise each wait out a deadline of their own, in turn.

/** How long a page waits for IndexedDB to answer one request (a read, or a small write such as the model chosen). */
export const STORAGE_DEADLINE_MS = 10_000;

let unanswered = null; // the Error of the first request that timed out, once one has

/**
 * `request` (a Promise of an IndexedDB request), or an Error after `deadlineMs` naming what was not done (`what`).
 * A write that may rightly take long (a large model's files) passes Infinity: it waits, but still fails at once
 * when an earlier request of the page has timed out.
 */
export function answered(request, what, { deadlineMs = STORAGE_DEADLINE_MS } = {}) {
  if (unanswered) return Promise.reject(unanswered);
  if (deadlineMs === Infinity) return request;
  let timer;
  const deadline = new Promise((_, reject) => {
    timer = setTimeout(() => {
      unanswered = new Error(`This browser's storage (IndexedDB) did not ${what} in ${deadlineMs / 1000} s.`);
      reject(unanswered);
    }, deadlineMs);
  });
  return Promise.race([request, deadline]).finally(() => clearTimeout(timer));
}
