// The next-token guess of chapter 9: the likeliest tokens of a model's logits, found in one pass over them rather than
// by sorting the whole vocabulary (262,144 tokens for Gemma 3) on the page's thread at every edit.

/** The `k` likeliest of `logits` with their softmax probabilities, likeliest first (no sort of the whole vocabulary). */
export function topTokens(logits, k = 10) {
  let max = -Infinity;
  for (const v of logits) if (v > max) max = v;
  let sum = 0;
  for (const v of logits) sum += Math.exp(v - max);
  const top = [];
  for (let id = 0; id < logits.length; id++) {
    if (top.length === k && logits[id] <= logits[top[k - 1]]) continue;
    // Inserted in order; on a tie the lower id stays first, as a stable sort of the whole vocabulary would keep it.
    let at = Math.min(top.length, k - 1);
    while (at > 0 && logits[top[at - 1]] < logits[id]) {
      top[at] = top[at - 1];
      at--;
    }
    top[at] = id;
  }
  return top.map((id) => ({ id, p: Math.exp(logits[id] - max) / sum }));
}
