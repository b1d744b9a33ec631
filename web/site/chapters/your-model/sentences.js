// What chapter 9 says to a reader about a model and about what went wrong: sentences, never an error's code, a
// function's name or a stack. The library's errors carry a code (docs/errors.md) that says which kind of failure it
// is; the sentence is chosen by it, and where the library's own words help (which key of config.json is refused),
// they follow without the name of the function that threw.

/** A library message without the "loadPretrained: " or "GPT.forward: " it starts with. */
export const withoutCaller = (message) => String(message ?? '').replace(/^[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)?: /, '');

/** The model in one line: its shape, positions, windows, vocabulary and size. */
export function describeModel(m) {
  // Today's families say what they change: key/value heads shared by groups of query heads, rotary positions,
  // sliding windows.
  const heads = m.nKvHead < m.nHead ? `${m.nHead} heads (reading ${m.nKvHead} key/value head${m.nKvHead === 1 ? '' : 's'})` : `${m.nHead} heads`;
  const positions = m.positions === 'rope' ? `${m.blockSize.toLocaleString('en')} rotary positions` : `${m.blockSize.toLocaleString('en')} positions`;
  const window = m.slidingWindow > 0 ? `, windows of ${m.slidingWindow.toLocaleString('en')} tokens` : '';
  const kind = { bpe: 'byte-pair encoding', word: 'words and marks', char: 'characters' }[m.tokenizer] ?? m.tokenizer;
  return `${m.nLayer} layers of ${heads}, width ${m.nEmbd}, ${positions}${window}, ` +
    `${m.vocabSize.toLocaleString('en')} tokens (${kind}), ${(m.parameters / 1e6).toFixed(1)} M parameters`;
}

const isAbort = (error) => error?.name === 'AbortError';

/** Why a load failed, in one sentence; `id` names a Hub model, `token` whether an access token was given. */
export function loadFailure(error, { id = null, token = false } = {}) {
  if (isAbort(error)) return 'Loading was cancelled.';
  const what = id ? `“${id}”` : 'this model';
  const detail = withoutCaller(error?.message);
  switch (error?.code) {
    case 'ERR_ATTN_HUB_AUTH':
      return token
        ? `The Hugging Face Hub refused this access token for ${what}: the token may be mistyped, or its account has not accepted the model's terms on its page.`
        : `${what} is gated or private: accept its terms on its page on the Hugging Face Hub, then paste an access token above and load it again.`;
    case 'ERR_ATTN_NOT_FOUND':
      return `The Hugging Face Hub has no model ${what} that this browser may read: check the spelling (namespace/name); a private model needs an access token.`;
    case 'ERR_ATTN_OFFLINE':
      return unreachable(what);
    case 'ERR_ATTN_LOAD_FAILED':
      // A fetch that never reached the Hub (no network, a blocked host) and a file not cached: the library says so.
      return /not in this browser's cache/.test(detail) ? unreachable(what) : `The download of ${what} did not complete (${detail}). Try again.`;
    case 'ERR_ATTN_OUT_OF_MEMORY':
      return `This browser ran out of memory for ${what}: close other tabs, or choose a smaller model.`;
    case 'ERR_ATTN_WORKER':
      return 'The model\'s worker stopped (the browser may have run out of memory): reload the page to start again.';
    case 'ERR_ATTN_INVALID_ARGUMENT':
      return id ? `“${id}” is not a model's id on the Hugging Face Hub: an id is a name, or namespace/name, of letters, digits, “-”, “_” and “.”.`
        : `These files cannot be read as a model: ${detail}`;
    default:
      return `${id ? `${what} cannot be read here` : 'These files cannot be read as a model'}: ${detail}`;
  }
}

/** The one sentence for a Hub that cannot be reached: offline, or blocked. */
export const unreachable = (what) => `The Hugging Face Hub cannot be reached (this browser may be offline), and ${what} is not kept in this browser; ` +
  'the models kept here still load.';

/** Why a computation on the reader's text failed, in one sentence. */
export function computeFailure(error) {
  if (error?.code === 'ERR_ATTN_OUT_OF_MEMORY') return 'This browser ran out of memory for this text: shorten it, or choose a smaller model.';
  if (error?.code === 'ERR_ATTN_WORKER') return 'The model\'s worker stopped (the browser may have run out of memory): reload the page to start again.';
  const detail = withoutCaller(error?.message).replace(/^the chat template refused this conversation: /, '');
  return /chat template/.test(error?.message ?? '') ? `This model's chat template refused these turns: ${detail}` : `This text could not be computed: ${detail}`;
}
