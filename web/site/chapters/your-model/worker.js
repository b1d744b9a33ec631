// The reader's model lives here, off the main thread: GPT-2 small is 124 M
// parameters, and one pass over 1,024 tokens takes seconds, which the page
// must never wait on. Messages in (each with an id the answer repeats):
//   {type: 'load', files: File[]}            the model folder's files (a drop, a picker, or the browser's copy)
//   {type: 'loadShipped'}                    the site's own model (chapter 8's), nothing to choose
//   {type: 'cancel'}                         stops a load in progress
//   {type: 'analyse', text, headMask, thumbnail}
//   {type: 'head', text, layer, head, headMask} | {type: 'trace', text, layer, head, i, j, headMask}
//   {type: 'layer', text, layer, window, headMask}
//   {type: 'generate', text, temperature, top_k, max_new_tokens} | {type: 'stop'}
//   {type: 'sampling', temperature, top_k}   the latest analysis's next token, as generate would draw it
// Messages out: {type: 'progress', loaded, total}, {type: 'loaded', model}, {type: 'analysis', ...},
//   {type: 'map', ...}, {type: 'trace', ...}, {type: 'token', text}, {type: 'drawn', id, piece} (generate's first token),
//   {type: 'generated'}, {type: 'sampling', ids, pieces, own, after}, {type: 'error', message, of}
import { createAttention } from '../../../lib/index.js';
import shippedModelUrl from '../../../lib/models/agreement.safetensors?url';

const attnReady = createAttention();
let model = null;
let tokenizer = null;
let loading = null; // the AbortController of a load in progress
let stopGenerating = false;
let nextLogits = null; // (V) the latest analysis's logits of the token after the text

const NEXT_TOKENS = 10;

/** The ids of the text, cut to the model's context (its last tokens). */
function idsOf(text) {
  const ids = tokenizer.encode(text);
  const n = model.config.blockSize;
  return { ids: ids.length > n ? ids.slice(ids.length - n) : ids, cut: Math.max(0, ids.length - n) };
}

// A model's vocabulary can be larger than its tokenizer's (padded to a round size): those ids have no piece.
const pieceOf = (id) => tokenizer.pieces[id] ?? `<unused ${id}>`;
// The loaded model's prefix-matching score per head (NaN for a model of one layer, which cannot compose one).
let prefixMatching = null;
const PREFIX_SEQUENCES = 4;
const PREFIX_LENGTH = 64;

function topTokens(logits) {
  let max = -Infinity;
  for (const v of logits) max = Math.max(max, v);
  let sum = 0;
  for (const v of logits) sum += Math.exp(v - max);
  const order = Array.from(logits.keys()).sort((a, b) => logits[b] - logits[a]).slice(0, NEXT_TOKENS);
  return order.map((id) => ({ id, piece: pieceOf(id), p: Math.exp(logits[id] - max) / sum }));
}

/** Makes `loaded` ({model, tokenizer}) the model every message is about, and says what it is. */
function adopt(attn, loaded) {
  model?.dispose();
  tokenizer?.dispose();
  ({ model, tokenizer } = loaded);
  const c = model.config;
  // Prefix matching does not depend on the reader's text: measured once, on random repeated tokens (chapter 11's
  // score); without the per-head ablation, which would cost a pass per head (144 for GPT-2 small).
  prefixMatching = c.nLayer >= 2
    ? attn.headScores(model, { batchSize: PREFIX_SEQUENCES, length: Math.min(c.blockSize, PREFIX_LENGTH), ablation: false }).prefixMatching.data
    : new Float32Array(c.nLayer * c.nHead).fill(NaN);
  return {
    type: 'loaded',
    model: { nLayer: c.nLayer, nHead: c.nHead, nKvHead: c.nKvHead || c.nHead, nEmbd: c.nEmbd, blockSize: c.blockSize,
      vocabSize: c.vocabSize, positions: c.positions, slidingWindow: c.slidingWindow,
      parameters: model.numParameters({ nonEmbedding: false }), tokenizer: tokenizer.kind, activation: c.activation },
  };
}

const handlers = {
  async load({ files }) {
    const attn = await attnReady;
    loading?.abort();
    const controller = new AbortController();
    loading = controller;
    const loaded = await attn.loadPretrained(files, {
      signal: controller.signal,
      onProgress: ({ loaded: done, total }) => postMessage({ type: 'progress', loaded: done, total }),
    });
    if (loading === controller) loading = null;
    return adopt(attn, loaded);
  },
  async loadShipped() {
    const attn = await attnReady;
    loading?.abort();
    return adopt(attn, await attn.loadDefaultModel({ url: shippedModelUrl }));
  },
  cancel() {
    loading?.abort(new DOMException('Loading was cancelled.', 'AbortError'));
    loading = null;
  },
  async analyse({ text, headMask, thumbnail }) {
    const attn = await attnReady;
    const { ids, cut } = idsOf(text);
    const options = { thumbnailSize: thumbnail, headMask };
    const s = attn.summarizeHeads(model, ids, options);
    const base = headMask ? attn.summarizeHeads(model, ids, { thumbnailSize: 0 }) : null;
    nextLogits = s.nextLogits;
    return {
      type: 'analysis',
      pieces: ids.map(pieceOf),
      cut,
      stats: { previousToken: s.previousToken.data, firstToken: s.firstToken.data, meanDistance: s.meanDistance.data, entropy: s.entropy.data,
        prefixMatching },
      profile: s.distanceProfile,
      layerWindow: Array.from(s.layerWindow.data),
      thumbnails: s.thumbnails,
      next: topTokens(s.nextLogits.data),
      nextWithAllHeads: base ? topTokens(base.nextLogits.data) : null,
    };
  },
  async head({ text, layer, head, headMask }) {
    const attn = await attnReady;
    const { ids } = idsOf(text);
    const { weights } = attn.headAttention(model, ids, layer, head, { headMask });
    return { type: 'map', layer, head, pieces: ids.map(pieceOf), map: weights };
  },
  /** One layer's heads over the last `window` tokens: weights (H, W, W) for a head view. */
  async layer({ text, layer, window, headMask }) {
    const attn = await attnReady;
    const { ids } = idsOf(text);
    const all = attn.layerAttention(model, ids, layer, { headMask });
    const [H, T] = all.shape;
    const W = Math.min(T, window);
    const data = new Float32Array(H * W * W);
    for (let h = 0; h < H; h++) {
      for (let i = 0; i < W; i++) data.set(all.data.subarray((h * T + T - W + i) * T + T - W, (h * T + T - W + i + 1) * T), (h * W + i) * W);
    }
    return { type: 'layer', layer, pieces: ids.slice(T - W).map(pieceOf), map: { data, shape: [H, W, W] } };
  },
  /** One weight of one head taken apart (attn.explainScore): query i, key j. */
  async trace({ text, layer, head, i, j, headMask }) {
    const attn = await attnReady;
    const { ids } = idsOf(text);
    const map = attn.headAttention(model, ids, layer, head, { headMask });
    return { type: 'trace', layer, head, i, j, pieces: ids.map(pieceOf), explanation: attn.explainScore(map, i, j) };
  },
  /** The next token's probabilities, the model's own and as temperature and top-k leave them, for its 10 likeliest. */
  async sampling({ temperature, top_k }) {
    const attn = await attnReady;
    if (!nextLogits) throw new Error('Nothing is analysed yet.');
    const own = attn.samplingDistribution(nextLogits).data;
    const after = attn.samplingDistribution(nextLogits, { temperature, topK: top_k }).data;
    const ids = Array.from(own.keys()).sort((a, b) => own[b] - own[a]).slice(0, NEXT_TOKENS);
    return { type: 'sampling', ids, pieces: ids.map(pieceOf), own: ids.map((id) => own[id]), after: ids.map((id) => after[id]) };
  },
  async generate({ text, temperature, top_k, max_new_tokens }) {
    const { ids } = idsOf(text);
    stopGenerating = false;
    const prompt = ids.slice(Math.max(0, ids.length - (model.config.blockSize - max_new_tokens)));
    const generated = [];
    let shown = '';
    for (const [token] of model.stream([prompt], { temperature, topK: top_k, maxNewTokens: max_new_tokens, seed: Date.now() % 2 ** 31 })) {
      if (generated.length === 0) postMessage({ type: 'drawn', id: token, piece: pieceOf(token) });
      generated.push(token);
      // Decoded as a whole, so that a character split over two tokens shows once it is complete.
      const text = tokenizer.decode(generated).replace(/\uFFFD+$/, '');
      if (text.length > shown.length) postMessage({ type: 'token', text: text.slice(shown.length) });
      shown = text;
      await new Promise((resolve) => setTimeout(resolve, 0)); // let a 'stop' in
      if (stopGenerating) break;
    }
    return { type: 'generated' };
  },
  stop() {
    stopGenerating = true;
  },
};

// A view asks again each time the reader edits: a request that a newer one of its kind has replaced by the time
// its turn comes is answered 'skipped' instead of computed (one pass of GPT-2 over 1,024 tokens takes seconds).
const REPLACEABLE = new Set(['analyse', 'head', 'layer', 'trace']);
const latest = {};

onmessage = async ({ data }) => {
  try {
    if (!model && !['load', 'loadShipped', 'cancel', 'stop'].includes(data.type)) throw new Error('No model is loaded.');
    if (REPLACEABLE.has(data.type)) {
      latest[data.type] = data.id;
      await new Promise((resolve) => setTimeout(resolve, 0)); // let newer requests arrive
      if (latest[data.type] !== data.id) {
        postMessage({ type: 'skipped', id: data.id });
        return;
      }
    }
    const answer = await handlers[data.type](data);
    if (answer) {
      const transfer = answer.thumbnails ? [answer.thumbnails.data.buffer] : answer.map ? [answer.map.data.buffer] : [];
      postMessage({ ...answer, id: data.id }, transfer);
    }
  } catch (error) {
    postMessage({ type: 'error', of: data.type, id: data.id, message: error?.message ?? String(error), aborted: error?.name === 'AbortError' });
  }
};
