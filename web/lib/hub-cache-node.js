// A Hub model's files in Node, through Hugging Face's own cache folder, read and written as huggingface_hub does
// (file_download.py: hf_hub_download, _hf_hub_download_to_cache_dir, try_to_load_from_cache, _create_symlink), so
// that a model transformers downloaded loads here with no network, and one downloaded here is one transformers finds:
//
//   {cache}/models--{namespace}--{name}/
//     blobs/{etag}                      the bytes; the etag is the file's git hash, or its sha256 when in LFS
//     snapshots/{commit}/{file}         a relative symlink to ../../blobs/{etag}
//     refs/{revision}                   the commit the revision named when it was last asked
//     .no_exist/{commit}/{file}         an empty file: the Hub said this file does not exist at that commit
//
// Each file is asked for with a HEAD (its commit, etag and size), then taken from the cache when the cache holds
// those very bytes, else downloaded under a name of its own and renamed into place, so that two processes may
// download it at once. Without the Hub (HF_HUB_OFFLINE=1, no network, a refusal, a captive portal's page) the
// cache answers through refs/{revision}, as huggingface_hub falls back to it.
import { attnError } from './errors.js';
import { expandPath, fileMetadata, fileUrl, hfHome, hubError, hubFetch, isCommitHash, node, streamBody, Unreachable } from './hub.js';

/** The cache folder: cacheDir, else HF_HUB_CACHE (or its old name HUGGINGFACE_HUB_CACHE), else $HF_HOME/hub (constants.py). */
export function cacheFolder(s) {
  const { env } = globalThis.process;
  return node('node:path').resolve(expandPath(s.cacheDir ?? env.HF_HUB_CACHE ?? env.HUGGINGFACE_HUB_CACHE ?? `${hfHome()}/hub`));
}

/** A repository's folder in the cache (repo_folder_name): models--{namespace}--{name}. */
const repoFolder = (root, id) => node('node:path').join(root, `models--${id.split('/').join('--')}`);
const random = () => Math.random().toString(36).slice(2, 10);

/**
 * The model `id` as a folder of files (pretrained.js's filesOf): find(name) asks the Hub for the file's metadata
 * and answers a file whose bytes come from the cache, downloaded into it on first read. `ctx.file(size, read)`
 * makes a file, `ctx.openFile(dir, name)` opens one on disk (pretrained.js's own), `ctx.progress` counts bytes.
 */
export function openNodeFolder(id, s, ctx) {
  const fs = node('node:fs/promises');
  const path = node('node:path');
  const { fn, signal, progress } = ctx;
  const repo = repoFolder(cacheFolder(s), id);
  let commit = isCommitHash(s.revision) ? s.revision : null; // once known, every file comes from this one commit
  let noHub = s.offline ? 'offline mode is on (HF_HUB_OFFLINE)' : null; // why the Hub is not asked any more
  const absent = [];
  const unreached = [];

  // refs/{revision} is written when the revision is not itself the commit (_cache_commit_hash_for_specific_revision);
  // best effort, as huggingface_hub's, so that a read-only cache still serves.
  let refWritten = false;
  const learn = async (found) => {
    commit ??= found;
    if (refWritten || !found || found === s.revision) return;
    refWritten = true;
    const ref = path.join(repo, 'refs', s.revision);
    if ((await fs.readFile(ref, 'utf8').catch(() => null)) === found) return;
    await writeAtomically(ref, found).catch(() => {});
  };

  /** try_to_load_from_cache: a file, null where .no_exist says there is none, undefined when the cache cannot say. */
  async function fromCache(name) {
    // A ref that holds no commit hash (damaged, or a path) names nothing: the cache cannot say.
    const at = commit ?? (await fs.readFile(path.join(repo, 'refs', s.revision), 'utf8').then((t) => t.trim(), () => null));
    if (!at || !isCommitHash(at)) return undefined;
    if (await fs.stat(path.join(repo, '.no_exist', at, name)).then(() => true, () => false)) {
      commit ??= at;
      absent.push(`${name} (known absent)`);
      return null;
    }
    const pointer = path.join(repo, 'snapshots', at, name);
    const info = await fs.stat(pointer).catch(() => null);
    if (!info?.isFile()) return undefined;
    commit ??= at;
    return ctx.openFile(path.dirname(pointer), name);
  }

  async function find(name) {
    // A commit's files never change: one the cache holds, or knows to be absent, needs no request
    // (_hf_hub_download_to_cache_dir; try_to_load_from_cache's .no_exist).
    if (isCommitHash(s.revision)) {
      const cached = await fromCache(name);
      if (cached !== undefined) return cached;
    }
    if (!noHub) {
      try {
        const meta = await fileMetadata(s, id, name, commit ?? s.revision, { signal, fn });
        await learn(meta.commit);
        if (meta.absent) {
          absent.push(name);
          if (meta.commit) await touch(path.join(repo, '.no_exist', meta.commit, name)).catch(() => {});
          return null;
        }
        return hubFile(name, meta);
      } catch (error) {
        if (signal?.aborted) throw signal.reason;
        // A refusal (401, 404) is thrown unless the cache holds the file; no answer at all stops asking.
        if (!(error instanceof Unreachable)) {
          const cached = await fromCache(name);
          if (cached !== undefined) return cached;
          throw error;
        }
        noHub = error.message;
      }
    }
    const cached = await fromCache(name);
    if (cached !== undefined) return cached;
    unreached.push(name);
    return null;
  }

  /** A file the Hub described: read from the cache, which is brought up to date on the first read (ensure). */
  function hubFile(name, meta) {
    const pointer = path.join(repo, 'snapshots', meta.commit, name);
    const blob = path.join(repo, 'blobs', meta.etag);
    let ready = null;
    const ensure = () => (ready ??= (async () => {
      // The cached file is used when it is the Hub's: its link leads to blobs/{etag} and it has the size the Hub
      // gives (a pointer that is a copy, where symlinks cannot be made, is judged by its size).
      const [link, info] = await Promise.all([fs.readlink(pointer).catch(() => null), fs.stat(pointer).catch(() => null)]);
      if (info?.isFile() && info.size === meta.size && (link === null || path.basename(link) === meta.etag)) return;
      const kept = await fs.stat(blob).catch(() => null);
      if (!(kept?.isFile() && kept.size === meta.size)) await download(name, meta, blob);
      await linkPointer(blob, pointer);
    })().catch((e) => {
      // The cache's own failures (a folder where a file goes, a file where a folder goes, no space, no permission).
      if (signal?.aborted || typeof e?.code !== 'string' || e.code.startsWith('ERR_ATTN_')) throw e;
      throw attnError('ERR_ATTN_LOAD_FAILED', `${fn}: could not keep ${id}'s ${name} in the Hugging Face cache ${repo}: ${e.message}`);
    }));
    let opened = null;
    const file = ctx.file(meta.size, async (begin, end) => {
      opened ??= ensure().then(() => ctx.openFile(path.dirname(pointer), name));
      return (await opened).read(begin, end);
    });
    file.keep = ensure;
    return file;
  }

  /** The bytes into blobs/{etag}.{random}.incomplete, checked against the size, renamed into place (_download_to_tmp_and_move). */
  async function download(name, meta, blob) {
    const what = `${id}'s ${name}`;
    await fs.mkdir(path.dirname(blob), { recursive: true });
    const { response } = await hubFetch(fileUrl(s, id, name, meta.commit), s, { signal, fn, what }).catch((e) => {
      throw e instanceof Unreachable ? attnError('ERR_ATTN_LOAD_FAILED', `${fn}: could not download ${what}: ${e.message}`) : e;
    });
    if (!response.ok) {
      await response.body?.cancel();
      const error = hubError(response, s, id, name, meta.commit, fn);
      throw error instanceof Unreachable ? attnError('ERR_ATTN_LOAD_FAILED', `${fn}: could not download ${what}: ${error.message}`) : error;
    }
    const temporary = `${blob}.${random()}.incomplete`;
    const handle = await fs.open(temporary, 'wx');
    try {
      await streamBody(response, meta.size, (chunk) => handle.write(chunk), (n) => progress.count(name, n), { fn, what, signal });
      await handle.close();
      await fs.rename(temporary, blob);
    } finally {
      await handle.close().catch(() => {});
      await fs.rm(temporary, { force: true });
    }
  }

  return {
    has: () => false,
    find,
    describe: () => `${id} at ${s.hubUrl} (revision ${s.revision}${commit ? `, commit ${commit}` : ''}) ` +
      `has no ${[...absent, ...unreached.map((n) => `${n} (not in the cache ${repo})`)].join(', ') || 'such file'}`,
    /** What a missing file means: ERR_ATTN_OFFLINE when the Hub could not be asked and the cache lacks it. */
    missing: (message) => (unreached.length > 0
      ? attnError('ERR_ATTN_OFFLINE', `${message.replace(/;.*$/, '')}: ${noHub}, and the Hugging Face cache ${repo} does not hold ${unreached.join(', ')}`)
      : attnError('ERR_ATTN_INVALID_FILE', message)),
    info: () => ({ id, revision: s.revision, commit, folder: commit && path.join(repo, 'snapshots', commit) }),
  };
}

async function writeAtomically(file, text) {
  const fs = node('node:fs/promises');
  await fs.mkdir(node('node:path').dirname(file), { recursive: true });
  const temporary = `${file}.${random()}.tmp`;
  await fs.writeFile(temporary, text);
  await fs.rename(temporary, file);
}

async function touch(file) {
  const fs = node('node:fs/promises');
  await fs.mkdir(node('node:path').dirname(file), { recursive: true });
  await (await fs.open(file, 'a')).close();
}

/**
 * snapshots/{commit}/{file} as a relative symlink to its blob (_create_symlink), made under a name of its own and
 * renamed over the old one: a load reading the file meanwhile never finds it missing. A copy where symlinks fail.
 */
async function linkPointer(blob, pointer) {
  const fs = node('node:fs/promises');
  const path = node('node:path');
  await fs.mkdir(path.dirname(pointer), { recursive: true });
  const temporary = `${pointer}.${random()}.tmp`;
  try {
    await fs.symlink(path.relative(path.dirname(pointer), blob), temporary);
  } catch (e) {
    if (e.code !== 'EPERM' && e.code !== 'ENOTSUP') throw e;
    await fs.copyFile(blob, temporary);
  }
  await fs.rename(temporary, pointer);
}

/**
 * The files under `dir`, as paths relative to it, with their sizes: a link to a file is followed (a snapshot's files
 * are links to blobs), a link to a folder is not (one leading back up made the walk endless), as scan_cache_dir.
 */
async function filesUnder(dir, prefix = '') {
  const fs = node('node:fs/promises');
  const found = [];
  for (const entry of await fs.readdir(dir, { withFileTypes: true }).catch(() => [])) {
    const full = `${dir}/${entry.name}`;
    if (entry.isDirectory()) {
      found.push(...(await filesUnder(full, `${prefix}${entry.name}/`)));
      continue;
    }
    const info = await fs.stat(full).catch(() => null);
    if (info?.isFile()) found.push({ name: `${prefix}${entry.name}`, size: info.size, path: full });
  }
  return found;
}

/** refs/ read whole: revision name -> commit (a revision such as refs/pr/1 is a nested file); a ref holding no hash is left out. */
const refsOf = async (repo) => new Map((await Promise.all((await filesUnder(`${repo}/refs`))
  .map(async ({ name, path }) => [name, (await node('node:fs/promises').readFile(path, 'utf8')).trim()])))
  .filter(([, commit]) => isCommitHash(commit)));

/** Every model in the cache folder: one entry a revision, as scan_cache_dir lists them. */
export async function listCached(s) {
  const fs = node('node:fs/promises');
  const root = cacheFolder(s);
  const listed = [];
  for (const name of (await fs.readdir(root).catch(() => [])).filter((n) => n.startsWith('models--')).sort()) {
    const repo = `${root}/${name}`;
    const id = name.slice('models--'.length).split('--').join('/');
    const refs = await refsOf(repo);
    for (const commit of (await fs.readdir(`${repo}/snapshots`).catch(() => [])).sort()) {
      const files = await filesUnder(`${repo}/snapshots/${commit}`);
      const named = [...refs].filter(([, c]) => c === commit).map(([revision]) => revision);
      for (const revision of named.length > 0 ? named : [commit]) {
        listed.push({ id, revision, commit, files: files.map((f) => f.name).sort(), size: files.reduce((sum, f) => sum + f.size, 0),
          folder: `${repo}/snapshots/${commit}` });
      }
    }
  }
  return listed;
}

/**
 * Removes a model from the cache: all of it, or with `revision` that revision's snapshot, the refs that name it and
 * the blobs no other snapshot links to (as huggingface_hub's delete_revisions does). Whether anything was removed.
 */
export async function removeCached(id, revision, s) {
  const fs = node('node:fs/promises');
  const path = node('node:path');
  const repo = repoFolder(cacheFolder(s), id);
  if (!(await fs.stat(repo).catch(() => null))) return false;
  if (revision === undefined) {
    await fs.rm(repo, { recursive: true, force: true });
    return true;
  }
  const refs = await refsOf(repo);
  const commit = isCommitHash(revision) ? revision : refs.get(revision);
  if (!commit || !(await fs.stat(`${repo}/snapshots/${commit}`).catch(() => null))) return false;
  await fs.rm(`${repo}/snapshots/${commit}`, { recursive: true, force: true });
  await fs.rm(`${repo}/.no_exist/${commit}`, { recursive: true, force: true });
  for (const [name, c] of refs) if (c === commit) await fs.rm(`${repo}/refs/${name}`, { force: true });
  const kept = new Set();
  for (const other of await fs.readdir(`${repo}/snapshots`).catch(() => [])) {
    for (const { path: file } of await filesUnder(`${repo}/snapshots/${other}`)) kept.add(path.basename(await fs.realpath(file)));
  }
  if (kept.size === 0) {
    await fs.rm(repo, { recursive: true, force: true });
    return true;
  }
  for (const blob of await fs.readdir(`${repo}/blobs`).catch(() => [])) if (!kept.has(blob)) await fs.rm(`${repo}/blobs/${blob}`, { force: true });
  return true;
}
