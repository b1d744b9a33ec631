// Chapter 9's views of the loaded model on the reader's text, each computed in the package's worker and drawn here:
// the text as tokens and the next-token guess, every head as a thumbnail (components/head-grid.js), a sortable table
// of what each head does (head-table.js), one head's full map (maps.js) with a traced number, and the head view of
// one layer. Only the latest request of each kind is sent (latest.js); an answer for a model since replaced is
// dropped.
import { bars } from '../../components/bars.js';
import { headGrid } from '../../components/head-grid.js';
import { formatNumber } from '../../components/heatmap.js';
import { headView } from '../../components/head-view.js';
import { markStale } from '../../components/inputs.js';
import { scorePanel } from '../../components/score-panel.js';
import { replacedSentence } from '../language-model/unknown-word.js';
import { drawHeadTable, headRows, headsCsv } from './head-table.js';
import { latestOnly, SKIPPED } from './latest.js';
import { fullMap } from './maps.js';
import { topTokens } from './next-tokens.js';
import { computeFailure } from './sentences.js';

const $ = (sel) => document.querySelector(sel);
const THUMBNAIL = 32; // cells a side of each head's small map
const HEAD_VIEW_TOKENS = 32; // the head view's lines stay readable up to about this many tokens

/**
 * The views of `session`'s model on what `prompt` reads. `state` holds the page's choices: headsOff (Set of
 * "layer.head"), selected ([layer, head] shown in full), sortBy, and link (recorded after a redraw).
 * Returns { analyse(), choose(l, h), headMask(), latest(): the latest analysis or null, clear() }.
 */
export function modelViews(session, prompt, state) {
  const run = latestOnly();
  let analysis = null; // { loaded, ids, pieces, replaced, stats, profile, layerWindow, thumbnails, next, nextWithAllHeads, nextLogits }
  let shownMap = null; // the one head drawn in full: { layer, head, pieces, map, full (HeadMap) }
  const panel = scorePanel($('[data-score-panel]'), { hint: 'Click a cell of the map above (or move to one with the arrow keys and press Enter) to take that weight apart.' });
  const shownHeads = new Set([0]);

  const headMask = () => {
    const m = session.loaded()?.info;
    if (!m || state.headsOff.size === 0) return null;
    const data = new Float32Array(m.nLayer * m.nHead).fill(1);
    for (const key of state.headsOff) {
      const [l, h] = key.split('.').map(Number);
      if (l < m.nLayer && h < m.nHead) data[l * m.nHead + h] = 0;
    }
    return { data, shape: [m.nLayer, m.nHead] };
  };

  /** fn(loaded) as the latest request of `kind`; its result, or SKIPPED (replaced, or its model is no longer loaded). */
  async function latest(kind, fn) {
    const loaded = session.loaded();
    if (!loaded) return SKIPPED;
    const result = await run(kind, () => (session.loaded() === loaded ? fn(loaded) : SKIPPED));
    return session.loaded() === loaded ? result : SKIPPED;
  }

  async function analyse() {
    const note = $('#text-note');
    note.textContent = 'Computing…';
    try {
      const result = await latest('analyse', async (loaded) => {
        const read = await prompt.read(loaded);
        if (read.problem) return read;
        const { remote } = session;
        const mask = headMask();
        const s = await remote.summarizeHeads(loaded.model, read.ids, { thumbnailSize: THUMBNAIL, headMask: mask });
        const base = mask ? await remote.summarizeHeads(loaded.model, read.ids, { thumbnailSize: 0 }) : null;
        return { loaded, ...read, s, base, prefixMatching: await loaded.prefixMatching };
      });
      if (result === SKIPPED) return;
      // The views of the last text stay, marked out of date, until the text can be read again.
      const views = () => [$('#tokens'), $('[data-figure="next-tokens"]'), $('#model-view'), $('[data-figure="one-head"]'),
        $('[data-score-panel]'), $('[data-figure="your-head-view"]')].filter(Boolean);
      markStale(views(), Boolean(result.problem), 'Out of date: these views redraw once the text above can be read.', { once: true });
      if (result.problem) {
        note.textContent = result.problem;
        return;
      }
      const { loaded, ids, replaced, cut, s, base, prefixMatching } = result;
      const pieces = ids.map(session.pieceOf);
      analysis = {
        loaded, ids, pieces, replaced,
        stats: { previousToken: s.previousToken.data, firstToken: s.firstToken.data, meanDistance: s.meanDistance.data, entropy: s.entropy.data, prefixMatching },
        profile: s.distanceProfile, layerWindow: Array.from(s.layerWindow.data), thumbnails: s.thumbnails,
        next: topTokens(s.nextLogits.data), nextWithAllHeads: base ? topTokens(base.nextLogits.data) : null, nextLogits: s.nextLogits,
      };
      note.textContent = [cut > 0 ? `The model reads ${loaded.info.blockSize.toLocaleString('en')} tokens at most: the first ${cut} tokens of your text are left out.`
        : `${pieces.length} tokens.`, replacedSentence(replaced, loaded.info.tokenizer)].filter(Boolean).join(' ');
      drawTokens();
      drawNext();
      drawModelView();
      drawTable();
      panel.clear();
      showHead();
      drawHeadView();
      state.onAnalysed?.();
      state.link?.record();
    } catch (error) {
      note.textContent = computeFailure(error);
    }
  }

  function drawTokens() {
    const replacedAt = new Map(analysis.replaced.map((r) => [r.at, r]));
    $('#tokens').replaceChildren(...analysis.pieces.map((p, i) => {
      const span = document.createElement('span');
      span.className = 'token';
      span.textContent = p.replace(/\n/g, '↵');
      const r = replacedAt.get(i);
      if (r) span.classList.add('replaced');
      span.title = r ? `token ${i + 1}: read as “${r.to}” for “${r.from}”, which this model never saw` : `token ${i + 1}`;
      return span;
    }));
  }

  function drawNext() {
    const label = (t) => JSON.stringify(session.pieceOf(t.id)).slice(1, -1);
    const off = state.headsOff.size;
    const title = off ? `The next token with ${off} head${off > 1 ? 's' : ''} switched off (outlines: every head on)`
      : 'The next token: the model\'s ten likeliest guesses';
    const ghost = analysis.nextWithAllHeads
      ? analysis.next.map((t) => analysis.nextWithAllHeads.find((u) => u.id === t.id)?.p ?? 0) : undefined;
    bars($('[data-figure="next-tokens"]'), analysis.next.map((t) => t.p),
      { title, labels: analysis.next.map(label), digits: 3, domain: [0, 1], ghost, ghostLabel: 'every head on' });
  }

  function drawModelView() {
    const m = analysis.loaded.info;
    // Today's families: query heads that share a key/value head drawn as one group, sliding-window layers marked.
    headGrid($('#model-view'), analysis.thumbnails, {
      title: 'Every layer and head', selected: state.selected, off: state.headsOff, onChoose: choose,
      groupSize: m.nHead / m.nKvHead, layerWindow: analysis.layerWindow,
      onPoint: (l, h) => ($('#grid-readout').textContent = l === null ? '' : headSentence(l, h)),
    });
  }

  /** What the head table says of one head, in a sentence (the grid's read-out). */
  function headSentence(l, h) {
    const k = l * analysis.loaded.info.nHead + h;
    const { previousToken, firstToken, meanDistance, entropy } = analysis.stats;
    return `Layer ${l + 1}, head ${h + 1}${state.headsOff.has(`${l}.${h}`) ? ' (switched off)' : ''}: ` +
      `${formatNumber(previousToken[k], 2)} of its attention on the previous token, ${formatNumber(firstToken[k], 2)} on the first, ` +
      `keys ${formatNumber(meanDistance[k], 1)} tokens back on average, entropy ${formatNumber(entropy[k], 2)}. Enter or a click opens it below.`;
  }

  const rows = () => headRows(analysis.stats, analysis.loaded.info, state.sortBy);
  function drawTable() {
    if (!analysis) return;
    drawHeadTable($('#head-table'), rows(), {
      sortBy: state.sortBy, selected: state.selected, headsOff: state.headsOff, onChoose: choose, profile: analysis.profile,
      onToggle: (l, h, inUse) => {
        if (inUse) state.headsOff.delete(`${l}.${h}`);
        else state.headsOff.add(`${l}.${h}`);
        analyse();
      },
    });
  }

  function choose(l, h) {
    state.selected = [l, h];
    $('#head-layer').value = String(l);
    $('#head-head').value = String(h);
    if (!analysis) return;
    drawModelView();
    drawTable();
    showHead();
    state.link?.record();
    $('[data-figure="one-head"]').scrollIntoView({ block: 'nearest', behavior: 'smooth' });
  }

  async function showHead() {
    if (!analysis) return;
    const [layer, head] = state.selected;
    const { ids, pieces } = analysis;
    try {
      const full = await latest('head', (loaded) => session.remote.headAttention(loaded.model, ids, layer, head, { headMask: headMask() }));
      if (full === SKIPPED) return;
      shownMap = { layer, head, pieces, map: full.weights, full };
      drawHead();
    } catch (error) {
      $('#cell-readout').textContent = computeFailure(error);
    }
  }

  function drawHead() {
    if (!shownMap) return;
    fullMap($('[data-figure="one-head"]'), shownMap, {
      zoom: Number($('#head-zoom').value),
      readout: (text) => ($('#cell-readout').textContent = text),
      onTrace: traceCell,
    });
  }

  async function traceCell(i, j) {
    if (j > i) {
      panel.clear();
      return; // a masked cell: nothing to take apart
    }
    const { layer, head, pieces, full } = shownMap;
    try {
      const explanation = await latest('trace', () => session.remote.explainScore(full, i, j));
      if (explanation === SKIPPED) return;
      panel.show(explanation, { i, j, queryLabel: pieces[i], keyLabels: pieces, context: `layer ${layer + 1}, head ${head + 1}` });
    } catch (error) {
      $('#cell-readout').textContent = computeFailure(error);
    }
  }

  /** One layer's heads as lines, over the text's last HEAD_VIEW_TOKENS tokens (their weights on earlier ones left out). */
  async function drawHeadView() {
    if (!analysis) return;
    const layer = Number($('#head-view-layer').value);
    const { ids, pieces } = analysis;
    try {
      const all = await latest('layer', (loaded) => session.remote.layerAttention(loaded.model, ids, layer, { headMask: headMask() }));
      if (all === SKIPPED) return;
      const [H, T] = all.shape;
      const W = Math.min(T, HEAD_VIEW_TOKENS);
      const data = new Float32Array(H * W * W);
      for (let h = 0; h < H; h++) {
        for (let i = 0; i < W; i++) data.set(all.data.subarray((h * T + T - W + i) * T + T - W, (h * T + T - W + i + 1) * T), (h * W + i) * W);
      }
      headView($('[data-figure="your-head-view"]'), data, pieces.slice(T - W),
        { heads: H, shown: shownHeads, label: `Layer ${layer + 1}`, firstHead: layer * H });
    } catch (error) {
      $('#grid-readout').textContent = computeFailure(error);
    }
  }

  for (const button of document.querySelectorAll('#head-table [data-sort]')) {
    button.addEventListener('click', () => {
      const key = button.dataset.sort;
      state.sortBy = { key, descending: state.sortBy.key === key ? !state.sortBy.descending : key !== 'index' };
      drawTable();
    });
  }
  $('#all-heads-on').addEventListener('click', () => {
    state.headsOff.clear();
    analyse();
  });
  $('#download-table').addEventListener('click', () => {
    if (!analysis) return;
    const a = document.createElement('a');
    a.href = URL.createObjectURL(new Blob([headsCsv(rows(), state.headsOff)], { type: 'text/csv' }));
    a.download = 'heads.csv';
    a.click();
    setTimeout(() => URL.revokeObjectURL(a.href), 1000);
  });
  $('#head-layer').addEventListener('change', () => choose(Number($('#head-layer').value), state.selected[1]));
  $('#head-head').addEventListener('change', () => choose(state.selected[0], Number($('#head-head').value)));
  $('#head-zoom').addEventListener('input', drawHead);
  $('#head-view-layer').addEventListener('change', drawHeadView);

  /** A new model: its layers and heads in the choices, nothing drawn of the one before. */
  function reset(info) {
    analysis = null;
    shownMap = null;
    const options = (n) => Array.from({ length: n }, (_, i) => new Option(String(i + 1), String(i)));
    $('#head-layer').replaceChildren(...options(info.nLayer));
    $('#head-view-layer').replaceChildren(...options(info.nLayer));
    $('#head-head').replaceChildren(...options(info.nHead));
    state.selected = [Math.min(state.selected[0], info.nLayer - 1), Math.min(state.selected[1], info.nHead - 1)];
    $('#head-layer').value = String(state.selected[0]);
    $('#head-head').value = String(state.selected[1]);
  }

  return { analyse, reset, headMask, latest: () => analysis };
}
