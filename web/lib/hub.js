// Models by their Hugging Face Hub id: what an id is, where its files are, and what the Hub's answers mean. Each
// rule is huggingface_hub's (src/huggingface_hub/): validate_repo_id (utils/_validators.py), hf_hub_url and
// get_hf_file_metadata (file_download.py), hf_raise_for_status (utils/_http.py), the environment variables of
// constants.py and the token of utils/_auth.py. Where the files are kept is the caches' business:
// hub-cache-node.js (Hugging Face's own cache folder, shared with transformers) and hub-cache-browser.js (the
// Cache API). Nothing here imports a Node module: Node's are reached through process.getBuiltinModule.
import { fail, refuse } from './arguments.js';
import { attnError } from './errors.js';
import { baseUrl } from './loading.js';

export const DEFAULT_HUB_URL = 'https://huggingface.co';
export const DEFAULT_REVISION = 'main';
/** Redirects followed for one file before the chain is refused (requests' and undici's limits are 30 and 20). */
export const MAX_REDIRECTS = 10;
/** The options of a Hub id, beside loadPretrained's own. */
export const HUB_OPTIONS = ['revision', 'hubUrl', 'cacheDir', 'accessToken'];

/** Node's module `name` (node:fs/promises, …), or undefined in a browser. */
export const node = (name) => globalThis.process?.getBuiltinModule?.(name);
const environment = () => (node('node:process') ? globalThis.process.env : {});

// validate_repo_id: "name" or "namespace/name"; Python's \w on text is a letter, a digit or "_" of any script.
const WORD = '[\\p{L}\\p{N}_]';
const REPO_ID = new RegExp(`^(?:${WORD}(?:[\\p{L}\\p{N}_.-]*${WORD})?/)?${WORD}(?:[\\p{L}\\p{N}_.-]{0,94}${WORD})?$`, 'u');
const ID_RULES = 'a Hugging Face Hub id, "name" or "namespace/name" such as "HuggingFaceTB/SmolLM2-135M" (letters, digits, ' +
  '"-", "_" and "."; starting and ending with a letter or digit; no "--" or ".."; a name of at most 96 characters)';

/** Why `id` is not a Hub id (huggingface_hub's validate_repo_id, its rules in its order), or null when it is one. */
function idProblem(id) {
  if (id.endsWith('/')) return 'a "/" at its end';  // (an id copied with the end of its page's address)
  if (id.split('/').length > 2) return 'more than one "/"';
  if (!REPO_ID.test(id)) {
    const other = /[^\p{L}\p{N}_./-]/u.exec(id)?.[0];
    if (other) return `the character ${JSON.stringify(other)}`;
    const name = id.split('/').pop();
    return name.length > 96 ? `a name of ${name.length} characters` : 'a part that is empty or starts or ends with "-" or "."';
  }
  if (id.includes('--') || id.includes('..')) return '"--" or ".."';
  if (id.endsWith('.git')) return 'the ending ".git"';
  return null;
}

/** `id` checked to be a Hub id (ERR_ATTN_INVALID_ARGUMENT when it is not one, naming the rule it breaks). */
export function checkId(id, fn) {
  if (typeof id !== 'string') fail(fn, ID_RULES, id);
  const problem = idProblem(id);
  if (problem) refuse(fn, `${ID_RULES}; this has ${problem}`, id);
  return id;
}

/** A string a browser reads as a folder's address: http(s), or relative to the page as a path (./, ../, /). */
export const isFolderAddress = (text) => /^(?:https?:\/\/|\.{0,2}\/)/i.test(text);

/**
 * The Hub id `source` names, or null when it names a model folder instead (its address, a path, a folder that
 * exists in Node). As transformers' from_pretrained decides: a folder that exists is a folder; any other string is
 * an id, checked as huggingface_hub checks one, and refused (ERR_ATTN_INVALID_ARGUMENT) when it is not one.
 */
export async function hubIdOf(source, fn) {
  if (typeof source !== 'string' || isFolderAddress(source)) return null;
  const fs = node('node:fs/promises');
  let where = '';
  if (fs) {
    // file: URLs and Windows paths are paths; a relative path is a folder when one of that name exists.
    if (/^file:|^[a-z]:[\\/]|\\/i.test(source)) return null;
    const info = await fs.stat(source).catch(() => null);
    if (info?.isDirectory()) return null;
    where = ` (no folder "${source.length > 40 ? `${source.slice(0, 40)}…` : source}" exists here)`;
  }
  const problem = idProblem(source);
  if (problem) {
    const what = fs ? 'a model folder path or' : 'a folder address (http(s)://, ./, ../ or /) or';
    refuse(fn, `${what} ${ID_RULES}${where}; this has ${problem}`, source);
  }
  return source;
}

/** huggingface_hub's quote(): every byte but letters, digits and "_.-~" percent-encoded ("/" too). */
const quote = (text) => encodeURIComponent(text).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

/** Where a file of a repository is: {hubUrl}/{id}/resolve/{revision}/{file}, the revision quoted whole (hf_hub_url). */
export const fileUrl = (s, id, file, revision = s.revision) => `${s.hubUrl}/${id}/resolve/${quote(revision)}/${quote(file)}`;

/** A git commit's full hash: a revision that names one needs no request to find its files (REGEX_COMMIT_HASH). */
export const isCommitHash = (revision) => /^[0-9a-f]{40}$/.test(revision);

const truthy = (value) => ['1', 'ON', 'YES', 'TRUE'].includes(String(value ?? '').toUpperCase());

/** Hugging Face's home folder: HF_HOME, else $XDG_CACHE_HOME/huggingface, else ~/.cache/huggingface (constants.py). */
export function hfHome() {
  const env = environment();
  return expandPath(env.HF_HOME ?? `${env.XDG_CACHE_HOME ?? '~/.cache'}/huggingface`);
}

/** A path as Python's os.path.expanduser(os.path.expandvars(…)) reads it: $VAR and ${VAR}, then a leading ~. */
export function expandPath(path) {
  const env = environment();
  const expanded = path.replace(/\$(\w+)|\$\{(\w+)\}/g, (all, a, b) => env[a ?? b] ?? all);
  return expanded === '~' || expanded.startsWith('~/') ? `${node('node:os').homedir()}${expanded.slice(1)}` : expanded;
}

/**
 * The options of a Hub id, checked, with Hugging Face's defaults: `{ revision, hubUrl, hubOrigin, cacheDir, token,
 * offline }`. In Node the environment gives the defaults huggingface_hub takes from it: HF_ENDPOINT, HF_TOKEN (then
 * the token file, HF_TOKEN_PATH or $HF_HOME/token), HF_HUB_OFFLINE, and the cache folder (hub-cache-node.js).
 */
export async function hubSettings(opts, fn) {
  const { revision = DEFAULT_REVISION, hubUrl, cacheDir, accessToken } = opts;
  const env = environment();
  if (typeof revision !== 'string') fail(fn, 'revision as a string (a branch, a tag or a commit hash)', revision);
  // A revision names refs/{revision} in the cache: no step out of it, no empty segment, no control character.
  if (revision === '' || /[\0-\x1f\\]/.test(revision) || revision.split('/').some((part) => part === '' || part === '.' || part === '..')) {
    refuse(fn, 'revision as a branch, a tag or a commit hash (no empty, "." or ".." part, no "\\" or control character)', revision);
  }
  const url = hubUrl ?? env.HF_ENDPOINT ?? DEFAULT_HUB_URL;
  if (typeof url !== 'string' && typeof url?.href !== 'string') fail(fn, 'hubUrl as a string or a URL', url);
  let parsed = null;
  try {
    parsed = new URL(String(url.href ?? url), baseUrl());
  } catch {
    // refused below
  }
  // (fetch refuses an address with a user name or password in it: the token is the Hub's credential)
  if (!parsed || !/^https?:$/.test(parsed.protocol) || parsed.search || parsed.hash || parsed.username || parsed.password) {
    refuse(fn, `hubUrl as an http(s) address without a query or credentials${hubUrl === undefined ? ' (from HF_ENDPOINT)' : ''}`, String(url.href ?? url));
  }
  const fs = node('node:fs/promises');
  if (cacheDir !== undefined) {
    if (!fs) refuse(fn, 'no cacheDir in a browser (models are kept in its Cache API)', cacheDir);
    if (typeof cacheDir !== 'string' || cacheDir === '') fail(fn, 'cacheDir as a folder path', cacheDir);
  }
  let token = accessToken;
  if (token !== undefined && (typeof token !== 'string' || token === '' || /[\0-\x20\x7f]/.test(token))) {
    fail(fn, 'accessToken as a Hugging Face token (a string without spaces or control characters)', typeof token === 'string' ? '(a token refused)' : token);
  }
  if (token === undefined && fs) {
    token = (env.HF_TOKEN ?? env.HUGGING_FACE_HUB_TOKEN)?.trim() ||
      (await fs.readFile(expandPath(env.HF_TOKEN_PATH ?? `${hfHome()}/token`), 'utf8').catch(() => '')).trim() || undefined;
  }
  const base = parsed.href.replace(/\/+$/, '');
  return { revision, hubUrl: base, hubOrigin: parsed.origin, cacheDir, token, offline: truthy(env.HF_HUB_OFFLINE ?? env.TRANSFORMERS_OFFLINE) };
}

/** A failure that the cache may still answer for (huggingface_hub's head_call_error): no network, a proxy's page, 5xx. */
export class Unreachable extends Error {}

/**
 * `url` fetched. In Node redirects are followed here (redirect: 'manual'), at most MAX_REDIRECTS, relative
 * Locations resolved, and the token goes to the Hub's own origin only: its file hosts get signed URLs and no
 * token (huggingface_hub drops "authorization" for another host, _get_metadata_or_catch_error). `stopAtHost`: stop at
 * a redirect to another origin and answer it (a HEAD reads X-Linked-Size there, get_hf_file_metadata).
 * A browser follows redirects itself and, by the Fetch standard's HTTP-redirect fetch, drops Authorization when a
 * redirect crosses origins (tests/browser/hub.test.js checks it in Chromium); its redirect: 'manual' would hide the
 * Location, so the browser's own following is used there.
 * Returns { response, url } (the URL answered). A network failure is an Unreachable; an abort, the signal's reason.
 */
export async function hubFetch(url, s, { method = 'GET', signal, fn, what, stopAtHost = false }) {
  const inNode = Boolean(node('node:fs/promises'));
  const seen = new Set();
  let current = new URL(url);
  for (let hop = 0; ; hop++) {
    const headers = {};
    if (s.token && current.origin === s.hubOrigin) headers.Authorization = `Bearer ${s.token}`;
    // The real size of a file, not of its compressed form (get_hf_file_metadata); a browser does not let it be set.
    if (inNode) headers['Accept-Encoding'] = 'identity';
    let response;
    // A request that fails on the network is sent once more before the Hub is taken for unreachable: a kept-alive
    // connection the server closed just as it was reused resets it (huggingface_hub's http_backoff retries too).
    for (let attempt = 0; !response; attempt++) {
      try {
        response = await fetch(current, inNode ? { method, headers, signal, redirect: 'manual' } : { method, headers, signal, cache: 'no-store' });
      } catch (e) {
        if (signal?.aborted) throw signal.reason;
        if (attempt > 0) throw new Unreachable(`could not reach ${current.origin} for ${what} (${e.cause?.code ?? e.cause?.message ?? e.message})`);
      }
    }
    const location = response.headers.get('location');
    if (!inNode || response.status < 300 || response.status > 399 || !location) return { response, url: current };
    const next = new URL(location, current);
    if (stopAtHost && next.origin !== current.origin) return { response, url: current };
    await response.body?.cancel();
    if (!/^https?:$/.test(next.protocol)) {
      throw attnError('ERR_ATTN_LOAD_FAILED', `${fn}: ${what}: ${current.href} redirects to ${next.href}, which is not an http(s) address`);
    }
    seen.add(current.href);
    if (seen.has(next.href) || hop + 1 >= MAX_REDIRECTS) {
      throw attnError('ERR_ATTN_LOAD_FAILED', `${fn}: ${what}: ${seen.has(next.href) ? 'a redirect loop' : `more than ${MAX_REDIRECTS} redirects`} ` +
        `(${[...seen, next.href].slice(-3).join(' → ')})`);
    }
    current = next;
  }
}

/** How a header's number reads: a whole number of bytes, or null (huggingface_hub's _int_or_none). */
const bytesOf = (value) => (value !== null && /^\d+$/.test(value.trim()) ? Number(value) : null);
/** Whether an ETag can name a file of the cache: letters, digits, "-" and "_" (a hash), no path and no dot. */
const isCacheName = (etag) => /^[A-Za-z0-9_-]{1,128}$/.test(etag);

/** A header no Hub sends (a commit that is not a hash, an ETag with a path in it): refused before any file is written. */
const notTheHubs = (s, what, header, value, fn) => attnError('ERR_ATTN_LOAD_FAILED', `${fn}: ${s.hubUrl} answered ${what} with ` +
  `${header} ${JSON.stringify(value.slice(0, 80))}, which is no ${header === 'ETag' ? 'hash' : 'commit hash (40 hexadecimal digits)'}: ` +
  'not an answer of the Hugging Face Hub, and nothing was written to the cache');

/** An ETag as a name in the cache: W/ and the quotes stripped (_normalize_etag). */
export const normalizeEtag = (etag) => (etag === null ? null : etag.replace(/^W\//, '').replace(/^"|"$/g, ''));

/**
 * A file's metadata in Node, as get_hf_file_metadata reads it from a HEAD that stops at the redirect to the file host
 * (a browser follows that redirect and sees the file host's answer instead: hub-cache-browser.js reads the size
 * there): `{ commit, etag, size }`, or `{ absent: true,
 * commit }` when the repository exists and the file does not (X-Error-Code: EntryNotFound, which the Hub sends with
 * the commit, so that the cache can remember it). Refusals throw their own codes (hubError); a network failure,
 * an answer that is not the Hub's (no X-Repo-Commit: a captive portal's page) or a server error is an Unreachable,
 * which the cache may answer instead.
 */
export async function fileMetadata(s, id, file, revision, { signal, fn }) {
  const what = `${id}'s ${file}`;
  const { response } = await hubFetch(fileUrl(s, id, file, revision), s, { method: 'HEAD', signal, fn, what, stopAtHost: true });
  const header = (name) => response.headers.get(name);
  const commit = header('x-repo-commit');
  if (commit !== null && !isCommitHash(commit)) throw notTheHubs(s, what, 'X-Repo-Commit', commit, fn);
  if (response.status === 404 && (header('x-error-code') === 'EntryNotFound' || (!header('x-error-code') && commit))) return { absent: true, commit };
  if (response.status >= 400) throw hubError(response, s, id, file, revision, fn);
  const redirected = response.status >= 300;
  if (!commit) {
    const type = header('content-type') ?? 'no type';
    throw new Unreachable(`${s.hubUrl} answered ${what} with ${/html/i.test(type) ? 'an HTML page (a captive portal or a proxy\'s sign-in page?)' : type}` +
      ', not with the Hub\'s headers (X-Repo-Commit)');
  }
  const etag = normalizeEtag(header('x-linked-etag') ?? header('etag'));
  const size = bytesOf(header('x-linked-size')) ?? (redirected ? null : bytesOf(header('content-length')));
  if (!etag || size === null) throw new Unreachable(`${s.hubUrl} answered ${what} without ${etag ? 'its size (X-Linked-Size or Content-Length)' : 'an ETag'}`);
  // Both name folders and files of the cache (snapshots/{commit}, blobs/{etag}): a value with a path in it would
  // write outside the cache. The Hub sends a commit's full hash and a file's git or sha256 hash.
  if (!isCacheName(etag)) throw notTheHubs(s, what, 'ETag', etag, fn);
  return { commit, etag, size };
}

/**
 * The Error for the Hub's refusal (hf_raise_for_status): ERR_ATTN_HUB_AUTH for a gated or private model or a token
 * refused, ERR_ATTN_NOT_FOUND for a repository or revision that does not exist. The Hub answers 401 to a request
 * without a token for a repository that does not exist as for a private one (utils/_http.py says so), so that
 * answer names both. Another status is an Unreachable (429, 5xx) or ERR_ATTN_LOAD_FAILED.
 */
export function hubError(response, s, id, file, revision, fn) {
  const code = response.headers.get('x-error-code');
  const said = response.headers.get('x-error-message');
  const status = `HTTP ${response.status}${said ? `: "${said}"` : ''}`;
  const askToken = 'accept its licence on the Hub (if it is gated) and pass accessToken or set HF_TOKEN';
  if (code === 'RevisionNotFound') return attnError('ERR_ATTN_NOT_FOUND', `${fn}: ${id} has no revision "${revision}" on ${s.hubUrl} (${status})`);
  if (code === 'GatedRepo' || response.status === 403 || (response.status === 401 && s.token && code !== 'RepoNotFound')) {
    const why = s.token ? 'refused the token given for' : 'asks for a token for';
    return attnError('ERR_ATTN_HUB_AUTH', `${fn}: ${s.hubUrl} ${why} ${id}, a gated or private model (${status}): ${askToken}`);
  }
  if (code === 'RepoNotFound' || response.status === 401 || response.status === 404) {
    const hidden = response.status === 401 && !s.token ? ", or it is private: the Hub answers a request without a token the same for both; if it exists, " + askToken : '';
    return attnError('ERR_ATTN_NOT_FOUND', `${fn}: ${s.hubUrl} has no model ${id}${hidden} (${status}, for ${file})`);
  }
  if (response.status === 429 || response.status >= 500) return new Unreachable(`${s.hubUrl} answered ${id}'s ${file} with ${status}`);
  return attnError('ERR_ATTN_LOAD_FAILED', `${fn}: could not fetch ${id}'s ${file} from ${s.hubUrl}: ${status}`);
}

/**
 * A GET's body streamed into `write(chunk)`, counting its bytes (`counted(total so far)`), and checked to hold
 * exactly `size` bytes: a body that stops short (a dropped connection) or runs long is ERR_ATTN_LOAD_FAILED.
 */
export async function streamBody(response, size, write, counted, { fn, what, signal }) {
  // None of a model's files is a web page: one in its place is a captive portal's or a proxy's.
  const type = response.headers.get('content-type') ?? '';
  if (/text\/html/i.test(type)) {
    await response.body?.cancel();
    throw attnError('ERR_ATTN_LOAD_FAILED', `${fn}: ${what} came as an HTML page (${type}), not the file: a captive portal or a proxy's sign-in page?`);
  }
  let done = 0;
  const reader = response.body.getReader();
  // Each read races the signal: a read asked for once the body has all arrived and the signal has aborted never
  // settled, and the download's file stayed open.
  let forget = () => {};
  const aborted = signal && new Promise((resolve, reject) => {
    const stop = () => reject(signal.reason);
    if (signal.aborted) stop();
    signal.addEventListener('abort', stop, { once: true });
    forget = () => signal.removeEventListener('abort', stop);
  });
  aborted?.catch(() => {});
  try {
    for (;;) {
      const { value, done: end } = await (aborted ? Promise.race([reader.read(), aborted]) : reader.read());
      if (end) break;
      done += value.byteLength;
      if (done > size) throw new Error(`more than the ${size} bytes the Hub gave as its size`);
      await write(value);
      counted(done);
    }
  } catch (e) {
    reader.cancel().catch(() => {});
    if (signal?.aborted) throw signal.reason;
    throw attnError('ERR_ATTN_LOAD_FAILED', `${fn}: the download of ${what} broke off after ${done} of ${size} bytes (${e.cause?.code ?? e.message})`);
  } finally {
    forget();
  }
  if (done !== size) throw attnError('ERR_ATTN_LOAD_FAILED', `${fn}: the download of ${what} ended at ${done} of its ${size} bytes`);
}
