// Every setting a reader can change on the site, with its limits and default,
// stated once (plain data, no DOM: the training worker imports it too).
// components/controls.js gives each page's controls their limits and starting
// values from here, and the link state (components/link-state.js) its fields;
// docs/links.md lists them for readers, and tests/js/site-logic.test.js holds
// that list to this file. A setting's key is its name in links, the library's
// name for the quantity where it has one (docs/conventions.md).

import { MODELS } from './at-scale/configs.js';

/** A seed as torch.manual_seed takes it from JS: any integer a double holds exactly. */
const seed = (control, value) => ({
  control, label: 'The seed', kind: 'integer', min: -(2 ** 53) + 1, max: 2 ** 53 - 1, default: value,
});

/**
 * Chapter 2: the factor the scores of one query are multiplied by before they are normalised, from 0.1 to 100.
 * The slider moves in powers of ten, as chapter 4's: a linear one from 0 to 100 squeezed × 1 to × 10, where the
 * weights change most, into a tenth of its length. Past about 59 the largest score (1.5) times the factor
 * overflows e^x in float32. Not a link field itself: links name the factor (2-self-attention.js).
 */
export const CHAPTER_2 = {
  log10_factor: { control: '#factor', label: 'The factor', kind: 'number', min: -1, max: 2, step: 0.01, slider: true, default: 0, linked: false },
};

/** A factor as the page uses and shows it: 10^exponent to 3 significant digits (× 2.51), in chapters 2 and 4. */
export const factorOf = (exponent) => Number((10 ** exponent).toPrecision(3));

/**
 * Chapter 3: SelfAttentionV1(d_in, d_out) after torch.manual_seed(seed); 123 gives the notebooks' numbers. With
 * `weights` fitted, W_query and W_key are fitted-weights.js's (W_value is still drawn from the seed).
 */
export const CHAPTER_3 = {
  weights: { control: '#weights', label: 'The weights', kind: 'choice', choices: [['fitted', 'fitted to the phrases'], ['seeded', 'torch.rand, as the notebooks']], default: 'fitted' },
  seed: seed('#seed', 123),
  d_out: { control: '#d-out', label: 'd_out', kind: 'integer', min: 1, max: 8, default: 2 },
};

/**
 * Chapter 4: the scores multiplied by 10^log10_factor; d_k = 2^d_k_exponent (links name d_k itself).
 * Notebook 004 §4 multiplies by 100, the slider's right end.
 */
export const CHAPTER_4 = {
  log10_factor: { control: '#factor', label: 'The factor', kind: 'number', min: -1, max: 2, step: 0.01, slider: true, default: 0 },
  // Not a link field itself: links name d_k (4-scaling.js derives it from this).
  d_k_exponent: { control: '#dk', label: 'd_k', kind: 'integer', min: 0, max: 10, slider: true, default: 6, linked: false },
};

/** Chapter 5: masks on the six tokens of notebook 000 (journey.js); `keys` kept by the padding mask, 0 to all 6. */
export const CHAPTER_5 = {
  causal: { control: '#causal', label: 'Causal mask', kind: 'boolean', default: true },
  fill: { control: '#fill', label: 'Masked scores become', kind: 'choice', choices: [['-inf', '−∞'], ['-1e9', '−1e9 (notebook 001)']], default: '-inf' },
  keys: { control: '#length', label: 'Keys kept', kind: 'integer', min: 0, max: 6, slider: true, default: 6 },
};

/**
 * Chapter 6: MultiHeadAttention(d_model = 12, num_heads) on the reader's sentence; num_heads divides 12. With
 * `weights` fitted, the position embedding and the module are fitted-weights.js's, whose 4 heads each have a job
 * (the token embeddings are still drawn from the seed).
 */
export const CHAPTER_6 = {
  weights: { control: '#weights', label: 'The weights', kind: 'choice', choices: [['fitted', 'fitted: each head a job'], ['seeded', 'torch.randn, as the notebooks']], default: 'fitted' },
  sentence: { control: '#sentence', label: 'The sentence', kind: 'text', maxLength: 500, default: 'the cat which sat on the mat purrs' },
  num_heads: { control: '#num-heads', label: 'Heads', kind: 'choice', choices: ['1', '2', '3', '4', '6', '12'], default: '4' },
  causal: { control: '#causal', label: 'Causal', kind: 'boolean', default: false },
  seed: seed('#seed', 0),
};

/** Chapter 8, "Attention on your input": the text every map is drawn on. */
export const INPUT = {
  text: { control: '#probe', label: 'The text', kind: 'text', maxLength: 2000, default: 'The cats, which slept near the dog,' },
};

/** Chapter 8, "Generate": the prompt and nanoGPT's sampling settings (the library's generate options). */
export const GENERATION = {
  prompt: { control: '#prompt', label: 'The prompt', kind: 'text', maxLength: 2000, default: 'The cats, which' },
  temperature: { control: '#temperature', label: 'Temperature', kind: 'number', min: 0, max: 10, step: 0.1, default: 0.8 },
  // At most the model's vocabulary, checked against the active model when it is read.
  top_k: { control: '#top-k', label: 'Top-k', kind: 'integer', min: 0, max: 1e6, default: 0 },
  max_new_tokens: { control: '#max-new', label: 'Tokens', kind: 'integer', min: 1, max: 2000, default: 60 },
};

/**
 * Chapter 9, "A model you bring": the reader's text, and the sampling settings (the library's generate options). A
 * loaded model's own sampling settings (its generation_config.json) replace the defaults here that the reader or a
 * link left alone.
 */
export const YOUR_MODEL = {
  text: { control: '#bring-text', label: 'The text', kind: 'text', maxLength: 8000,
    default: 'Mr and Mrs Dursley, of number four, Privet Drive, were proud to say that they were perfectly normal. Mr and Mrs' },
  temperature: { ...GENERATION.temperature, control: '#bring-temperature' },
  top_k: { ...GENERATION.top_k, control: '#bring-top-k', default: 40 },
  // transformers' TopPLogitsWarper takes (0, 1]: a hundredth is the least the field offers.
  top_p: { control: '#bring-top-p', label: 'Top-p', kind: 'number', min: 0.01, max: 1, step: 0.05, default: 1 },
  max_new_tokens: { ...GENERATION.max_new_tokens, control: '#bring-max-new', default: 40 },
};

/** Chapter 8, "Train your own": the model's shape and the run's length (config fields of the library). */
export const TRAINING = {
  tokenizer: { control: '#tokenizer-choice', label: 'Tokens', kind: 'choice', choices: [['word', 'words'], ['char', 'characters']], default: 'word' },
  n_layer: { control: '#layers', label: 'Layers', kind: 'integer', min: 1, max: 6, default: 2 },
  n_head: { control: '#train-heads', label: 'Heads', kind: 'integer', min: 1, max: 8, default: 4 },
  n_embd: { control: '#embd', label: 'n_embd', kind: 'integer', min: 8, max: 256, step: 8, default: 64 },
  max_iters: { control: '#iters', label: 'Steps', kind: 'integer', min: 1, max: 100000, default: 1200 },
};

/**
 * Where order comes from (positions.html): a seeded nn.Embedding of d = 8 and SelfAttentionV1(8, 8) on the
 * reader's sentence and the same words reordered, with or without the sinusoidal positions; then RoPE on a query
 * and a key of 16 dimensions drawn from the seed: the pair shown (1 to 8), their positions, the shift applied to
 * both, and rope_theta and its llama3 scaling as a model's config names them (GPTConfig: ropeTheta, ropeScaling).
 */
export const POSITIONS = {
  sentence: { control: '#sentence', label: 'The sentence', kind: 'text', maxLength: 200, default: 'the dog bit the man' },
  reordered: { control: '#reordered', label: 'The same words in another order', kind: 'text', maxLength: 200, default: 'the man bit the dog' },
  sinusoidal: { control: '#sinusoidal', label: 'Add sinusoidal positions', kind: 'boolean', default: false },
  seed: seed('#seed', 0),
  pair: { control: '#pair', label: 'Pair', kind: 'integer', min: 1, max: 8, slider: true, default: 1 },
  query_position: { control: '#query-position', label: 'Query at position', kind: 'integer', min: 0, max: 100, slider: true, default: 5 },
  key_position: { control: '#key-position', label: 'Key at position', kind: 'integer', min: 0, max: 100, slider: true, default: 2 },
  shift: { control: '#shift', label: 'Shift both by', kind: 'integer', min: 0, max: 5000, default: 40 },
  rope_theta: { control: '#rope-theta', label: 'rope_theta', kind: 'choice',
    choices: [['10000', '10 000 (RoFormer, Llama 2, Mistral 7B)'], ['500000', '500 000 (Llama 3)'], ['1000000', '1 000 000 (Qwen2.5)']], default: '10000' },
  rope_scaling: { control: '#rope-scaling', label: 'llama3 scaling (Llama 3.1, 3.2)', kind: 'boolean', default: false },
};

/**
 * Chapter 8's training recipe besides what the reader sets: the shipped model's
 * (tools/train-default-model.sh) shortened so that the subject head appears in a
 * minute or so, for the agreement corpus; a text file gets longer blocks and
 * smaller batches. In the library's config names (camelCase, as the JS API takes them).
 */
export const RECIPE = {
  corpusSentences: 30000,
  corpusSeed: 1337,
  model: { bias: false, attentionBias: false, tieEmbeddings: true, dropout: 0 },
  training: { learningRate: 3e-3, minLr: 3e-4, evalIters: 8, seed: 1337 },
  corpus: { blockSize: 32, batchSize: 32, probeEvery: 50 },
  file: { blockSize: 64, batchSize: 16, probeEvery: 0 },
  evaluations: 10, // evaluations and samples per run, at least every 10 steps
  samples: 5,
  samplePrompt: 'The cats, which',
  // The samples shown while training: a word model writes fewer tokens than a character model for the same text.
  sampleTokens: { word: 20, char: 60 },
  sampleTemperature: GENERATION.temperature.default,
  probeSentences: 100, // per measurement of the heads while training; the page's measurement takes 200
};

/**
 * A chapter 8 run as the training worker takes it: its length, how often it evaluates, samples and measures
 * the heads, and its model and training configs (the library's names), from the reader's settings (TRAINING's
 * keys: n_layer, n_head, n_embd, max_iters, tokenizer) and whether it trains on a text file (else the agreement
 * corpus). Plain arithmetic: the library checks the configs when the run starts.
 */
export function trainingRun({ n_layer: nLayer, n_head: nHead, n_embd: nEmbd, max_iters: iters, tokenizer }, fromFile) {
  const data = fromFile ? RECIPE.file : RECIPE.corpus;
  return {
    iters,
    evalEvery: Math.max(10, Math.floor(iters / RECIPE.evaluations)),
    sampleEvery: Math.max(10, Math.floor(iters / RECIPE.samples)),
    probeEvery: data.probeEvery,
    model: { ...RECIPE.model, nLayer, nHead, nEmbd, nInner: 4 * nEmbd, blockSize: data.blockSize },
    training: { ...RECIPE.training, batchSize: data.batchSize, warmupIters: Math.min(100, iters - 1), lrDecayIters: Math.max(iters, 101),
      tokenizer },
  };
}

/**
 * Chapter 10, "Attention at scale": the token whose step of generation the KV cache shows (1–8), the model whose
 * heads are drawn (the calculator lists all six of at-scale/configs.js), the sliding window and the layers its
 * reach is followed through, the keys per step of the online softmax, and the seed the examples' numbers are
 * drawn from.
 */
export const AT_SCALE = {
  seed: seed('#seed', 0),
  step: { control: '#step', label: 'Token', kind: 'integer', min: 1, max: 8, slider: true, default: 5 },
  model: { control: '#model', label: 'Model', kind: 'choice', choices: MODELS.map((m) => m.name), default: 'SmolLM2-135M' },
  window: { control: '#window', label: 'Window', kind: 'integer', min: 1, max: 12, slider: true, default: 4 },
  layers: { control: '#layers', label: 'Layers', kind: 'integer', min: 1, max: 4, slider: true, default: 3 },
  block: { control: '#block', label: 'Keys per step', kind: 'integer', min: 1, max: 12, slider: true, default: 3 },
};

/**
 * Chapter 11, "How attention copies": the reader's letters (at most the induction model's 32 positions), the
 * previous-token head switched off or not, the snapshot of the shipped model's training shown (0–15), and the
 * live run's seed and length (the training itself is the library's inductionRecipe()).
 */
export const CHAPTER_9 = {
  sequence: { control: '#sequence', label: 'The letters', kind: 'text', maxLength: 32, default: 'xqjzharrypotterlkvbmwharrypotter' },
  previous_off: { control: '#previous-off', label: 'The previous-token head off', kind: 'boolean', default: false },
  snapshot: { control: '#snapshot', label: 'The training step', kind: 'integer', min: 0, max: 15, slider: true, default: 15 },
  seed: seed('#train-seed', 1337),
  max_iters: { control: '#train-iters', label: 'Steps', kind: 'integer', min: 50, max: 20000, default: 1000 },
};

/** Chapter 11's live run: how often the worker measures the heads (attn.headScores on this many sequences). */
export const INDUCTION_RUN = { scoreEvery: 25, scoreSequences: 16 };

/**
 * While a model trains (chapters 8 and 11), its status line (and chapter 8's charts) are painted at most once
 * in this many milliseconds. Every frame the page paints costs ~15 ms of CPU across the browser's threads
 * however little changed (headless Chromium without a GPU, chapter 8's page with only its status line
 * changing), and on a 2-core machine that time comes out of the training threads: painted four times a second,
 * chapter 8's isolated run took 49.5 s against 46.3 s painted once a second (medians of 3 in one session;
 * 41.6 s in an earlier one with nothing painted until the end).
 */
export const LIVE_REDRAW_MS = 1000;
