// "Attention on your input": the active model's forward pass on the reader's
// text, with the switched-off heads off. What the last token predicts and
// where each head looks from it, every layer-and-head map (the model view),
// the head view of one layer, a sentence about the subject head, and one
// number of any map traced through its head. Redraws on 'model', 'heads',
// 'measured' and 'redraw'.
import { headView } from '../../components/head-view.js';
import { cellAt, heatmapCanvas } from '../../components/heatmap.js';
import { markStale, showProblem } from '../../components/inputs.js';
import { perFrame, report } from '../../components/page.js';
import { oneHead, scorePanel } from '../../components/score-panel.js';
import { onThemeChange } from '../../components/theme.js';
import { headMask } from './heads.js';
import { SENTENCES } from './probe.js';
import { headName, percent, quote, shown } from './state.js';

const $ = (sel) => document.querySelector(sel);
const FIGURES = ['#probe-claim', '#probe-next', '#probe-heads', '[data-figure="model-attention"]', '[data-figure="trained-head-view"]',
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
   * A small map that the keyboard reaches and that reads its cells out: a cursor moves with the arrow keys (and
   * follows the mouse), the readout under the grid names the query, the key and the weight, and Enter traces the
   * cell as a click does.
   */
  function reachable(canvas, weights, pieces, l, h) {
    const T = pieces.length;
    let cursor = [T - 1, 0];
    canvas.tabIndex = 0;
    canvas.setAttribute('aria-label', `${canvas.getAttribute('aria-label')}. Arrow keys move between cells, Enter traces one.`);
    const readout = () => {
      const [i, j] = cursor;
      $('#map-readout').textContent = j > i
        ? `${headName(l, h)}: query ${quote(shown(pieces[i]))} cannot see key ${quote(shown(pieces[j]))}, which comes later.`
        : `${headName(l, h)}: query ${quote(shown(pieces[i]))} gives key ${quote(shown(pieces[j]))} a weight of ${weights[i * T + j].toFixed(3)}.`;
    };
    canvas.addEventListener('mousemove', (event) => {
      const at = cellAt(canvas, event);
      if (!at) return;
      cursor = at;
      readout();
    });
    canvas.addEventListener('focus', readout);
    canvas.addEventListener('keydown', (event) => {
      const moves = { ArrowUp: [-1, 0], ArrowDown: [1, 0], ArrowLeft: [0, -1], ArrowRight: [0, 1] };
      if (event.key === 'Enter' || event.key === ' ') {
        event.preventDefault();
        state.traced = [l, h, ...cursor];
        draw();
        return;
      }
      if (!moves[event.key]) return;
      event.preventDefault();
      cursor = cursor.map((v, k) => Math.max(0, Math.min(T - 1, v + moves[event.key][k])));
      readout();
    });
  }

  /** The model view: one small map per layer and head, each with a button that opens it in the head view. */
  function modelView(trace, pieces, H) {
    const T = pieces.length;
    const grid = $('[data-figure="model-attention"]');
    grid.replaceChildren();
    grid.style.setProperty('--heads', String(H)); // a layers × heads grid: one row per layer
    trace.layers.forEach((layer, l) => {
      for (let h = 0; h < H; h++) {
        const cell = document.createElement('figure');
        cell.dataset.layer = String(l);
        cell.dataset.head = String(h);
        grid.appendChild(cell);
        heatmapCanvas(cell, { data: layer.weights.data.subarray(h * T * T, (h + 1) * T * T), shape: [T, T] }, {
          title: `${headName(l, h)}${state.switchedOff.has(`${l}.${h}`) ? ' (switched off)' : ''}`,
          rowLabels: pieces.map(shown),
          colLabels: pieces.map(shown),
          cellSize: T > 40 ? 11 : T > 20 ? 12 : 15,
        });
        reachable(cell.querySelector('canvas.heatmap-canvas'), layer.weights.data.subarray(h * T * T, (h + 1) * T * T), pieces, l, h);
        const open = Object.assign(document.createElement('button'), { type: 'button', className: 'open-head-view', textContent: 'Open in the head view' });
        open.setAttribute('aria-label', `Open in the head view: ${headName(l, h)}`);
        cell.appendChild(open);
      }
    });
  }

  const draw = perFrame(() => {
    const { model, tokenizer } = state.current();
    const figures = FIGURES.map((sel) => $(sel));
    let ids;
    try {
      ids = tokenizer.encode($('#probe').value);
      if (ids.length === 0) throw new Error('Type a text: at least one word the model knows.');
      const block = model.config.blockSize;
      showProblem($('#probe'), ids.length > block ? `The model reads at most ${block} tokens; only the first ${block} are shown.` : '');
      ids = ids.slice(0, block);
    } catch (error) {
      showProblem($('#probe'), unknownWordSentence(error, tokenizer.pieces) ?? error.message);
      markStale(figures, true, 'Out of date: these figures redraw once the text above can be read.', { once: true });
      return;
    }
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
      modelView(trace, pieces, H);
      showTraced(trace, pieces, H);
      $('#probe-claim').textContent = claim(state.probeReport, pieces, focusOf, H);
      const layer = Number($('#head-view-layer').value) || 0;
      headView($('[data-figure="trained-head-view"]'), trace.layers[layer].weights.data, pieces.map(shown), {
        heads: H, shown: chosen.heads, label: `Head view of layer ${layer + 1} of the active model`,
      });
      report(null);
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
    draw();
  });
  onThemeChange(draw); // the canvas maps take their label colour from the theme when they are drawn
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
  // A click on a cell of a small map traces it; its button opens the map, alone, in the head view.
  $('[data-figure="model-attention"]').addEventListener('click', (event) => {
    const { target } = event;
    if (target.matches('canvas.heatmap-canvas')) {
      const at = cellAt(target, event);
      const figure = target.closest('figure');
      if (!at) return;
      state.traced = [Number(figure.dataset.layer), Number(figure.dataset.head), ...at];
      draw();
      return;
    }
    const cell = target.closest('button.open-head-view')?.closest('figure');
    if (!cell) return;
    chosen.chosen = true;
    showInHeadView(Number(cell.dataset.layer), [Number(cell.dataset.head)]);
    draw();
    const view = $('[data-figure="trained-head-view"]');
    view.scrollIntoView({ block: 'start' });
    view.tabIndex = -1;
    view.focus({ preventScroll: true });
  });
  return { draw, showInHeadView };
}

/** Levenshtein distance, for suggesting the known words nearest a word the model cannot read. */
function editDistance(a, b) {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) row[j] = Math.min(previous[j] + 1, row[j - 1] + 1, previous[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    previous = row;
  }
  return previous[b.length];
}

/**
 * One plain sentence for a text the tokenizer refused (its Error names the piece: "word ' dog' at position 1 is not
 * in the vocabulary of 168 words"), with the three known pieces nearest it; null for any other error.
 */
export function unknownWordSentence(error, vocabulary) {
  const found = /(word|character) '([^]*)' (?:\([^)]*\) )?at position \d+ is not in the vocabulary of (\d+)/.exec(error.message);
  if (!found) return null;
  const [, unit, piece, size] = found;
  const plain = piece.trim() || piece;
  const word = /[\p{L}\p{N}]/u.test(plain);
  const nearest = [...vocabulary]
    .filter((known) => !word || /[\p{L}\p{N}]/u.test(known)) // a word's neighbours are words, not marks or spaces
    .map((known) => ({ known, d: editDistance(plain.toLowerCase(), known.trim().toLowerCase()) }))
    .sort((a, b) => a.d - b.d || a.known.localeCompare(b.known))
    .slice(0, 3)
    .map(({ known }) => `“${known.trim() || known}”`);
  return `This model does not know the ${unit} “${plain}”: it reads only the ${size} ${unit}s and marks of its corpus ` +
    `(listed under “What this model can read” above). Nearest it knows: ${nearest.join(', ')}.`;
}

