// The JS API for models people already have: loadPretrained, which reads a Hugging Face model folder (config.json,
// model.safetensors, and tokenizer.json or vocab.json + merges.txt, with the files of its tokenizer's and generation's
// settings) into a GPT a tensor at a time (cpp/include/attn/pretrained.hpp) and its tokenizer (bpe-tokenizer.js),
// from wherever the folder is: a path, a drop, a server, or the Hugging Face Hub by id (hub.js), through a cache
// (cacheModel, cachedModels, removeCachedModel). pretrainedApi(M, model) gives them for one loaded module M, whose
// GPT and tokenizer classes model.js and bpe-tokenizer.js made.
import { abortable, isSignal } from './abort.js';
import { fail, options, refuse } from './arguments.js';
import { attnError } from './errors.js';
import { AdoptedHandle } from './handles.js';
import { checkId, HUB_OPTIONS, hubIdOf, hubSettings, node } from './hub.js';
import { listCached as listBrowserCache, openBrowserFolder, removeCached as removeFromBrowserCache } from './hub-cache-browser.js';
import { listCached as listNodeCache, openNodeFolder, removeCached as removeFromNodeCache } from './hub-cache-node.js';
import { parseJson } from './json-text.js';
import { baseUrl, isUrlLike } from './loading.js';
import { ByteProgress } from './progress.js';
import { checkServedFile, kindOfName } from './served-file.js';

// Bytes handed to WASM at once while loading: small next to a model (GPT-2
// small's largest tensor is 147 MiB in float32), so the file is never held whole.
const CHUNK_BYTES = 16 << 20;

// A file's text as it is written: ignoreBOM keeps a U+FEFF it begins with (TextDecoder drops it by default).
const fileDecoder = new TextDecoder('utf-8', { ignoreBOM: true });

/**
 * The files beside the model that its tokenizer's settings and its generation settings are read from (transformers'
 * tokenizer_config.json, generation_config.json and chat templates), by their key in loadPretrained's `files`: the
 * text of each, or null where the folder has none.
 */
const OPTIONAL_FILES = Object.freeze({ tokenizerConfig: 'tokenizer_config.json', generationConfig: 'generation_config.json',
  chatTemplateJinja: 'chat_template.jinja', chatTemplateJson: 'chat_template.json' });

export function pretrainedApi(M, { GPT, CharTokenizer, BPETokenizer }) {
  /**
   * Reads a Hugging Face model folder (GPT-2, Llama, Mistral, Qwen2, Qwen3, Gemma 3; weights of at most 1.25 GiB as
   * stored, the C++ library's kMaxWeightBytes): `{ model: GPT, tokenizer: BPETokenizer or CharTokenizer, config,
   * files }`.
   * `source`: a folder path (Node), a FileList or File[] (a drop), an object / Map from file name to bytes
   * (Uint8Array, ArrayBuffer), a Blob / File, or a URL, a folder's http(s) address, or a Hugging Face Hub id
   * ('org/name', with `revision`, `hubUrl`, `cacheDir`, `accessToken`: hub.js and the caches say how it is fetched).
   * model.safetensors (or the shards model.safetensors.index.json lists) is read in pieces of 16 MiB, converted
   * (float16 / bfloat16 to float32) straight into the model. `files` holds the texts of the files the model's
   * tokenizer and generation settings may need, or null where the folder has none (OPTIONAL_FILES).
   * `options.onProgress({ loaded, total })` counts the bytes of every file (progress.js); `options.signal` (an
   * AbortSignal) stops it.
   */
  async function loadPretrained(source, opts = {}) {
    const fn = 'loadPretrained';
    const { hub, signal, io, progress } = loadOptions(opts, fn);
    const folder = await io(filesOf(source, fn, signal, hub, progress));
    try {
      const files = await modelFiles(folder, fn, io);
      progress.start(files.all.map(([name, file]) => [name, file.size]));
      const tokenizerFiles = files.tokenizerJson ? { tokenizerJson: await io(files.tokenizerJson.text()) }
        : { vocab: await io(files.vocab.text()), merges: await io(files.merges.text()) };
      const texts = {};
      for (const [key, file] of Object.entries(files.optional)) texts[key] = file && (await io(file.text()));
      // tokenizer_config.json names the special tokens, and for Llama's and Gemma's tokenizer classes decides the BOS
      // and EOS (bpe_tokenizer.hpp).
      if (texts.tokenizerConfig !== null) tokenizerFiles.tokenizerConfig = texts.tokenizerConfig;
      // config.json checked, and the tokenizer (which kind it is, its size) against it, before the model is allocated.
      const made = M.pretrainedTokenizer(files.config, tokenizerFiles);
      const tokenizer = new (made.kind === 'bpe' ? BPETokenizer : CharTokenizer)(new AdoptedHandle(made.handle));
      if (made.kind === 'bpe') tokenizer._setChatTemplates(texts);  // a character tokenizer has no chat template
      let loader = null;
      let model = null;
      try {
        const headers = [];
        for (const [name, file] of files.weights) {
          const headerLength = M.pretrainedHeaderLength(await io(file.read(0, Math.min(8, file.size))), file.size, name);
          headers.push({ name, header: await io(file.read(8, 8 + headerLength)), size: file.size });
        }
        loader = M.PretrainedLoader.create(files.config, headers, files.indexText);
        for (const [i, t] of loader.tensors().entries()) {
          const weights = files.weights[t.file][1];
          for (let at = t.begin; at < t.end; at += CHUNK_BYTES) loader.read(i, at - t.begin, await io(weights.read(at, Math.min(t.end, at + CHUNK_BYTES))));
        }
        model = new GPT(new AdoptedHandle(loader.finish()));
        // generate()'s defaults as transformers takes them: generation_config.json, else config.json's eos_token_id.
        model._setGenerationConfig(texts.generationConfig, files.config);
        progress.finish();
        await io(folder.settled());
        return { model, tokenizer, config: files.configObject, files: texts };
      } catch (error) {
        model?.dispose();
        tokenizer.dispose();
        throw error;
      } finally {
        loader?.delete();
      }
    } finally {
      folder.close();
    }
  }

  /**
   * The files a load reads, found and not yet read but for config.json (parsed first: every JSON is parsed before
   * anything is allocated; a config.json that only JS could not read, a byte-order mark, once threw after the model
   * was built, and the model was never freed) and the index of the shards. The optional files are looked for last,
   * so that a folder lacking what it needs is told so first.
   */
  async function modelFiles(folder, fn, io) {
    const missing = (message) => folder.missing(message);
    const need = async (name, why) => (await io(folder.find(name))) ??
      Promise.reject(missing(`${fn}: ${folder.label} has no ${name} (${why}); ${folder.describe()}`));
    const configFile = await need('config.json', "the model's shape");
    const config = await io(configFile.text());
    const configObject = parseJson(config, 'config.json', fn);
    const all = [['config.json', configFile]];
    const tokenizerJson = await io(folder.find('tokenizer.json'));
    let vocab = null;
    let merges = null;
    if (tokenizerJson) {
      all.push(['tokenizer.json', tokenizerJson]);
    } else {
      [vocab, merges] = [await io(folder.find('vocab.json')), await io(folder.find('merges.txt'))];
      if (!vocab || !merges) {
        throw missing(`${fn}: ${folder.label} has no tokenizer: expected tokenizer.json, or vocab.json and merges.txt; ${folder.describe()}`);
      }
      all.push(['vocab.json', vocab], ['merges.txt', merges]);
    }
    // The weights: model.safetensors, or the shards model.safetensors.index.json lists.
    let weights;
    let indexText = '';
    const single = await io(folder.find('model.safetensors'));
    if (single) {
      weights = [['model.safetensors', single]];
    } else {
      const index = await io(folder.find('model.safetensors.index.json'));
      if (!index) {
        if (folder.has('pytorch_model.bin')) {
          throw attnError('ERR_ATTN_INVALID_FILE', `${fn}: the model folder has pytorch_model.bin but no model.safetensors; this library reads ` +
            'safetensors (convert with transformers: model.save_pretrained(folder, safe_serialization=True))');
        }
        await need('model.safetensors', 'the weights, or model.safetensors.index.json and its shards');
      }
      all.push(['model.safetensors.index.json', index]);
      weights = [];
      indexText = await io(index.text());
      for (const name of M.pretrainedShardFiles(indexText)) {
        const file = await io(folder.find(name));
        if (!file) throw missing(`${fn}: model.safetensors.index.json lists ${name}, which ${folder.label} does not hold; ${folder.describe()}`);
        weights.push([name, file]);
      }
    }
    all.push(...weights);
    const optional = {};
    for (const [key, name] of Object.entries(OPTIONAL_FILES)) {
      optional[key] = await io(folder.find(name));
      if (optional[key]) all.push([name, optional[key]]);
    }
    return { config, configObject, tokenizerJson, vocab, merges, weights, indexText, optional, all };
  }

  /** Hub options checked, and the Hub's answer for one model (Node: the Hugging Face cache; a browser: its Cache API). */
  async function openHub(id, hub, fn, signal, progress) {
    return filesOf(checkId(id, fn), fn, signal, hub, progress, true);
  }

  /**
   * Every file loadPretrained(id) reads, in the cache (Node: Hugging Face's own, a browser: its Cache API) and not
   * loaded: what attn-train resolves an id with, and an app's "download for later". The cached model's entry.
   */
  async function cacheModel(id, opts = {}) {
    const fn = 'cacheModel';
    const { hub, signal, io, progress } = loadOptions(opts, fn);
    const folder = await io(openHub(id, hub, fn, signal, progress));
    try {
      const files = await modelFiles(folder, fn, io);
      progress.start(files.all.map(([name, file]) => [name, file.size]));
      for (const [name, file] of files.all) {
        await io(file.keep());
        progress.count(name, file.size);
      }
      progress.finish();
      await io(folder.settled());
      const names = files.all.map(([name]) => name);
      return { ...folder.info(), files: names.sort(), size: files.all.reduce((sum, [, file]) => sum + file.size, 0) };
    } finally {
      folder.close();
    }
  }

  /** The models the cache holds (Node: Hugging Face's cache folder; a browser: those it keeps from hubUrl). */
  async function cachedModels(opts = {}) {
    const s = await hubSettings(options(opts, ['hubUrl', 'cacheDir'], 'cachedModels'), 'cachedModels');
    return node('node:fs/promises') ? listNodeCache(s) : listBrowserCache(s);
  }

  /** Removes a model from the cache: every revision, or `revision`'s alone. Whether anything was removed. */
  async function removeCachedModel(id, opts = {}) {
    const fn = 'removeCachedModel';
    const given = options(opts, ['revision', 'hubUrl', 'cacheDir'], fn);
    const s = await hubSettings(given, fn);
    checkId(id, fn);
    return (node('node:fs/promises') ? removeFromNodeCache : removeFromBrowserCache)(id, given.revision, s);
  }

  return { loadPretrained, cacheModel, cachedModels, removeCachedModel };
}

/**
 * loadPretrained's and cacheModel's options, checked: the Hub's (hub.js), and what the load waits and reports with.
 * Every wait is raced with the signal (`io`), so that an abort settles the call at once, whatever it waits for (a
 * slow body, a read); the signal also goes to fetch, which stops the download.
 */
function loadOptions(opts, fn) {
  const { onProgress, signal, ...hub } = options(opts, ['onProgress', 'signal', ...HUB_OPTIONS], fn);
  if (onProgress !== undefined && typeof onProgress !== 'function') fail(fn, 'onProgress as a function', onProgress);
  if (signal !== undefined && !isSignal(signal)) fail(fn, 'signal as an AbortSignal', signal);
  return { hub, signal, io: (promise) => abortable(promise, signal), progress: new ByteProgress(onProgress) };
}


// ---- a model folder, however it is given ---------------------------------------------

/** One file: its size, and its bytes [begin, end) or text when asked. */
class FolderFile {
  constructor(size, read) {
    this.size = size;
    this.read = read; // (begin, end) => Promise<Uint8Array>
  }
  async text() {
    return fileDecoder.decode(await this.read(0, this.size));
  }
  /** Brings the file into its cache (a Hub file not downloaded yet); any other is where it is read from already. */
  keep() {
    return Promise.resolve();
  }
}

/** `file` with every read counted as bytes of `name` that have arrived (progress.js). */
function counted(file, name, progress) {
  const read = async (begin, end) => {
    const bytes = await file.read(begin, end);
    progress.count(name, end);
    return bytes;
  };
  return Object.assign(new FolderFile(file.size, read), { keep: () => file.keep() });
}

/** A Blob or File as a FolderFile: read a slice at a time (Blob.slice), never whole. */
function blobFile(blob, name, fn) {
  const { size } = blob;
  if (!Number.isSafeInteger(size) || size < 0) fail(fn, `${name} as a Blob whose size is a whole number of bytes`, size);
  return new FolderFile(size, async (begin, end) => {
    const bytes = new Uint8Array(await blob.slice(begin, end).arrayBuffer());
    if (bytes.length !== end - begin) throw attnError('ERR_ATTN_LOAD_FAILED', `${fn}: ${name} ended at ${begin + bytes.length} bytes, before the ${size} its size says`);
    return bytes;
  });
}
const bytesFile = (bytes) => new FolderFile(bytes.byteLength, async (begin, end) => bytes.subarray(begin, end));

/** What a file system entry is, for an error that says why it is not read. */
const kindOf = (info) =>
  info.isDirectory() ? 'a directory' : info.isFIFO() ? 'a FIFO' : info.isSocket() ? 'a socket' :
  info.isCharacterDevice() ? 'a character device' : info.isBlockDevice() ? 'a block device' : 'not a regular file';

/**
 * Files by name, opened lazily: find(name) is a FolderFile, or null where the folder has no such file (for a
 * folder on a server: where it answers 404); describe() says what the folder holds, or what was tried;
 * missing(message) is the Error for a file it lacks; label is what messages call it (the model folder, or an id); close() releases what was opened (Node file handles);
 * settled() waits for what a cache still writes. Every read counts in `progress`. A Hub id (a string that names no
 * folder, hub.js's hubIdOf; `isId` when the caller checked it) is a folder kept by a cache, in Node Hugging Face's
 * (hub-cache-node.js), in a browser the Cache API (hub-cache-browser.js); `hub` holds its options.
 */
async function filesOf(source, fn, signal, hub, progress, isId = false) {
  const entries = new Map(); // name -> () => Promise<FolderFile | null>
  // Node file handles to close with the folder; one opened after close() (a download that finished late) is closed
  // as it opens.
  let closed = false;
  const handles = [];
  const closers = { add: (close) => (closed ? close().catch(() => {}) : handles.push(close)) };
  let lazy = null; // a folder on a server: name -> an opener of any file name
  let describe = () => `it holds ${[...entries.keys()].join(', ') || 'no files'}`;
  let cached = null; // a Hub id's folder
  let label = 'the model folder'; // what messages call it
  const add = (name, open) => entries.set(String(name).split(/[\\/]/).pop(), open);
  const fs = node('node:fs/promises');
  const id = isId ? source : await hubIdOf(source, fn);
  const isFileList = typeof FileList !== 'undefined' && source instanceof FileList;
  const given = HUB_OPTIONS.filter((key) => hub[key] !== undefined);
  if (id === null && given.length > 0) refuse(fn, `${given.join(', ')} only with a Hugging Face Hub id, not with a model folder`, source);
  if (id !== null) {
    const s = await hubSettings(hub, fn);
    const ctx = { fn, signal, progress, file: (size, read) => new FolderFile(size, read), blobFile: (blob, name) => blobFile(blob, name, fn),
      openFile: (dir, name) => openFile(fs, dir, name, fn, closers) };
    cached = fs ? openNodeFolder(id, s, ctx) : await openBrowserFolder(id, s, ctx);
    lazy = (name) => () => cached.find(name);
    describe = cached.describe;
    label = `${id} (revision ${s.revision})`;
  } else if (isFileList || (Array.isArray(source) && source.every((f) => typeof Blob !== 'undefined' && f instanceof Blob && 'name' in f))) {
    for (const file of source) add(file.name, async () => blobFile(file, file.name, fn));
  } else if (source instanceof Map || (source !== null && typeof source === 'object' && !isUrlLike(source) && !Array.isArray(source))) {
    const pairs = source instanceof Map ? [...source.entries()] : Object.entries(source);
    for (const [name, value] of pairs) add(name, () => fileOf(value, name, fn, signal));
  } else if (fs && ((typeof source === 'string' && !/^https?:\/\//i.test(source)) || source?.protocol === 'file:')) {
    // In Node a string is a path, unless it is an http(s) address or a Hub id.
    const dir = typeof source === 'string' && !source.startsWith('file:') ? source : new URL(source).pathname;
    let names;
    try {
      names = await fs.readdir(dir);
    } catch (e) {
      throw attnError('ERR_ATTN_LOAD_FAILED', `${fn}: could not read the model folder ${dir}: ${e.message}`);
    }
    for (const name of names) add(name, () => openFile(fs, dir, name, fn, closers));
  } else if (isUrlLike(source)) {
    // A folder on a server: each file fetched when it is needed; one that answers 404 is not there.
    const base = new URL(String(source.href ?? source).replace(/\/?$/, '/'), baseUrl());
    const tried = [];
    // Files are fetched by name when asked for: the fixed ones below, and the shards an index names.
    lazy = (name) => async () => {
      const file = await fileOf(new URL(name, base), name, fn, signal, true);
      if (!file) tried.push(`${name} (HTTP 404)`);
      return file;
    };
    for (const name of ['config.json', 'model.safetensors', 'model.safetensors.index.json', 'tokenizer.json', 'vocab.json', 'merges.txt']) {
      add(name, lazy(name));
    }
    describe = () => `at ${base.href}, ${tried.join(', ')} ${tried.length === 1 ? 'was' : 'were'} not found`;
  } else {
    fail(fn, 'the model folder as a path (Node), a FileList or File[], an object or Map from file name to bytes, Blob or URL, or a Hugging Face Hub id', source);
  }
  const opened = new Map();
  return {
    has: (name) => entries.has(name),
    find: (name) => {
      if (!entries.has(name) && lazy) add(name, lazy(name));
      if (!entries.has(name)) return Promise.resolve(null);
      if (!opened.has(name)) opened.set(name, entries.get(name)().then((file) => file && counted(file, name, progress)));
      return opened.get(name);
    },
    label,
    describe: () => describe(),
    missing: (message) => cached?.missing(message) ?? attnError('ERR_ATTN_INVALID_FILE', message),
    info: () => cached.info(),
    settled: () => cached?.settled?.() ?? Promise.resolve(),
    // Handles are closed when their opening settles: an aborted call does not wait for it.
    close: () => {
      for (const pending of opened.values()) pending.catch(() => {});
      Promise.allSettled([...opened.values()]).then(() => {
        closed = true;
        return Promise.all(handles.map((close) => close().catch(() => {})));
      });
    },
  };
}

/**
 * A file of a folder on disk (Node). Opened without blocking, then checked to be a regular file: a FIFO in its
 * place once kept the call waiting for a writer that never came, past any abort.
 */
async function openFile(fs, dir, name, fn, closers) {
  const path = `${dir}/${name}`;
  let handle;
  try {
    handle = await fs.open(path, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK);
    closers.add(() => handle.close());
    const info = await handle.stat();
    if (!info.isFile()) throw new Error(`expected a regular file, got ${kindOf(info)}`);
    return new FolderFile(info.size, async (begin, end) => {
      const out = new Uint8Array(end - begin);
      for (let at = 0; at < out.length;) {
        const { bytesRead } = await handle.read(out, at, out.length - at, begin + at);
        if (bytesRead === 0) throw attnError('ERR_ATTN_LOAD_FAILED', `${fn}: ${name} ended at ${begin + at} bytes (it changed while it was read?)`);
        at += bytesRead;
      }
      return out;
    });
  } catch (e) {
    throw e.message.startsWith(`${fn}:`) ? e : attnError('ERR_ATTN_LOAD_FAILED', `${fn}: could not read ${path}: ${e.message}`);
  }
}

/** A file given as bytes, a Blob or a URL; null for a URL that answers 404 when `optional`. */
async function fileOf(value, name, fn, signal, optional = false) {
  if (value instanceof Uint8Array) return bytesFile(value);
  if (value instanceof ArrayBuffer) return bytesFile(new Uint8Array(value));
  if (typeof Blob !== 'undefined' && value instanceof Blob) return blobFile(value, name, fn);
  if (!isUrlLike(value)) return fail(fn, `${name} as a Uint8Array, ArrayBuffer, Blob or URL`, value);
  const url = new URL(value.href ?? value, baseUrl());
  const failed = (what, e) => {
    if (signal?.aborted) throw signal.reason;
    throw attnError('ERR_ATTN_LOAD_FAILED', `${fn}: could not fetch ${name} from ${url.href}: ${what}${e.message}`);
  };
  let response;
  try {
    response = await fetch(url, { signal });
  } catch (e) {
    failed('', e);
  }
  if (optional && response.status === 404) return null;
  if (!response.ok) failed('', new Error(`HTTP ${response.status}`));
  let blob;
  let head;
  try {
    blob = await response.blob();
    head = new Uint8Array(await blob.slice(0, 16).arrayBuffer());
  } catch (e) {
    // A body that stops short of its Content-Length, where undici says only "terminated".
    return failed('the download broke off: ', e);
  }
  // A server that answers a file the folder lacks with its app's page would have that page read as the file.
  checkServedFile({ url: url.href, status: response.status, contentType: response.headers.get('content-type') }, head, blob.size,
    kindOfName(name), fn, name, `serve the model folder at the address given, with a 404 for a file it does not hold (not the app's page)`);
  return blobFile(blob, name, fn);
}
