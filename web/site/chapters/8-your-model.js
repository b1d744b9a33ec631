// Chapter 9: a model the reader brings (a Hugging Face folder of GPT-2, Llama,
// Mistral, Qwen or Gemma 3, or a nanoGPT checkpoint converted to one). The model lives in a worker
// (your-model/worker.js) and the page only draws what it answers: the text's
// tokens and the next-token guess, every head as a thumbnail and one head's
// full map (your-model/maps.js), a sortable table of what each head does
// (your-model/head-table.js), heads switched off, the head view, a traced
// number and generation. The folder's files are kept in this browser
// (your-model/store.js) until the reader removes them; the link keeps
// everything but the model. This file holds the page's state and wires them.
import { bars } from '../components/bars.js';
import { markStale } from '../components/inputs.js';
import { markDrawn, samplingBars } from '../components/sampling-bars.js';
import { controls } from '../components/controls.js';
import { kinds, linkState } from '../components/link-state.js';
import { page, perFrame, report } from '../components/page.js';
import { headGrid } from '../components/head-grid.js';
import { formatNumber } from '../components/heatmap.js';
import { headView } from '../components/head-view.js';
import { scorePanel } from '../components/score-panel.js';
import { drawHeadTable, headRows, headsCsv } from './your-model/head-table.js';
import { fullMap } from './your-model/maps.js';
import { forgetFolder, keepFolder, keptFolder } from './your-model/store.js';
import { INPUT, YOUR_MODEL } from './settings.js';

const $ = (sel) => document.querySelector(sel);
const THUMBNAIL = 32; // cells a side of each head's small map
const FILES = 'config.json, model.safetensors (or its shards with model.safetensors.index.json), and tokenizer.json (or vocab.json with merges.txt)';
const HEAD_VIEW_TOKENS = 32; // the head view's lines stay readable up to about this many tokens

page(async () => {
  const settings = controls(YOUR_MODEL);
  const worker = new Worker(new URL('./your-model/worker.js', import.meta.url), { type: 'module' });
  let nextId = 0;
  const pending = new Map();
  const ask = (message, transfer = []) => new Promise((resolve, reject) => {
    const id = ++nextId;
    pending.set(id, { resolve, reject });
    worker.postMessage({ ...message, id }, transfer);
  });
  worker.onmessage = ({ data }) => {
    if (data.type === 'progress') return showProgress(data);
    if (data.type === 'token') return ($('#bring-generated').textContent += data.text);
    if (data.type === 'drawn') return markDrawn($('[data-figure="your-sampling"]'), $('#your-sampling-drawn'), sampled, data.id, data.piece);
    const waiting = pending.get(data.id);
    if (!waiting) return;
    pending.delete(data.id);
    if (data.type === 'error') waiting.reject(Object.assign(new Error(data.message), { aborted: data.aborted }));
    else waiting.resolve(data);
  };

  let model = null; // what the worker said about the loaded model
  let headsOff = new Set(); // "layer.head" of heads switched off
  let selected = [0, 0]; // the head shown in full
  let analysis = null;
  let sortBy = { key: 'index', descending: false };
  let analysed = 0; // the latest analysis asked for: older answers are dropped
  let link = null; // set once the page is wired (below)
  let linkedHeadsOff = null; // the heads a link switched off, applied to the first model loaded

  // ---- loading ------------------------------------------------------------------------------------------

  function showProgress({ loaded, total }) {
    $('#load-progress').max = total || 1;
    $('#load-progress').value = loaded;
    $('#load-status').textContent = `Reading the weights: ${(loaded / 2 ** 20).toFixed(0)} of ${(total / 2 ** 20).toFixed(0)} MiB`;
  }

  function describe(m) {
    // Today's families say what they change: key/value heads shared by groups of query heads, rotary positions,
    // sliding windows.
    const heads = m.nKvHead < m.nHead ? `${m.nHead} heads (reading ${m.nKvHead} key/value head${m.nKvHead === 1 ? '' : 's'})` : `${m.nHead} heads`;
    const positions = m.positions === 'rope' ? `${m.blockSize.toLocaleString('en')} rotary positions` : `${m.blockSize.toLocaleString('en')} positions`;
    const window = m.slidingWindow > 0 ? `, windows of ${m.slidingWindow.toLocaleString('en')} tokens` : '';
    return `${m.nLayer} layers of ${heads}, width ${m.nEmbd}, ${positions}${window}, ` +
      `${m.vocabSize.toLocaleString('en')} tokens (${{ bpe: 'byte-pair encoding', word: 'words and marks', char: 'characters' }[m.tokenizer] ?? m.tokenizer}), ` +
      `${(m.parameters / 1e6).toFixed(1)} M parameters`;
  }

  /**
   * files: the reader's folder (kept in the browser unless `kept` says it already is), or null for the site's own
   * model, chapter 8's: one click, nothing downloaded from elsewhere and nothing to keep.
   */
  async function load(files, { kept = null } = {}) {
    $('#load-error').hidden = true;
    $('#load-controls').hidden = false;
    $('#load-status').textContent = files ? 'Reading the files…' : 'Loading the site\'s own model…';
    try {
      const { model: m } = await ask(files ? { type: 'load', files } : { type: 'loadShipped' });
      model = m;
      $('#load-status').textContent = `Loaded${files ? '' : ' the site\'s own model'}: ${describe(m)}.`;
      $('#model-views').hidden = false;
      if (!files) {
        // Its text: words it knows (a word model refuses others), chapter 8's.
        settings.element('text').value = INPUT.text.default;
        $('#kept').hidden = true;
      } else if (!kept) {
        // Not awaited: the views draw while the browser writes the files, however long a large model takes.
        // Until it has, nothing is offered for removal: the folder kept before is being replaced.
        showKeeping();
        keepFolder(files, { name: files.map((f) => f.name).join(', '), model: m }).then(
          () => showKept({ saved: Date.now(), model: m }),
          (e) => showNotKept(`This browser would not keep the files (${e.message}); you will be asked for them again.`),
        );
      } else {
        showKept(kept);
      }
      applyLink();
      setUpHeadChoice();
      analyse();
    } catch (error) {
      $('#load-status').textContent = model ? `Still using: ${describe(model)}.` : '';
      if (!error.aborted) {
        $('#load-error').textContent = error.message;
        $('#load-error').hidden = false;
      } else {
        $('#load-status').textContent = 'Loading was cancelled.' + (model ? ` Still using: ${describe(model)}.` : '');
      }
    } finally {
      $('#load-controls').hidden = true;
    }
  }

  function showKept(kept) {
    $('#kept').hidden = false;
    $('#forget-model').hidden = false;
    $('#kept-note').textContent = `Kept in this browser since ${new Date(kept.saved).toLocaleString()}: a reload uses it without asking again.`;
  }

  function showKeeping() {
    $('#kept').hidden = false;
    $('#forget-model').hidden = true;
    $('#kept-note').textContent = 'Keeping the files in this browser, so that a reload does not ask for them again…';
  }

  /** Why the files are not kept (nothing to remove then). */
  function showNotKept(why) {
    $('#kept').hidden = false;
    $('#forget-model').hidden = true;
    $('#kept-note').textContent = why;
  }

  $('#load-shipped').addEventListener('click', () => load(null));
  $('#model-files').addEventListener('change', (e) => {
    const files = [...e.target.files];
    e.target.value = '';
    if (files.length) load(files);
  });
  const zone = $('#drop-zone');
  zone.addEventListener('dragover', (e) => {
    e.preventDefault();
    zone.classList.add('dragging');
  });
  zone.addEventListener('dragleave', () => zone.classList.remove('dragging'));
  zone.addEventListener('drop', (e) => {
    e.preventDefault();
    zone.classList.remove('dragging');
    const files = [...e.dataTransfer.files];
    if (files.length) load(files);
  });
  $('#cancel-load').addEventListener('click', () => worker.postMessage({ type: 'cancel' }));
  $('#forget-model').addEventListener('click', async () => {
    try {
      await forgetFolder();
    } catch (e) {
      $('#kept-note').textContent = `This browser would not remove the files (${e.message}); they may still be kept.`;
      return;
    }
    $('#kept').hidden = true;
    $('#load-status').textContent = model
      ? `Removed from this browser. The model stays loaded on this page until you leave it: ${describe(model)}.`
      : 'Removed from this browser.';
  });

  // ---- the text, the next token, every head -------------------------------------------------------------

  const headMask = () => {
    if (headsOff.size === 0) return null;
    const data = new Float32Array(model.nLayer * model.nHead).fill(1);
    for (const key of headsOff) {
      const [l, h] = key.split('.').map(Number);
      data[l * model.nHead + h] = 0;
    }
    return { data, shape: [model.nLayer, model.nHead] };
  };

  const analyse = perFrame(async () => {
    if (!model) return;
    const text = settings.read('text');
    if (text === null) return;
    if (text.trim().length === 0) {
      $('#text-note').textContent = 'Type some text: the maps need at least two tokens.';
      return;
    }
    const id = ++analysed;
    $('#text-note').textContent = 'Computing…';
    try {
      const result = await ask({ type: 'analyse', text, headMask: headMask(), thumbnail: THUMBNAIL });
      if (id !== analysed || result.type === 'skipped') return;
      analysis = result;
      drawSampling();
      $('#text-note').textContent = result.cut > 0
        ? `The model reads ${model.blockSize} tokens at most: the first ${result.cut} of your text are left out.`
        : `${result.pieces.length} tokens.`;
      drawTokens();
      drawNext();
      drawModelView();
      drawTable();
      showHead();
      drawHeadView();
      panel.clear();
      link?.record();
    } catch (error) {
      if (id !== analysed) return;
      $('#text-note').textContent = error.message;
    }
  });

  function drawTokens() {
    const list = $('#tokens');
    list.replaceChildren(...analysis.pieces.map((p, i) => {
      const span = document.createElement('span');
      span.className = 'token';
      span.textContent = p.replace(/\n/g, '↵');
      span.title = `token ${i + 1}`;
      return span;
    }));
  }

  function drawNext() {
    const figure = $('[data-figure="next-tokens"]');
    const label = (t) => JSON.stringify(t.piece).slice(1, -1);
    const title = headsOff.size
      ? `The next token with ${headsOff.size} head${headsOff.size > 1 ? 's' : ''} switched off (outlines: every head on)`
      : 'The next token: the model\'s ten likeliest guesses';
    const ghost = analysis.nextWithAllHeads
      ? analysis.next.map((t) => analysis.nextWithAllHeads.find((u) => u.id === t.id)?.p ?? 0)
      : undefined;
    bars(figure, analysis.next.map((t) => t.p), { title, labels: analysis.next.map(label), digits: 3, domain: [0, 1], ghost, ghostLabel: 'every head on' });
  }

  function drawModelView() {
    // Today's families: query heads that share a key/value head drawn as one group, sliding-window layers marked.
    headGrid($('#model-view'), analysis.thumbnails, {
      title: 'Every layer and head', selected, off: headsOff, onChoose: choose,
      groupSize: model.nHead / model.nKvHead, layerWindow: analysis.layerWindow,
      onPoint: (l, h) => ($('#grid-readout').textContent = l === null ? '' : headSentence(l, h)),
    });
  }

  /** What the head table says of one head, in a sentence (the grid's read-out). */
  function headSentence(l, h) {
    const k = l * model.nHead + h;
    const { previousToken, firstToken, meanDistance, entropy } = analysis.stats;
    return `Layer ${l + 1}, head ${h + 1}${headsOff.has(`${l}.${h}`) ? ' (switched off)' : ''}: ` +
      `${formatNumber(previousToken[k], 2)} of its attention on the previous token, ${formatNumber(firstToken[k], 2)} on the first, ` +
      `keys ${formatNumber(meanDistance[k], 1)} tokens back on average, entropy ${formatNumber(entropy[k], 2)}. Enter or a click opens it below.`;
  }

  const rows = () => headRows(analysis.stats, model, sortBy);
  function drawTable() {
    drawHeadTable($('#head-table'), rows(), {
      sortBy, selected, headsOff, onChoose: choose, profile: analysis.profile,
      onToggle: (l, h, inUse) => {
        if (inUse) headsOff.delete(`${l}.${h}`);
        else headsOff.add(`${l}.${h}`);
        analyse();
      },
    });
  }

  for (const button of document.querySelectorAll('#head-table [data-sort]')) {
    button.addEventListener('click', () => {
      const key = button.dataset.sort;
      sortBy = { key, descending: sortBy.key === key ? !sortBy.descending : key !== 'index' };
      if (analysis) drawTable();
    });
  }
  $('#all-heads-on').addEventListener('click', () => {
    headsOff.clear();
    analyse();
  });
  $('#download-table').addEventListener('click', () => {
    if (!analysis) return;
    const a = document.createElement('a');
    a.href = URL.createObjectURL(new Blob([headsCsv(rows(), headsOff)], { type: 'text/csv' }));
    a.download = 'heads.csv';
    a.click();
    setTimeout(() => URL.revokeObjectURL(a.href), 1000);
  });

  // ---- one head in full ---------------------------------------------------------------------------------

  function setUpHeadChoice() {
    const options = (n) => Array.from({ length: n }, (_, i) => new Option(String(i + 1), String(i)));
    $('#head-layer').replaceChildren(...options(model.nLayer));
    $('#head-view-layer').replaceChildren(...options(model.nLayer));
    $('#head-head').replaceChildren(...options(model.nHead));
    selected = [Math.min(selected[0], model.nLayer - 1), Math.min(selected[1], model.nHead - 1)];
    $('#head-layer').value = String(selected[0]);
    $('#head-head').value = String(selected[1]);
  }

  function choose(l, h) {
    selected = [l, h];
    $('#head-layer').value = String(l);
    $('#head-head').value = String(h);
    drawModelView();
    drawTable();
    showHead();
    link?.record();
    $('[data-figure="one-head"]').scrollIntoView({ block: 'nearest', behavior: 'smooth' });
  }
  $('#head-layer').addEventListener('change', () => choose(Number($('#head-layer').value), selected[1]));
  $('#head-head').addEventListener('change', () => choose(selected[0], Number($('#head-head').value)));

  let shownMap = null;
  const showHead = perFrame(async () => {
    const text = settings.read('text');
    if (!model || text === null) return;
    const [layer, head] = selected;
    try {
      const answer = await ask({ type: 'head', text, layer, head, headMask: headMask() });
      if (answer.type === 'skipped') return;
      shownMap = answer;
      drawHead();
    } catch (error) {
      report(error);
    }
  });

  function drawHead() {
    if (!shownMap) return;
    fullMap($('[data-figure="one-head"]'), shownMap, {
      zoom: Number($('#head-zoom').value),
      readout: (text) => ($('#cell-readout').textContent = text),
      onTrace: traceCell,
    });
  }
  $('#head-zoom').addEventListener('input', drawHead);

  const panel = scorePanel($('[data-score-panel]'), { hint: 'Click a cell of the map above (or move to one with the arrow keys and press Enter) to take that weight apart.' });
  async function traceCell(i, j) {
    if (j > i) {
      panel.clear();
      return; // a masked cell: nothing to take apart
    }
    const [layer, head] = selected;
    try {
      const t = await ask({ type: 'trace', text: settings.read('text'), layer, head, i, j, headMask: headMask() });
      if (t.type === 'skipped') return;
      panel.show(t.explanation, { i, j, queryLabel: t.pieces[i], keyLabels: t.pieces, context: `layer ${layer + 1}, head ${head + 1}` });
    } catch (error) {
      report(error);
    }
  }

  // ---- the head view: one layer's heads as lines ------------------------------------------------------------

  const shownHeads = new Set([0]);
  const drawHeadView = perFrame(async () => {
    const text = settings.read('text');
    if (!model || text === null) return;
    const layer = Number($('#head-view-layer').value);
    try {
      const answer = await ask({ type: 'layer', text, layer, window: HEAD_VIEW_TOKENS, headMask: headMask() });
      if (answer.type === 'skipped') return;
      const { map, pieces } = answer;
      headView($('[data-figure="your-head-view"]'), map.data, pieces, { heads: model.nHead, shown: shownHeads, label: `Layer ${layer + 1}`, firstHead: layer * model.nHead });
    } catch (error) {
      report(error);
    }
  });
  $('#head-view-layer').addEventListener('change', drawHeadView);

  // ---- generation -----------------------------------------------------------------------------------------

  // Sampling made visible: the token after the text as the model gives it (outlines) and as the temperature and
  // top-k leave it (bars, what Generate draws from); Generate marks the token it drew first.
  let sampled = null; // the sampling figure's candidates {ids, pieces, own, after}, likeliest first
  const drawSampling = perFrame(async () => {
    const temperature = settings.read('temperature');
    const topK = settings.read('top_k', { max: model?.vocabSize });
    const ok = Boolean(model && analysis) && temperature !== null && topK !== null;
    markStale([$('[data-figure="your-sampling"]')], !ok);
    if (!ok) return;
    const s = await ask({ type: 'sampling', temperature, top_k: topK });
    sampled = s;
    samplingBars($('[data-figure="your-sampling"]'), s, { temperature, topK });
  });
  for (const name of ['temperature', 'top_k']) settings.element(name).addEventListener('input', drawSampling);

  $('#bring-generate').addEventListener('click', async () => {
    const text = settings.read('text');
    const temperature = settings.read('temperature');
    const topK = settings.read('top_k', { max: model?.vocabSize });
    const maxNew = settings.read('max_new_tokens', { max: Math.max(1, (model?.blockSize ?? 2) - 1) });
    if (!model || [text, temperature, topK, maxNew].includes(null)) return;
    $('#bring-generated').textContent = '';
    $('#bring-generate').disabled = true;
    $('#bring-stop').disabled = false;
    try {
      await ask({ type: 'generate', text, temperature, top_k: topK, max_new_tokens: maxNew });
    } catch (error) {
      $('#bring-generated').textContent += `\n[${error.message}]`;
    } finally {
      $('#bring-generate').disabled = false;
      $('#bring-stop').disabled = true;
    }
  });
  $('#bring-stop').addEventListener('click', () => worker.postMessage({ type: 'stop' }));

  settings.element('text').addEventListener('input', analyse);

  // ---- the link: everything but the model ------------------------------------------------------------------

  const openedFromLink = location.search !== ''; // before the link state rewrites the address
  link = linkState({
    ...settings.fields,
    head: {
      ...kinds.tuple({ size: 2, max: [1024, 4096] }),
      default: [0, 0],
      get: () => selected,
      set: (at) => {
        selected = at;
      },
    },
    off: {
      ...kinds.tuples({ size: 2, max: [1024, 4096], count: 4096 }),
      default: [],
      get: () => [...headsOff].map((k) => k.split('.').map(Number)),
      set: (list) => {
        headsOff = new Set(list.map(([l, h]) => `${l}.${h}`));
        linkedHeadsOff = headsOff;
      },
    },
  }, { restore: () => analyse() });
  await link.ready;

  /** A link's heads were read before any model was loaded: those outside the first model loaded are dropped. */
  function applyLink() {
    const inside = ([l, h]) => l < model.nLayer && h < model.nHead;
    headsOff = new Set([...(linkedHeadsOff ?? [])].filter((k) => inside(k.split('.').map(Number))));
    linkedHeadsOff = null;
    selected = [Math.min(selected[0], model.nLayer - 1), Math.min(selected[1], model.nHead - 1)];
  }

  const kept = await keptFolder().catch(() => null);
  if (kept) {
    $('#load-status').textContent = 'Loading the model kept in this browser…';
    await load(kept.files, { kept });
  } else if (openedFromLink) {
    $('#load-status').textContent = `This link shows a model's heads; choose that model's files to see them: ${FILES}.`;
  }
});
