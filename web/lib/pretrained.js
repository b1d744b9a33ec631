// The JS API for models people already have: GPT-2's byte-level BPE tokenizer
// and loadPretrained, which reads a Hugging Face GPT-2 model folder
// (config.json, model.safetensors, and vocab.json + merges.txt or
// tokenizer.json) into a GPT a tensor at a time (cpp/include/attn/pretrained.hpp).
// pretrainedApi(M, model) gives them for one loaded module M, whose GPT class
// model.js made.
import { fail, integers, options, string } from './arguments.js';
import { AdoptedHandle, Module } from './handles.js';
import { baseUrl, isUrlLike } from './loading.js';

// Bytes handed to WASM at once while loading: small next to a model (GPT-2
// small's largest tensor is 147 MiB in float32), so the file is never held whole.
const CHUNK_BYTES = 16 << 20;

// A file's text as it is written: ignoreBOM keeps a U+FEFF it begins with (TextDecoder drops it by default).
const fileDecoder = new TextDecoder('utf-8', { ignoreBOM: true });

export function pretrainedApi(M, { GPT, Tokenizer }) {
  /**
   * GPT-2's tokenizer: byte-level byte-pair encoding. `files` is
   * `{ vocab, merges }` (the texts of vocab.json and merges.txt) or
   * `{ tokenizerJson }` (a Hugging Face tokenizer.json). Ids equal js-tiktoken's
   * "gpt2" encoding; <|endoftext|> in the text is one token.
   */
  class BPETokenizer extends Module {
    #pieces = null;
    constructor(files) {
      const fn = 'BPETokenizer';
      const handle = files instanceof AdoptedHandle ? files.handle : null;
      let make = () => handle;
      if (!handle) {
        const { vocab, merges, tokenizerJson } = options(files, ['vocab', 'merges', 'tokenizerJson'], fn);
        if (tokenizerJson !== undefined) {
          if (vocab !== undefined || merges !== undefined) fail(fn, 'either { vocab, merges } or { tokenizerJson }', files);
          string(tokenizerJson, fn, 'tokenizerJson');
          make = () => M.BPETokenizer.fromTokenizerJson(tokenizerJson);
        } else {
          string(vocab, fn, 'vocab (the text of vocab.json)');
          string(merges, fn, 'merges (the text of merges.txt)');
          make = () => M.BPETokenizer.fromFiles(vocab, merges);
        }
      }
      super(fn, make);
    }
    /** The ids of a text (a lone surrogate is encoded as U+FFFD, as js-tiktoken and TextEncoder encode it). */
    encode(text) {
      return Array.from(this._handle.encode(string(text, 'BPETokenizer.encode', 'text')));
    }
    /** The text of ids (bytes that end inside a character show as U+FFFD, as TextDecoder shows them). */
    decode(ids) {
      return this._handle.decode(integers(ids, 'BPETokenizer.decode', 'ids'));
    }
    /** 'bpe'. */
    get kind() { return 'bpe'; }
    get vocabSize() { return this._handle.vocabSize(); }
    /** Each token's text in id order (U+FFFD for a byte that does not complete a character). */
    get pieces() {
      this.#pieces ??= Object.freeze(this._handle.pieces());
      return this.#pieces;
    }
  }

  /**
   * Reads a Hugging Face GPT-2 model folder: `{ model: GPT, tokenizer: BPETokenizer, config }`.
   * `source`: a folder path (Node), a FileList or File[] (a drop), or an object / Map from file
   * name to bytes (Uint8Array, ArrayBuffer), a Blob / File, or a URL. The safetensors file is
   * read in pieces of 16 MiB, converted (float16 / bfloat16 to float32) straight into the model.
   * `options.onProgress({ loaded, total })` after each piece; `options.signal` (an AbortSignal) stops it.
   */
  async function loadPretrained(source, opts = {}) {
    const fn = 'loadPretrained';
    const { onProgress, signal } = options(opts, ['onProgress', 'signal'], fn);
    if (onProgress !== undefined && typeof onProgress !== 'function') fail(fn, 'onProgress as a function', onProgress);
    if (signal !== undefined && !(typeof signal?.aborted === 'boolean' && typeof signal.addEventListener === 'function')) {
      fail(fn, 'signal as an AbortSignal', signal);
    }
    const stopIfAborted = () => {
      if (signal?.aborted) throw signal.reason ?? new DOMException('loadPretrained: aborted', 'AbortError');
    };
    const folder = await filesOf(source, fn);
    try {
      const need = (name, why) => folder.get(name) ?? Promise.reject(new Error(`${fn}: the model folder has no ${name} (${why}); ` +
        `it holds ${[...folder.names()].join(', ') || 'no files'}`));
      const config = await (await need('config.json', "the model's shape")).text();
      let tokenizerFiles;
      let characters = null;
      if (folder.has('tokenizer.json')) {
        tokenizerFiles = { tokenizerJson: await (await folder.get('tokenizer.json')).text() };
        characters = characterVocabulary(tokenizerFiles.tokenizerJson, fn);
      } else if (folder.has('vocab.json') && folder.has('merges.txt')) {
        tokenizerFiles = { vocab: await (await folder.get('vocab.json')).text(), merges: await (await folder.get('merges.txt')).text() };
      } else {
        throw new Error(`${fn}: the model folder has no tokenizer: expected tokenizer.json, or vocab.json and merges.txt; ` +
          `it holds ${[...folder.names()].join(', ')}`);
      }
      if (!folder.has('model.safetensors') && folder.has('pytorch_model.bin')) {
        throw new Error(`${fn}: the model folder has pytorch_model.bin but no model.safetensors; this library reads ` +
          'safetensors (convert with transformers: model.save_pretrained(folder, safe_serialization=True))');
      }
      const weights = await need('model.safetensors', 'the weights');
      stopIfAborted();
      // config.json checked, and the tokenizer against it, before anything is allocated.
      const { vocabSize } = JSON.parse(M.pretrainedConfig(config));
      const tokenizer = characters !== null ? Tokenizer.fromVocabulary('char', characters) : new BPETokenizer(tokenizerFiles);
      let loader = null;
      try {
        const headerLength = M.pretrainedHeaderLength(await weights.read(0, Math.min(8, weights.size)), weights.size);
        const header = await weights.read(8, 8 + headerLength);
        stopIfAborted();
        if (tokenizer.vocabSize > vocabSize) {
          throw new Error(`${fn}: the tokenizer has ${tokenizer.vocabSize} tokens, more than config.json's vocab_size ${vocabSize}`);
        }
        loader = M.PretrainedLoader.create(config, header, weights.size);
        const tensors = loader.tensors();
        const total = tensors.reduce((sum, t) => sum + (t.end - t.begin), 0);
        let loaded = 0;
        onProgress?.({ loaded, total });
        for (const [i, t] of tensors.entries()) {
          for (let at = t.begin; at < t.end; at += CHUNK_BYTES) {
            const end = Math.min(t.end, at + CHUNK_BYTES);
            const bytes = await weights.read(at, end);
            stopIfAborted();
            loader.read(i, at - t.begin, bytes);
            loaded += end - at;
            onProgress?.({ loaded, total });
          }
        }
        const model = new GPT(new AdoptedHandle(loader.finish()));
        return { model, tokenizer, config: JSON.parse(config) };
      } catch (error) {
        tokenizer.dispose();
        throw error;
      } finally {
        loader?.delete();
      }
    } finally {
      await folder.close();
    }
  }

  return { BPETokenizer, loadPretrained };
}

/**
 * The characters in id order when tokenizer.json is a character-level one (a WordLevel model over single
 * characters, every character split off: what tools/nanogpt_to_hf.py writes for nanoGPT's character models),
 * else null (a BPE, read by BPETokenizer).
 */
function characterVocabulary(text, fn) {
  let j;
  try {
    j = JSON.parse(text);
  } catch (e) {
    throw new Error(`${fn}: tokenizer.json is not valid JSON (${e.message})`);
  }
  if (j?.model?.type !== 'WordLevel') return null;
  const entries = Object.entries(j.model.vocab ?? {});
  const chars = [];
  for (const [piece, id] of entries) {
    if ([...piece].length !== 1 || !Number.isInteger(id) || id < 0 || id >= entries.length || chars[id] !== undefined) {
      throw new Error(`${fn}: tokenizer.json is a WordLevel vocabulary but not one of single characters with ids 0 to ` +
        `${entries.length - 1} (at ${JSON.stringify(piece)}: ${id}); this library reads character-level and GPT-2 BPE tokenizers`);
    }
    chars[id] = piece;
  }
  return chars.join('');
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
}

/** A Blob or File as a FolderFile: read a slice at a time (Blob.slice), never whole. */
const blobFile = (blob) =>
  new FolderFile(blob.size, async (begin, end) => new Uint8Array(await blob.slice(begin, end).arrayBuffer()));
const bytesFile = (bytes) => new FolderFile(bytes.byteLength, async (begin, end) => bytes.subarray(begin, end));

/** Files by name, opened lazily; close() releases what was opened (Node file handles). */
async function filesOf(source, fn) {
  const entries = new Map(); // name -> () => Promise<FolderFile>
  const closers = [];
  const add = (name, open) => entries.set(String(name).split(/[\\/]/).pop(), open);
  const fs = globalThis.process?.getBuiltinModule?.('node:fs/promises');
  const isFileList = typeof FileList !== 'undefined' && source instanceof FileList;
  if (isFileList || (Array.isArray(source) && source.every((f) => typeof Blob !== 'undefined' && f instanceof Blob && 'name' in f))) {
    for (const file of source) add(file.name, async () => blobFile(file));
  } else if (source instanceof Map || (source !== null && typeof source === 'object' && !isUrlLike(source) && !Array.isArray(source))) {
    const pairs = source instanceof Map ? [...source.entries()] : Object.entries(source);
    for (const [name, value] of pairs) add(name, () => fileOf(value, name, fn));
  } else if (fs && (typeof source === 'string' || source?.protocol === 'file:')) {
    const dir = typeof source === 'string' && !source.startsWith('file:') ? source : new URL(source).pathname;
    let names;
    try {
      names = await fs.readdir(dir);
    } catch (e) {
      throw new Error(`${fn}: could not read the model folder ${dir}: ${e.message}`);
    }
    for (const name of names) {
      add(name, async () => {
        const handle = await fs.open(`${dir}/${name}`, 'r');
        closers.push(() => handle.close());
        const { size } = await handle.stat();
        return new FolderFile(size, async (begin, end) => {
          const out = new Uint8Array(end - begin);
          for (let at = 0; at < out.length;) {
            const { bytesRead } = await handle.read(out, at, out.length - at, begin + at);
            if (bytesRead === 0) throw new Error(`${fn}: ${name} ended at ${begin + at} bytes (it changed while it was read?)`);
            at += bytesRead;
          }
          return out;
        });
      });
    }
  } else if (isUrlLike(source)) {
    // A folder on a server: each file fetched when it is needed.
    const base = new URL(String(source.href ?? source).replace(/\/?$/, '/'), baseUrl());
    for (const name of ['config.json', 'model.safetensors', 'tokenizer.json', 'vocab.json', 'merges.txt']) {
      add(name, () => fileOf(new URL(name, base), name, fn));
    }
  } else {
    fail(fn, 'the model folder as a path (Node), a FileList or File[], or an object or Map from file name to bytes, Blob or URL', source);
  }
  const opened = new Map();
  return {
    names: () => entries.keys(),
    has: (name) => entries.has(name),
    get: (name) => {
      if (!entries.has(name)) return undefined;
      if (!opened.has(name)) opened.set(name, entries.get(name)());
      return opened.get(name);
    },
    close: async () => {
      await Promise.allSettled([...opened.values()]);
      await Promise.all(closers.map((close) => close()));
    },
  };
}

async function fileOf(value, name, fn) {
  if (value instanceof Uint8Array) return bytesFile(value);
  if (value instanceof ArrayBuffer) return bytesFile(new Uint8Array(value));
  if (typeof Blob !== 'undefined' && value instanceof Blob) return blobFile(value);
  if (isUrlLike(value)) {
    let response;
    try {
      response = await fetch(new URL(value.href ?? value, baseUrl()));
      if (!response.ok) throw new Error(`HTTP ${response.status}`);
    } catch (e) {
      throw new Error(`${fn}: could not fetch ${name} from ${value.href ?? value}: ${e.message}`);
    }
    return blobFile(await response.blob());
  }
  return fail(fn, `${name} as a Uint8Array, ArrayBuffer, Blob or URL`, value);
}
