// Chapter 9's model lives in the package's own worker (createAttention({ worker: true })): the page holds proxies,
// every call is a Promise computed there, and the page's thread never waits on a pass of GPT-2 or Qwen. A model comes
// from the Hugging Face Hub by its id (kept in this browser's Cache API), from a folder's files, or is the site's own
// (chapter 8's). One model is in use at a time: the one before is disposed once the new one is in, so that a
// cancelled load leaves it in use — unless both would not fit in memory together, when it is set aside first.
import { createAttention } from '../../../lib/index.js';
import shippedModelUrl from '../../../lib/models/agreement.safetensors?url';

/** The bytes of weights two models may hold together while one replaces the other (WebAssembly's memory ends at 2 GiB). */
const ROOM_FOR_TWO = 1e9;
/** Prefix matching (chapter 11's score) is measured once per model, on this many random repeated sequences. */
const PREFIX_SEQUENCES = 4;
const PREFIX_LENGTH = 64;

/** What the page shows of a model, read once from its proxies. */
async function describeLoaded({ model, tokenizer }) {
  const [config, parameters, generation, kind, pieces, hasChatTemplate, bosTokenId, bosToken] = await Promise.all([
    model.config, model.numParameters({ nonEmbedding: false }), model.generationConfig, tokenizer.kind, tokenizer.pieces,
    tokenizer.hasChatTemplate, tokenizer.bosTokenId, tokenizer.bosToken]);
  return {
    nLayer: config.nLayer, nHead: config.nHead, nKvHead: config.nKvHead || config.nHead, nEmbd: config.nEmbd,
    blockSize: config.blockSize, vocabSize: config.vocabSize, positions: config.positions, slidingWindow: config.slidingWindow,
    parameters, generation, tokenizer: kind, pieces, hasChatTemplate: Boolean(hasChatTemplate),
    bosTokenId: bosTokenId ?? null, bosToken: bosToken ?? null,
  };
}

/**
 * The session: { remote, loaded(), load(source, options), release(), pieceOf(id) }. `source` is { hub: id },
 * { files: File[] } or { shipped: true }; `bytes` the weights it brings (to judge whether two models fit), Infinity
 * when not known. loaded() is null or { source, model, tokenizer, info, bytes, prefixMatching: Promise<Float32Array> }.
 */
export async function modelSession() {
  const remote = await createAttention({ worker: true });
  let loaded = null;

  async function release() {
    const old = loaded;
    loaded = null;
    if (old) await Promise.all([old.model.dispose(), old.tokenizer.dispose()]);
  }

  async function load(source, { bytes = Infinity, signal, onProgress, accessToken } = {}) {
    // A model as large as the one in use is not loaded beside it: WebAssembly's memory would run out.
    const setAside = loaded !== null && loaded.bytes + bytes > ROOM_FOR_TWO;
    if (setAside) await release();
    const options = { signal, onProgress, ...(accessToken ? { accessToken } : {}) };
    const pair = source.shipped ? await remote.loadDefaultModel({ url: shippedModelUrl })
      : await remote.loadPretrained(source.hub ?? source.files, options);
    let info;
    try {
      signal?.throwIfAborted();
      info = await describeLoaded(pair);
      signal?.throwIfAborted();
    } catch (error) {
      await Promise.all([pair.model.dispose(), pair.tokenizer.dispose()]);
      throw error;
    }
    await release();
    const prefixMatching = info.nLayer >= 2
      ? remote.headScores(pair.model, { batchSize: PREFIX_SEQUENCES, length: Math.min(info.blockSize, PREFIX_LENGTH), ablation: false })
        .then((s) => s.prefixMatching.data)
      : Promise.resolve(new Float32Array(info.nLayer * info.nHead).fill(NaN));
    prefixMatching.catch(() => {}); // a model replaced before its measurement ends rejects it; the table waits on it
    loaded = { source, ...pair, info, bytes, prefixMatching };
    return { loaded, setAside };
  }

  // A model's vocabulary can be larger than its tokenizer's (padded to a round size): those ids have no piece.
  const pieceOf = (id) => loaded?.info.pieces[id] ?? `<unused ${id}>`;

  return { remote, loaded: () => loaded, load, release, pieceOf };
}
