// Chapter 8: a model the reader brings (a Hugging Face GPT-2 folder, or a
// nanoGPT checkpoint converted to one). The model lives in a worker
// (your-model/worker.js) and the page only draws what it answers: the text's
// tokens and the next-token guess, every head as a thumbnail, one head's full
// map with zoom, a sortable table of what each head does, heads switched off,
// and generation. The folder's files are kept in this browser
// (your-model/store.js) until the reader removes them; the link keeps
// everything but the model.
import * as d3 from 'd3';

import { bars } from '../components/bars.js';
import { controls } from '../components/controls.js';
import { kinds, linkState } from '../components/link-state.js';
import { page, perFrame, report } from '../components/page.js';
import { headView } from '../components/head-view.js';
import { exportMenu } from '../components/figure-export.js';
import { formatNumber } from '../components/heatmap.js';
import { scorePanel } from '../components/score-panel.js';
import { forgetFolder, keepFolder, keptFolder } from './your-model/store.js';
import { YOUR_MODEL } from './settings.js';

const $ = (sel) => document.querySelector(sel);
const THUMBNAIL = 32; // cells a side of each head's small map
const FILES = 'config.json, model.safetensors, and vocab.json with merges.txt (or tokenizer.json)';
const STATS = ['previousToken', 'firstToken', 'meanDistance', 'entropy'];
const HEAD_VIEW_TOKENS = 32; // the head view's lines stay readable up to about this many tokens

// viridis as 256 RGB triples, for maps drawn pixel by pixel
const VIRIDIS = Array.from({ length: 256 }, (_, i) => {
  const { r, g, b } = d3.rgb(d3.interpolateViridis(i / 255));
  return [r, g, b];
});

/** Paints a (rows, cols) block of weights in [0, 1] into an ImageData, one pixel a cell. */
function paint(ctx, data, rows, cols, offset = 0) {
  const image = ctx.createImageData(cols, rows);
  for (let k = 0; k < rows * cols; k++) {
    const [r, g, b] = VIRIDIS[Math.max(0, Math.min(255, Math.round(data[offset + k] * 255)))];
    image.data.set([r, g, b, 255], k * 4);
  }
  ctx.putImageData(image, 0, 0);
}

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
    return `${m.nLayer} layers of ${m.nHead} heads, width ${m.nEmbd}, ${m.blockSize} positions, ` +
      `${m.vocabSize.toLocaleString('en')} tokens (${m.tokenizer === 'bpe' ? "GPT-2's byte-level BPE" : 'characters'}), ` +
      `${(m.parameters / 1e6).toFixed(1)} M parameters`;
  }

  async function load(files, { kept = null } = {}) {
    $('#load-error').hidden = true;
    $('#load-controls').hidden = false;
    $('#load-status').textContent = 'Reading the files…';
    try {
      const { model: m } = await ask({ type: 'load', files });
      model = m;
      $('#load-status').textContent = `Loaded: ${describe(m)}.`;
      $('#model-views').hidden = false;
      if (!kept) {
        await keepFolder(files, { name: files.map((f) => f.name).join(', '), model: m }).then(
          () => showKept({ saved: Date.now(), model: m }),
          (e) => ($('#kept-note').textContent = `This browser would not keep the files (${e.message}); you will be asked for them again.`),
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
    $('#kept-note').textContent = `Kept in this browser since ${new Date(kept.saved).toLocaleString()}: a reload uses it without asking again.`;
  }

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
    await forgetFolder();
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
    const { nLayer, nHead } = model;
    const { data, shape } = analysis.thumbnails;
    const S = shape[2];
    const grid = $('#model-view');
    grid.style.setProperty('--heads', nHead);
    const cells = [];
    const corner = document.createElement('span');
    cells.push(corner);
    for (let h = 0; h < nHead; h++) {
      const label = document.createElement('span');
      label.className = 'axis';
      label.textContent = `h${h + 1}`;
      cells.push(label);
    }
    for (let l = 0; l < nLayer; l++) {
      const label = document.createElement('span');
      label.className = 'axis';
      label.textContent = `L${l + 1}`;
      cells.push(label);
      for (let h = 0; h < nHead; h++) {
        const button = document.createElement('button');
        button.type = 'button';
        button.className = 'thumb';
        const off = headsOff.has(`${l}.${h}`);
        button.setAttribute('aria-label', `Layer ${l + 1}, head ${h + 1}${off ? ' (switched off)' : ''}: open its map`);
        button.setAttribute('aria-pressed', String(selected[0] === l && selected[1] === h));
        if (off) button.classList.add('off');
        const canvas = document.createElement('canvas');
        canvas.width = S;
        canvas.height = S;
        paint(canvas.getContext('2d'), data, S, S, (l * nHead + h) * S * S);
        button.append(canvas);
        button.addEventListener('click', () => choose(l, h));
        cells.push(button);
      }
    }
    grid.replaceChildren(...cells);
  }

  function rows() {
    const { nLayer, nHead } = model;
    const list = [];
    for (let l = 0; l < nLayer; l++) {
      for (let h = 0; h < nHead; h++) {
        const k = l * nHead + h;
        list.push({ l, h, index: k, ...Object.fromEntries(STATS.map((s) => [s, analysis.stats[s][k]])) });
      }
    }
    const sign = sortBy.descending ? -1 : 1;
    return list.sort((a, b) => sign * (a[sortBy.key] - b[sortBy.key]) || a.index - b.index);
  }

  function drawTable() {
    const body = $('#head-table tbody');
    body.replaceChildren(...rows().map((r) => {
      const tr = document.createElement('tr');
      if (selected[0] === r.l && selected[1] === r.h) tr.className = 'selected';
      const open = document.createElement('button');
      open.type = 'button';
      open.textContent = `L${r.l + 1} · h${r.h + 1}`;
      open.setAttribute('aria-label', `Open layer ${r.l + 1}, head ${r.h + 1}`);
      open.addEventListener('click', () => choose(r.l, r.h));
      const first = document.createElement('th');
      first.scope = 'row';
      first.append(open);
      tr.append(first);
      for (const s of STATS) {
        const td = document.createElement('td');
        td.textContent = formatNumber(r[s], s === 'meanDistance' || s === 'entropy' ? 2 : 3);
        tr.append(td);
      }
      const use = document.createElement('td');
      const box = document.createElement('input');
      box.type = 'checkbox';
      box.checked = !headsOff.has(`${r.l}.${r.h}`);
      box.setAttribute('aria-label', `Layer ${r.l + 1}, head ${r.h + 1} in use`);
      box.addEventListener('change', () => {
        if (box.checked) headsOff.delete(`${r.l}.${r.h}`);
        else headsOff.add(`${r.l}.${r.h}`);
        analyse();
      });
      use.append(box);
      tr.append(use);
      return tr;
    }));
    for (const button of document.querySelectorAll('#head-table [data-sort]')) {
      const th = button.closest('th');
      th.setAttribute('aria-sort', button.dataset.sort === sortBy.key ? (sortBy.descending ? 'descending' : 'ascending') : 'none');
    }
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
    const lines = ['layer,head,previous_token,first_token,mean_distance,entropy,in_use',
      ...rows().map((r) => [r.l + 1, r.h + 1, ...STATS.map((s) => r[s]), !headsOff.has(`${r.l}.${r.h}`)].join(','))];
    const a = document.createElement('a');
    a.href = URL.createObjectURL(new Blob([lines.join('\n') + '\n'], { type: 'text/csv' }));
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
    const figure = $('[data-figure="one-head"]');
    const T = shownMap.map.shape[0];
    const zoom = Number($('#head-zoom').value);
    const scale = Math.max(1, Math.round((zoom * 512) / Math.max(T, 64)));
    const caption = document.createElement('figcaption');
    caption.textContent = `Layer ${shownMap.layer + 1}, head ${shownMap.head + 1}: ${T} × ${T} weights (rows: query, columns: key; each row sums to 1)`;
    const canvas = document.createElement('canvas');
    canvas.width = T;
    canvas.height = T;
    canvas.className = 'full-map';
    canvas.style.width = `${T * scale}px`;
    canvas.style.height = `${T * scale}px`;
    canvas.tabIndex = 0;
    canvas.setAttribute('role', 'img');
    canvas.setAttribute('aria-label', `${caption.textContent}. Arrow keys move through its cells.`);
    paint(canvas.getContext('2d'), shownMap.map.data, T, T);
    let cursor = [T - 1, T - 1];
    const readout = () => {
      const [i, j] = cursor;
      const w = shownMap.map.data[i * T + j];
      const piece = (k) => JSON.stringify(shownMap.pieces[k]);
      $('#cell-readout').textContent = j > i
        ? `Query ${i + 1} ${piece(i)} cannot see key ${j + 1} ${piece(j)}: it comes later (masked).`
        : `Query ${i + 1} ${piece(i)} gives key ${j + 1} ${piece(j)} a weight of ${formatNumber(w, 4)}.`;
    };
    canvas.addEventListener('mousemove', (e) => {
      const box = canvas.getBoundingClientRect();
      cursor = [Math.min(T - 1, Math.floor(((e.clientY - box.top) / box.height) * T)), Math.min(T - 1, Math.floor(((e.clientX - box.left) / box.width) * T))];
      readout();
    });
    canvas.addEventListener('click', (e) => {
      const box = canvas.getBoundingClientRect();
      cursor = [Math.min(T - 1, Math.floor(((e.clientY - box.top) / box.height) * T)), Math.min(T - 1, Math.floor(((e.clientX - box.left) / box.width) * T))];
      readout();
      traceCell(...cursor);
    });
    canvas.addEventListener('keydown', (e) => {
      if (e.key === 'Enter') {
        e.preventDefault();
        traceCell(...cursor);
        return;
      }
      const moves = { ArrowUp: [-1, 0], ArrowDown: [1, 0], ArrowLeft: [0, -1], ArrowRight: [0, 1] };
      if (!moves[e.key]) return;
      e.preventDefault();
      cursor = cursor.map((v, k) => Math.max(0, Math.min(T - 1, v + moves[e.key][k])));
      readout();
    });
    figure.replaceChildren(caption, canvas);
    exportMenu(figure, canvas, { title: caption.textContent, rowLabels: shownMap.pieces, colLabels: shownMap.pieces,
      values: Array.from(shownMap.map.data), rows: T, cols: T }, `layer ${shownMap.layer + 1} head ${shownMap.head + 1}`);
    readout();
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
      headView($('[data-figure="your-head-view"]'), map.data, pieces, { heads: model.nHead, shown: shownHeads, label: `Layer ${layer + 1}` });
    } catch (error) {
      report(error);
    }
  });
  $('#head-view-layer').addEventListener('change', drawHeadView);

  // ---- generation -----------------------------------------------------------------------------------------

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
