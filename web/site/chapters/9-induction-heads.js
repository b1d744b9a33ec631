// Chapter 11: induction heads, on the attention-only model the package ships (the library's inductionRecipe(),
// tools/train-induction-model.sh). The reader's letters go through the model on this thread (32 tokens of a
// 2-layer model cost well under a millisecond): the next-letter probabilities, the previous-token head's and the
// induction head's maps, one induction weight traced back through the previous-token head, that head switched
// off; then the phase change, replayed from the shipped snapshots (induction/curves.js) and trained live in a
// worker (induction/training.js). Which head is which is measured (attn.headScores), not assumed.
import shippedUrl from '../../lib/models/induction.safetensors?url';
import { chapter } from '../components/chapter.js';
import { controls } from '../components/controls.js';
import { ATTENTION_AXES, availableWidth, formatNumber, heatmap, WEIGHTS_DOMAIN, WEIGHTS_NOTE } from '../components/heatmap.js';
import { markStale, showProblem } from '../components/inputs.js';
import { kinds, linkState } from '../components/link-state.js';
import { perFrame, report } from '../components/page.js';
import { scorePanel } from '../components/score-panel.js';
import { addScores, drawCurves, emptyCurve, phaseChange } from './induction/curves.js';
import { liveTraining } from './induction/training.js';
import { CHAPTER_9 as SETTINGS } from './settings.js';

const $ = (sel) => document.querySelector(sel);
const fig = (id) => document.querySelector(`[data-figure="${id}"]`);
const SNAPSHOTS = new URL('../induction/', location.href); // web/site/public/induction: index.json and the files it lists
const MEASURED = { batchSize: 16, seed: 0 }; // the sequences every score on this page is measured on

/** A loaded model with the heads that play each part: the layer-1 head most on the previous token, the layer-2 head most on prefix matches. */
function withCircuit(attn, model, tokenizer) {
  const scores = attn.headScores(model, MEASURED);
  const H = model.config.nHead;
  const best = (data, from) => {
    let k = from;
    for (let h = from; h < from + H; h++) if (data[h] > data[k]) k = h;
    return k - from;
  };
  return { model, tokenizer, scores, previous: best(scores.previousToken.data, 0), induction: best(scores.prefixMatching.data, H) };
}

/**
 * A layer-2 head counts as an induction head when at least this share of its attention, on the measured repeats,
 * goes to the letter after the current letter's earlier occurrence (attn.headScores' prefix matching; a head that
 * ignores the repeat scores about 1/16 there, the share of one key among the 16 it sees on average).
 */
const INDUCTION_SHARE = 0.3;

/** The length of the longest stretch of letters that occurs twice, without overlapping itself (0 if none). */
function longestRepeat(ids) {
  let best = 0;
  for (let a = 0; a < ids.length; a++)
    for (let b = a + 1; b < ids.length; b++) {
      let n = 0;
      while (b + n < ids.length && a + n < b && ids[a + n] === ids[b + n]) n++;
      best = Math.max(best, n);
    }
  return best;
}

/** The letters' next-token losses: −ln p of each letter after the first, from logits (T, V). */
function letterLosses(logits, ids) {
  const V = logits.shape[2];
  return ids.slice(1).map((id, t) => {
    const row = logits.data.subarray(t * V, (t + 1) * V);
    const top = Math.max(...row);
    const z = row.reduce((a, x) => a + Math.exp(x - top), 0);
    return top + Math.log(z) - row[id];
  });
}

/** Positions t ≥ 1 whose letter an induction head predicts: the letter before it came earlier, followed by this letter. */
const copyable = (ids) => ids.map((id, t) => t > 0 && ids.some((x, j) => j + 1 < t && x === ids[t - 1] && ids[j + 1] === id));

chapter(async (attn) => {
  const settings = controls(SETTINGS);
  const shipped = await attn.loadDefaultModel({ name: 'induction', url: shippedUrl });
  const alphabet = shipped.tokenizer.vocabulary;
  let current = withCircuit(attn, shipped.model, shipped.tokenizer);
  const panel = scorePanel($('[data-score-panel]'), { hint: 'Click a weight of the induction head’s map to trace it.' });
  let traced = null; // [query, key] in the induction map
  let snapshots = []; // [{step, model, scores}] of the shipped model's training, once loaded

  /** The letters as ids, or null after saying beside the input why they cannot be read. */
  function readLetters() {
    const text = settings.read('sequence');
    const unknown = [...new Set([...text].filter((c) => !alphabet.includes(c)))];
    const problem = unknown.length ? `The model knows only the letters a–z and A–F; remove ${unknown.map((c) => JSON.stringify(c)).join(', ')}.`
      : text.length < 2 ? 'Type at least 2 letters.' : '';
    showProblem(settings.element('sequence'), problem);
    return problem ? null : Array.from(current.tokenizer.encode(text));
  }
  const headMask = () => {
    if (!settings.read('previous_off')) return null;
    const { nLayer, nHead } = current.model.config;
    const data = new Float32Array(nLayer * nHead).fill(1);
    data[current.previous] = 0;
    return { data, shape: [nLayer, nHead] };
  };
  /** One head's (T, T) map of a layer's weights (H, T, T). */
  const headOf = (weights, h) => {
    const T = weights.shape[1];
    return { data: weights.data.subarray(h * T * T, (h + 1) * T * T), shape: [T, T] };
  };
  // Two maps side by side on a wide page: cells sized so that both fit (a phone scrolls each sideways).
  const mapOptions = (letters) => ({ rowLabels: letters, colLabels: letters, ...ATTENTION_AXES, domain: WEIGHTS_DOMAIN, note: WEIGHTS_NOTE,
    masked: (i, j) => j > i, maskLabel: 'future', cellSize: Math.max(14, Math.floor((availableWidth(fig('induction-map')) / 2 - 90) / letters.length)) });

  /** One layer's head as a heatmap into `figure`; the induction head's map of the model in the views can be traced. */
  function drawHead(figure, weights, head, letters, { layer, role, off = '', step = '', traceable = false }) {
    heatmap(figure, headOf(weights, head), {
      title: `Layer ${layer + 1}, head ${head + 1}${off}: the ${role}${step}`, ...mapOptions(letters),
      ...(traceable ? { onCellClick: trace, cellPressed: (i, j) => traced?.[0] === i && traced?.[1] === j, cellAction: 'traces one below' } : {}),
    });
  }

  function trace(i, j) {
    traced = j <= i ? [i, j] : null;
    link.record();
    drawInduction();
  }

  /** The traced induction weight, taken back through the previous-token head to the letter it put in the key. */
  function showTrace(ids, letters, first, mask) {
    const out = $('#composition');
    if (!traced || traced[0] >= ids.length) {
      out.textContent = '';
      panel.clear();
      return;
    }
    const [i, j] = traced;
    const T = ids.length;
    const map = attn.headAttention(current.model, ids, 1, current.induction, { headMask: mask });
    const w = map.weights.data[i * T + j];
    const q = (k) => `“${letters[k]}” (position ${k + 1})`;
    out.dataset.key = String(j);
    if (mask) {
      // The previous-token head is off: its weights are all 0, and it moved nothing into the key. The trace said
      // position j "attended most to" the first letter "(0.000 of its weight)".
      delete out.dataset.movedFrom;
      out.textContent = `Query ${q(i)} gives key ${q(j)} ${formatNumber(w, 3)} of its attention. Layer 1's previous-token head ` +
        `(head ${current.previous + 1}) is switched off, so position ${j + 1}'s key carries no letter from before it: the ` +
        'induction head has no prefix to match, and its weights spread out.';
      panel.show(attn.explainScore(map, i, j), { i, j, queryLabel: letters[i], keyLabels: letters, context: `layer 2, head ${current.induction + 1}` });
      return;
    }
    const prev = headOf(first, current.previous).data.subarray(j * T, (j + 1) * T);
    let from = 0;
    for (let k = 0; k <= j; k++) if (prev[k] > prev[from]) from = k;
    out.dataset.movedFrom = String(from);
    out.textContent = `Query ${q(i)} gives key ${q(j)} ${formatNumber(w, 3)} of its attention. In layer 1, position ${j + 1} ` +
      `attended most to ${q(from)} (${formatNumber(prev[from], 3)} of its weight) and added it to its stream, so its key ` +
      `carries “the letter before me was ${letters[from]}”${letters[from] === letters[i] ? ', the query’s own letter: a prefix match, and the ' +
        'letter it copies is the key’s own, ' + JSON.stringify(letters[j]) + '.' : '; the query is ' + JSON.stringify(letters[i]) + ', so this is not a prefix match.'}`;
    panel.show(attn.explainScore(map, i, j), { i, j, queryLabel: letters[i], keyLabels: letters, context: `layer 2, head ${current.induction + 1}` });
  }

  // The views redraw in pieces, each in a frame of its own and only when what it shows changed (a map of 32 × 32
  // cells is a long task on a slow machine): the letters redraw all; the switch the three figures of this model;
  // a traced weight the induction map and the panel; the step slider the snapshot's figures.
  const reading = () => {
    const ids = readLetters();
    markStale([fig('predictions'), fig('previous-token-map'), fig('induction-map'), $('#copy-losses'), fig('snapshot-previous-map'),
      fig('snapshot-induction-map')], ids === null);
    return ids && { ids, letters: ids.map((id) => alphabet[id]) };
  };

  const drawPredictions = () => {
    const read = reading();
    if (!read) return;
    const { ids } = read;
    const { logits } = current.model.forward([ids], { headMask: headMask() });
    const losses = letterLosses(logits, ids);
    heatmap(fig('predictions'), { data: Float32Array.from(losses, (l) => Math.exp(-l)), shape: [losses.length] }, {
      title: 'How likely the model found each letter, given the letters before it', rowLabels: ['p'], colLabels: read.letters.slice(1),
      domain: [0, 1], digits: 2,
    });
    const can = copyable(ids);
    const mean = (xs) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : null);
    const [onCopies, elsewhere] = [mean(losses.filter((_, t) => can[t + 1])), mean(losses.filter((_, t) => !can[t + 1]))];
    const lossText = $('#copy-losses');
    lossText.dataset.copyLoss = onCopies === null ? '' : onCopies.toFixed(4);
    lossText.dataset.otherLoss = elsewhere === null ? '' : elsewhere.toFixed(4);
    // The repeats the model trained on: ⌊T/4⌋ to ⌊T/3⌋ letters of its T (attn.repeatedSequences' lengths).
    const T = current.model.config.blockSize;
    const [shortest, longest] = [Math.floor(T / 4), Math.floor(T / 3)];
    const repeat = longestRepeat(ids);
    lossText.dataset.repeat = String(repeat);
    lossText.textContent = onCopies === null ? 'Nothing in these letters repeats, so nothing can be copied: every letter is a guess.'
      : `Letters an induction head can predict (the letter before them came earlier, followed by them): ${formatNumber(onCopies, 3)} nats on ` +
        `average; the others: ${elsewhere === null ? '—' : formatNumber(elsewhere, 3)} nats (ln 32 = 3.47 is a blind guess).` +
        (repeat < shortest ? ` Your longest repeat is ${repeat} letter${repeat === 1 ? '' : 's'}; this model learned on repeats of ` +
          `${shortest} to ${longest} and copies shorter ones weakly: make it ${shortest} or more to see the stripe.` : '');
    const s = current.scores;
    const H = current.model.config.nHead;
    const found = Array.from({ length: H }, (_, h) => ({ h, share: s.prefixMatching.data[H + h] })).filter((x) => x.share >= INDUCTION_SHARE);
    const [first, ...others] = found.map((x) => [`head ${x.h + 1}`, formatNumber(x.share, 2)]);
    $('#heads-found').dataset.heads = found.map((x) => x.h).join(',');
    $('#heads-found').textContent = found.length === 0
      ? `The measurement finds no induction head in layer 2: no head puts ${INDUCTION_SHARE} of its attention on the letter after an ` +
        'earlier occurrence. The map on the right shows the head that comes closest.'
      : `The measurement finds ${found.length === 1 ? 'one induction head' : `${found.length} induction heads`} in layer 2: ` +
        `${first[0]} puts ${first[1]} of its attention on the letter after an earlier occurrence` +
        `${others.map(([head, share]) => `, ${head} ${share}`).join('')}.` +
        (found.length > 1 ? ` All of them copy; the map on the right shows the strongest, head ${current.induction + 1}.` : '');
    const gain = s.inContextLossGain.data[current.previous];
    $('#ablation-numbers').textContent = `Measured on ${MEASURED.batchSize} random sequences with a repeat: the second copy's loss is ` +
      `${formatNumber(s.secondRepeatLoss, 3)} nats with every head, ${formatNumber(s.secondRepeatLoss + gain, 3)} with layer 1's head ` +
      `${current.previous + 1} switched off; the first copy's, which nothing can predict, is ${formatNumber(s.firstRepeatLoss, 3)}.`;
    report(null);
  };

  const drawPrevious = () => {
    const read = reading();
    if (!read) return;
    const mask = headMask();
    drawHead(fig('previous-token-map'), attn.layerAttention(current.model, read.ids, 0, { headMask: mask }), current.previous, read.letters,
      { layer: 0, role: 'previous-token head', off: mask ? ' (switched off)' : '' });
  };

  const drawInductionMap = () => {
    const read = reading();
    if (!read) return;
    drawHead(fig('induction-map'), attn.layerAttention(current.model, read.ids, 1, { headMask: headMask() }), current.induction, read.letters,
      { layer: 1, role: 'induction head', traceable: true });
  };
  const drawTrace = () => {
    const read = reading();
    if (!read) return;
    const mask = headMask();
    showTrace(read.ids, read.letters, attn.layerAttention(current.model, read.ids, 0, { headMask: mask }), mask);
  };
  const drawInduction = perFrame(() => {
    drawInductionMap();
    return [drawTrace];
  });
  const drawModel = perFrame(() => {
    drawPredictions();
    return [drawPrevious, drawInductionMap, drawTrace];
  });
  // The snapshot's numbers, then its two maps, each step a frame of its own.
  const snapshotSteps = [
    () => {
      if (snapshots.length) snapshotCharts();
      const read = reading();
      if (read && snapshots.length) snapshotNumbers();
    },
    ...[0, 1].map((layer) => () => {
      const read = reading();
      if (read && snapshots.length) snapshotMap(read.ids, read.letters, layer);
    }),
  ];
  const drawSnapshot = perFrame(() => {
    snapshotSteps[0]();
    return snapshotSteps.slice(1);
  });
  // Everything, one figure a frame: two queues would each draw a map in the same frame.
  const drawAll = perFrame(() => {
    drawPredictions();
    return [drawPrevious, drawInductionMap, drawTrace, ...snapshotSteps];
  });

  // ---- the phase change, replayed --------------------------------------------------------------------------

  /** The snapshot the slider names (null while the slider's value is refused). */
  const shownSnapshot = () => {
    const k = settings.read('snapshot');
    return k === null ? null : snapshots[k];
  };

  let snapshotCurve = null; // the replay's charts: every snapshot's measurement, by step

  /** The replay's two charts, marking the step the slider shows (and the phase change). */
  function snapshotCharts() {
    drawCurves(fig('snapshot-losses'), fig('snapshot-scores'), snapshotCurve, { what: 'the shipped model while it trained',
      step: shownSnapshot()?.step ?? null });
  }

  function snapshotNumbers() {
    const shown = shownSnapshot();
    if (!shown) return;
    $('#snapshot-step').textContent = `step ${shown.step}`;
    const s = shown.scores;
    const H = current.model.config.nHead;
    const numbers = $('#snapshot-numbers');
    numbers.dataset.step = String(shown.step);
    numbers.dataset.secondRepeatLoss = s.secondRepeatLoss.toFixed(4);
    numbers.textContent = `At step ${shown.step}: loss ${formatNumber(s.firstRepeatLoss, 3)} nats on the first copy, ` +
      `${formatNumber(s.secondRepeatLoss, 3)} on the second; layer 1's head ${current.previous + 1} puts ` +
      `${formatNumber(s.previousToken.data[current.previous], 2)} of its weight on the previous letter, layer 2's head ` +
      `${current.induction + 1} ${formatNumber(s.prefixMatching.data[H + current.induction], 2)} on the letter after the earlier occurrence.`;
  }

  /** The snapshot's previous-token head (layer 0) or induction head (layer 1) on the reader's letters. */
  function snapshotMap(ids, letters, layer) {
    const shown = shownSnapshot();
    if (!shown) return;
    drawHead(fig(layer === 0 ? 'snapshot-previous-map' : 'snapshot-induction-map'), attn.layerAttention(shown.model, ids, layer),
      layer === 0 ? current.previous : current.induction, letters,
      { layer, role: layer === 0 ? 'previous-token head' : 'induction head', step: ` at step ${shown.step}` });
  }

  async function loadSnapshots() {
    const index = await (await fetch(new URL('index.json', SNAPSHOTS))).json();
    const loaded = await Promise.all(index.steps.map(async (step) => {
      const bytes = new Uint8Array(await (await fetch(new URL(`step-${String(step).padStart(5, '0')}.safetensors`, SNAPSHOTS))).arrayBuffer());
      const { model, tokenizer } = attn.loadCheckpoint(bytes);
      tokenizer.dispose();
      return { step, model, scores: attn.headScores(model, { ...MEASURED, ablation: false }) };
    }));
    snapshots = loaded;
    settings.element('snapshot').max = String(loaded.length - 1);
    snapshotCurve = emptyCurve(current.model.config.nHead);
    for (const s of loaded) addScores(snapshotCurve, s.step, s.scores);
    fig('snapshot-losses').dataset.phaseChangeStep = String(phaseChange(snapshotCurve));
  }

  // ---- which model the views show ----------------------------------------------------------------------------

  function useModel(bytes) {
    if (current.model !== shipped.model) {
      current.model.dispose();
      current.tokenizer.dispose();
    }
    if (bytes === null) {
      current = withCircuit(attn, shipped.model, shipped.tokenizer);
    } else {
      const { model, tokenizer } = attn.loadCheckpoint(bytes);
      current = withCircuit(attn, model, tokenizer);
    }
    document.body.dataset.inductionModel = bytes === null ? 'shipped' : 'trained';
    traced = null;
    drawAll();
  }

  $('#random-sequence').addEventListener('click', () => {
    const { sequences } = attn.repeatedSequences({ length: current.model.config.blockSize, vocabSize: alphabet.length,
      seed: Math.floor(Math.random() * 2 ** 31) });
    settings.element('sequence').value = Array.from(sequences.data, (id) => alphabet[id]).join('');
    traced = null;
    link.record();
    drawAll();
  });
  settings.element('sequence').addEventListener('input', drawAll);
  settings.element('previous_off').addEventListener('input', () => drawModel());
  settings.element('snapshot').addEventListener('input', () => drawSnapshot());

  const link = linkState({
    ...settings.fields,
    trace: { ...kinds.tuple({ size: 2, max: [SETTINGS.sequence.maxLength, SETTINGS.sequence.maxLength] }), default: null,
      get: () => traced, set: (cell) => (traced = cell) },
  }, { restore: drawAll });
  await link.ready;
  document.body.dataset.inductionModel = 'shipped';
  // The live run draws its two heads on the reader's letters at every measurement: the stripe forming.
  const liveMap = (figure, { head, weights }, ids, iter, layer, role) => {
    const T = ids.length;
    heatmap(fig(figure), { data: weights, shape: [T, T] }, {
      title: `Layer ${layer + 1}, head ${head + 1} at step ${iter}: the ${role} of your run`, ...mapOptions(ids.map((id) => alphabet[id])),
    });
  };
  const live = await liveTraining({
    settings, alphabet, nHead: current.model.config.nHead, onModel: useModel,
    letters: () => reading()?.ids ?? null,
    onMaps: (maps, iter) => {
      liveMap('live-previous-map', maps.previous, maps.ids, iter, 0, 'previous-token head');
      liveMap('live-induction-map', maps.induction, maps.ids, iter, 1, 'induction head');
    },
  });
  settings.element('sequence').addEventListener('input', () => live.lettersChanged());
  drawAll();
  loadSnapshots().then(() => drawSnapshot(), report);
});
