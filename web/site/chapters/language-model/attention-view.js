// "Attention on your input": the active model's forward pass on the reader's
// text, with the switched-off heads off. What the last token predicts and
// where each head looks from it, every layer-and-head map (the model view),
// the head view of one layer, a sentence about the subject head, and one
// number of any map traced through its head. Redraws on 'model', 'heads',
// 'measured' and 'redraw'.
import { headView } from '../../components/head-view.js';
import { headGrid } from '../../components/head-grid.js';
import { ATTENTION_AXES, heatmap, WEIGHTS_DOMAIN, WEIGHTS_NOTE } from '../../components/heatmap.js';
import { markStale, showProblem } from '../../components/inputs.js';
import { perFrame, report } from '../../components/page.js';
import { oneHead, scorePanel } from '../../components/score-panel.js';
import { tokenFlow } from './flow.js';
import { headMask } from './heads.js';
import { SENTENCES } from './probe.js';
import { headName, percent, quote, shown } from './state.js';
import { readNow, replacedSentence } from './unknown-word.js';

const $ = (sel) => document.querySelector(sel);
const FIGURES = ['[data-figure="flow"]', '#probe-claim', '#probe-next', '#probe-heads', '[data-figure="model-attention"]', '[data-figure="head-map"]', '[data-figure="trained-head-view"]',
  '[data-score-panel]'];
const TRACE_SELECTS = ['#trace-layer', '#trace-head', '#trace-query', '#trace-key'];

/** Options 0 … n-1 named by label(k), keeping the chosen one when it still exists, else `fallback` (never blank). */
function fillSelect(select, n, label, fallback = 0) {
  const chosen = select.value;
  select.replaceChildren(...Array.from({ length: n }, (_, k) => new Option(label(k), String(k))));
  select.value = chosen !== '' && Number(chosen) < n ? chosen : String(Math.min(fallback, n - 1));
}

/** What the head that looks hardest at subjects does on this text, in words. */
function claim(report, pieces, focusOf, H) {
  if (report === null) return 'Measuring which head of this model looks at the subject…';
  if (report.error) return 'This model was not trained on the agreement corpus, so no head of it has learned to find a subject.';
  const { bestLayer, bestHead, bestSubjectAttention } = report;
  const T = pieces.length;
  const focus = focusOf[bestLayer * H + bestHead];
  return `In this model, layer ${bestLayer + 1}, head ${bestHead + 1} is the head that looks hardest at the subject ` +
    `(in ${percent(bestSubjectAttention)} of ${SENTENCES} held-out sentences). On your text, the bottom row of its map, the last token ` +
    `${quote(pieces[T - 1])} asking what comes next, is brightest at ${quote(pieces[focus])}, ${T - 1 - focus} tokens back.`;
}

export function attentionView(state) {
  const { attn, headView: chosen } = state;
  const flow = tokenFlow($('[data-figure="flow"]'));
  let lastShown = { pieces: [] }; // the tokens of the maps on the page, for the read-out of their cells
  const panel = scorePanel($('[data-score-panel]'), { hint: 'No number traced yet: click a cell of a map above, or choose one and press “Trace this number”.' });

  /** Shows these heads of this layer in the head view. */
  function showInHeadView(layer, heads) {
    $('#head-view-layer').value = String(layer);
    chosen.heads.clear();
    for (const h of heads) chosen.heads.add(h);
  }

  /** Draws the traced cell's panel from this forward's trace (or clears it if the cell no longer exists). */
  function showTraced(trace, pieces, H) {
    const T = pieces.length;
    fillSelect($('#trace-layer'), trace.layers.length, (l) => `layer ${l + 1}`);
    fillSelect($('#trace-head'), H, (h) => `head ${h + 1}`);
    fillSelect($('#trace-query'), T, (i) => `${i + 1}: ${shown(pieces[i])}`, T - 1); // the last token: what comes next
    fillSelect($('#trace-key'), T, (j) => `${j + 1}: ${shown(pieces[j])}`);
    const t = state.traced;
    if (t && (t[0] >= trace.layers.length || t[1] >= H || t[2] >= T || t[3] >= T)) state.traced = null;
    if (!state.traced) {
      panel.clear();
      return;
    }
    const [l, h, i, j] = state.traced;
    TRACE_SELECTS.forEach((sel, k) => ($(sel).value = String(state.traced[k])));
    const e = attn.explainScore(oneHead(trace.layers[l], h), i, j);
    panel.show(e, { i, j, queryLabel: shown(pieces[i]), keyLabels: pieces.map(shown), context: headName(l, h) });
  }

  /**
   * The model view: every layer and head as a small map in one grid (choose one to see it in full), and the chosen
   * head's map with its tokens, its values and its cells that trace; one button opens it in the head view.
   */
  function modelView(trace, pieces, H) {
    const T = pieces.length;
    const L = trace.layers.length;
    const maps = new Float32Array(L * H * T * T); // (L, H, T, T)
    trace.layers.forEach((layer, l) => maps.set(layer.weights.data.subarray(0, H * T * T), l * H * T * T));
    if (state.mapHead[0] >= L || state.mapHead[1] >= H) state.mapHead = [0, 0];
    const [ml, mh] = state.mapHead;
    const weightsOf = (l, h) => maps.subarray((l * H + h) * T * T, (l * H + h + 1) * T * T);
    headGrid($('[data-figure="model-attention"]'), { data: maps, shape: [L, H, T, T] }, {
      title: 'Every layer and head of the active model', selected: state.mapHead, off: state.switchedOff,
      onChoose: (l, h) => {
        state.mapHead = [l, h];
        state.mapChosen = true;
        draw();
      },
      onPoint: (l, h) => {
        if (l === null) return;
        const last = weightsOf(l, h).subarray((T - 1) * T);
        const focus = last.indexOf(Math.max(...last));
        $('#map-readout').textContent = `${headName(l, h)}${state.switchedOff.has(`${l}.${h}`) ? ' (switched off)' : ''}: ` +
          `the last token ${quote(shown(pieces[T - 1]))} looks hardest at ${quote(shown(pieces[focus]))} (${last[focus].toFixed(3)}). Enter or a click shows it in full.`;
      },
    });
    const labels = pieces.map(shown);
    heatmap($('[data-figure="head-map"]'), { data: weightsOf(ml, mh), shape: [T, T] }, {
      title: `Layer ${ml + 1}, head ${mh + 1}${state.switchedOff.has(`${ml}.${mh}`) ? ' (switched off)' : ''}`,
      rowLabels: labels, colLabels: labels, ...ATTENTION_AXES, note: WEIGHTS_NOTE, domain: WEIGHTS_DOMAIN, digits: 2, cellSize: 44,
      onCellClick: (i, j) => {
        state.traced = [ml, mh, i, j];
        draw();
      },
      cellPressed: (i, j) => state.traced?.[0] === ml && state.traced?.[1] === mh && state.traced?.[2] === i && state.traced?.[3] === j,
      cellAction: 'traces one below',
    });
    $('#open-head-view').textContent = `Open ${headName(ml, mh)} in the head view`;
  }

  /** The chosen map's cell under the pointer or the keyboard, read out in words. */
  function readCell(target) {
    const cell = target.closest?.('g.cell');
    if (!cell) return;
    const { pieces } = lastShown;
    const [l, h] = state.mapHead;
    const i = Number(cell.dataset.row), j = Number(cell.dataset.col);
    $('#map-readout').textContent = j > i
      ? `${headName(l, h)}: query ${quote(shown(pieces[i]))} cannot see key ${quote(shown(pieces[j]))}, which comes later.`
      : `${headName(l, h)}: query ${quote(shown(pieces[i]))} gives key ${quote(shown(pieces[j]))} a weight of ${Number(cell.dataset.value).toFixed(3)}.`;
  }

  const draw = perFrame(() => {
    const { model, tokenizer } = state.current();
    const figures = FIGURES.map((sel) => $(sel));
    // A word the model never saw is read as the nearest it knows, and the note under the text says which.
    const read = readNow($('#probe').value, tokenizer);
    $('#probe-replaced').textContent = replacedSentence(read.replaced, tokenizer.kind);
    if (read.ids.length === 0) {
      showProblem($('#probe'), 'Type a text: the maps need at least one word.');
      markStale(figures, true, 'Out of date: these figures redraw once the text above has a word.', { once: true });
      return;
    }
    const block = model.config.blockSize;
    showProblem($('#probe'), read.ids.length > block ? `The model reads at most ${block} tokens; only the first ${block} are shown.` : '');
    const ids = read.ids.slice(0, block);
    markStale(figures, false);
    try {
      const vocabulary = tokenizer.pieces;
      const pieces = ids.map((i) => vocabulary[i]);
      const { logits, trace } = model.forward(ids, { trace: true, headMask: headMask(state) });
      const T = ids.length;
      const H = model.config.nHead;
      const V = model.config.vocabSize;
      // What comes next: the five likeliest tokens after the last one.
      const probs = attn.softmax(attn.tensor(logits.data.slice((T - 1) * V, T * V), [V])).data;
      const top = [...probs.keys()].sort((a, b) => probs[b] - probs[a]).slice(0, 5);
      $('#probe-next').textContent = `Next token after ${quote(pieces[T - 1])}: ` +
        top.map((i) => `${quote(vocabulary[i])} ${(100 * probs[i]).toFixed(1)}%`).join(' · ');
      $('#probe-next').dataset.top = JSON.stringify(top.map((i) => vocabulary[i]));
      // Where each head looks from the last token.
      const focusOf = [];
      const looks = [];
      trace.layers.forEach((layer, l) => {
        for (let h = 0; h < H; h++) {
          const lastRow = layer.weights.data.subarray((h * T + T - 1) * T, (h + 1) * T * T);
          const focus = lastRow.indexOf(Math.max(...lastRow));
          focusOf.push(focus);
          const item = document.createElement('li');
          item.textContent = `${headName(l, h)}: ${quote(pieces[focus])} (${lastRow[focus].toFixed(2)})`;
          item.dataset.focus = String(focus);
          looks.push(item);
        }
      });
      $('#probe-heads').replaceChildren(...looks);
      flow.update({
        pieces,
        layers: trace.layers.map((layer) => Array.from({ length: H }, (_, h) => layer.weights.data.subarray((h * T + T - 1) * T, (h + 1) * T * T))),
        next: top.map((i) => ({ piece: vocabulary[i], p: probs[i] })),
        off: state.switchedOff,
      });
      lastShown = { pieces };
      report(null);
      // The maps in the next frame, so that neither frame blocks the page for long (page.js, perFrame).
      return [() => {
        modelView(trace, pieces, H);
        showTraced(trace, pieces, H);
        $('#probe-claim').textContent = claim(state.probeReport, pieces, focusOf, H);
        const layer = Number($('#head-view-layer').value) || 0;
        headView($('[data-figure="trained-head-view"]'), trace.layers[layer].weights.data, pieces.map(shown), {
          heads: H, shown: chosen.heads, label: `Head view of layer ${layer + 1} of the active model`, firstHead: layer * H,
        });
      }];
    } catch (error) {
      report(error);
    }
  });

  /** A new model: its layers in the head view's list, nothing chosen or traced yet. */
  function reset() {
    const { nLayer } = state.current().model.config;
    $('#head-view-layer').replaceChildren(...Array.from({ length: nLayer }, (_, l) => new Option(`layer ${l + 1}`, String(l))));
    chosen.heads.clear();
    chosen.chosen = false;
    state.traced = null;
    draw();
  }

  state.on('model', reset);
  state.on('heads', draw);
  state.on('redraw', draw);
  state.on('measured', () => {
    // Until the reader (or a link) picks a layer or heads, the head view shows the head that looks hardest at the subject.
    const r = state.probeReport;
    if (!chosen.chosen && r && !r.error) showInHeadView(r.bestLayer, [r.bestHead]);
    if (!state.mapChosen && r && !r.error) state.mapHead = [r.bestLayer, r.bestHead];
    draw();
  });
  $('#probe').addEventListener('input', draw);
  $('#trace').addEventListener('click', () => {
    state.traced = TRACE_SELECTS.map((sel) => Number($(sel).value));
    draw();
  });
  $('#head-view-layer').addEventListener('change', () => {
    chosen.chosen = true;
    chosen.heads.clear();
    draw();
  });
  $('[data-figure="trained-head-view"]').addEventListener('click', ({ target }) => {
    if (target.closest('button.head-button')) chosen.chosen = true; // the head view has already changed its heads
  });
  // The chosen map's cells read out as the pointer or the keyboard reaches them; its button opens it, alone, in the head view.
  for (const type of ['pointerover', 'focusin']) $('[data-figure="head-map"]').addEventListener(type, (event) => readCell(event.target));
  $('#open-head-view').addEventListener('click', () => {
    chosen.chosen = true;
    showInHeadView(state.mapHead[0], [state.mapHead[1]]);
    draw();
    const view = $('[data-figure="trained-head-view"]');
    view.scrollIntoView({ block: 'start' });
    view.tabIndex = -1;
    view.focus({ preventScroll: true });
  });
  return { draw, showInHeadView };
}
