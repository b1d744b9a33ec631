// Chapter 7: the tiny language model. The reader picks the active model (the
// shipped one, or one of theirs kept in this browser), generates from it, sees
// the attention of every layer and head on their text, measures what it
// learned in a worker, and trains new models in another worker. Every claim on
// the page about a head is computed from the active model.
import { bars } from '../components/bars.js';
import { confirmDialog } from '../components/confirm.js';
import { headColor, headView } from '../components/head-view.js';
import { cellAt, heatmapCanvas } from '../components/heatmap.js';
import { markStale, readNumber, showProblem } from '../components/inputs.js';
import { lineChart } from '../components/line-chart.js';
import { adoptLegacyModel, deleteModel, getActiveId, listModels, modelBytes, saveModel, setActiveId } from '../components/model-store.js';
import { chapter } from '../components/chapter.js';
import { kinds, linkState } from '../components/link-state.js';
import { perFrame, report } from '../components/page.js';
import { oneHead, scorePanel } from '../components/score-panel.js';
import { onThemeChange } from '../components/theme.js';

const nextTurn = () => new Promise((resolve) => setTimeout(resolve, 0));
const percent = (x) => `${(100 * x).toFixed(0)}%`;
const shown = (piece) => piece.replace(/\n/g, '↵');
const quote = (piece) => `“${shown(piece)}”`;

chapter(async (attn) => {
  const $ = (sel) => document.querySelector(sel);
  const shipped = await attn.loadDefaultModel();

  // ---- the active model: the shipped one (active === null) or one of the reader's
  let saved = []; // metadata of the reader's models (model-store.js)
  let active = null; // {meta, model, tokenizer, bytes}
  const current = () => active ?? shipped;
  let probeReport = null; // the active model's measurement, when it has arrived
  let link = null; // the page's state in its address (linkState), once the page has started

  /** Describes a checkpoint for the list: its size and tokens. */
  function describeBytes(bytes) {
    const ck = attn.loadCheckpoint(bytes);
    try {
      const c = ck.model.config;
      return { iter: ck.iter, layers: c.nLayer, heads: c.nHead, nEmbd: c.nEmbd, tokenizer: ck.tokenizer.kind };
    } finally {
      ck.model.dispose();
      ck.tokenizer.dispose();
    }
  }

  function renderList() {
    const list = $('#model-list');
    const item = (id, name, detail, meta) => {
      const li = document.createElement('li');
      li.dataset.model = id;
      const label = document.createElement('label');
      const radio = Object.assign(document.createElement('input'), { type: 'radio', name: 'active-model', value: id });
      radio.checked = (active?.meta.id ?? 'shipped') === id;
      radio.addEventListener('change', () => activate(id));
      label.append(radio, ` ${name} `);
      const small = Object.assign(document.createElement('span'), { className: 'note-text', textContent: detail });
      label.append(small);
      li.append(label);
      if (meta) {
        const download = Object.assign(document.createElement('button'), { type: 'button', textContent: 'Download', className: 'download' });
        download.setAttribute('aria-label', `Download ${name}`);
        download.addEventListener('click', () => downloadModel(meta));
        const remove = Object.assign(document.createElement('button'), { type: 'button', textContent: 'Delete', className: 'delete' });
        remove.setAttribute('aria-label', `Delete ${name}`);
        remove.addEventListener('click', () => removeModel(meta));
        li.append(download, remove);
      }
      return li;
    };
    const detail = (m) => `${m.layers} layers, ${m.heads} heads, n_embd ${m.nEmbd}, ${m.tokenizer === 'word' ? 'words' : 'characters'}` +
      `${m.iter != null ? `, step ${m.iter}` : ''} · ${m.source}`;
    list.replaceChildren(
      item('shipped', 'The shipped model', '2 layers, 4 heads, n_embd 64, words · trained on the agreement corpus by npm run train:model'),
      ...saved.map((m) => item(m.id, m.name, detail(m), m)),
    );
  }

  function describeActive() {
    const { model, tokenizer } = current();
    const c = model.config;
    const what = active
      ? `Active model: yours, “${active.meta.name}” (${c.nLayer} layers, ${c.nHead} heads, ${tokenizer.kind === 'word' ? 'words' : 'characters'}${active.meta.iter != null ? `, trained ${active.meta.iter} steps` : ''}).`
      : 'Active model: the shipped one (2 layers, 4 heads, trained on the agreement corpus).';
    $('#active-model').textContent = `${what} Everything below is computed from it.`;
    $('#active-model').dataset.active = active ? active.meta.id : 'shipped';
    $('#use-shipped').disabled = active === null;
    const pieces = tokenizer.pieces;
    $('#known-words summary').textContent = `The ${pieces.length} ${tokenizer.kind === 'word' ? 'words and marks' : 'characters'} this model can read`;
    $('#known-words-list').textContent = pieces.map(quote).join(' ');
  }

  async function activate(id) {
    const problem = $('#model-error');
    try {
      if (id === 'shipped') {
        disposeActive();
      } else {
        const meta = saved.find((m) => m.id === id);
        const bytes = await modelBytes(id);
        const ck = attn.loadCheckpoint(bytes); // a damaged file throws here; the active model stays
        disposeActive();
        active = { meta, model: ck.model, tokenizer: ck.tokenizer, bytes };
      }
      problem.hidden = true;
      await setActiveId(id);
    } catch (error) {
      problem.textContent = `That model could not be loaded, so the active one stays: ${error.message}`;
      problem.hidden = false;
    }
    renderList();
    modelChanged();
    link?.record();
  }

  function disposeActive() {
    active?.model.dispose();
    active?.tokenizer.dispose();
    active = null;
  }

  function modelChanged() {
    probeReport = null;
    describeActive();
    fillLayers();
    drawAttention();
    measure();
    showCurve();
  }

  async function downloadModel(meta) {
    const bytes = await modelBytes(meta.id);
    const url = URL.createObjectURL(new Blob([bytes], { type: 'application/octet-stream' }));
    const a = Object.assign(document.createElement('a'), { href: url, download: `${meta.name.replace(/[^\w.-]+/g, '-')}.safetensors` });
    a.click();
    setTimeout(() => URL.revokeObjectURL(url), 1000);
  }

  async function removeModel(meta) {
    if (!(await confirmDialog(`Delete “${meta.name}” from this browser? Its checkpoint, loss curve and samples go with it.`, { confirm: 'Delete', cancel: 'Keep it' }))) return;
    await deleteModel(meta.id);
    saved = await listModels();
    if (active?.meta.id === meta.id) await activate('shipped');
    else renderList();
  }

  // ---- what the active model learned, over 200 held-out sentences, in a worker
  const prober = new Worker(new URL('./probe-worker.js', import.meta.url), { type: 'module' });
  let probeRequest = 0;
  function measure() {
    const summary = $('#probe-summary');
    summary.textContent = 'Measuring on 200 held-out sentences…';
    delete summary.dataset.best;
    delete summary.dataset.accuracy;
    prober.postMessage({ id: ++probeRequest, bytes: active ? active.bytes.slice() : null, sentences: 200, headMask: headMask() });
  }
  prober.onmessage = ({ data }) => {
    if (data.id !== probeRequest) return; // the model changed since; a newer answer is coming
    const summary = $('#probe-summary');
    const figure = $('[data-figure="subject-attention"]');
    if (data.error) {
      summary.textContent = `This model cannot be measured on the agreement corpus: ${data.error}`;
      figure.replaceChildren();
      probeReport = { error: data.error };
      drawAttention();
      return;
    }
    const r = (probeReport = data.report);
    const H = current().model.config.nHead;
    const without = switchedOff.size ? `With ${switchedOffText()} switched off, it` : 'It';
    summary.textContent = `${without} prefers the agreeing verb form in ${percent(r.accuracy)} of ${r.sentences} sentences; ` +
      `layer ${r.bestLayer + 1}, head ${r.bestHead + 1} looks hardest at the subject, in ${percent(r.bestSubjectAttention)} of them.`;
    summary.dataset.accuracy = String(r.accuracy);
    summary.dataset.best = String(r.bestSubjectAttention);
    summary.dataset.bestHead = `${r.bestLayer},${r.bestHead}`;
    bars(figure, r.subjectAttention, {
      title: 'Share of sentences where the head looks hardest at the subject',
      labels: Array.from(r.subjectAttention, (_, i) => `L${Math.floor(i / H) + 1} H${(i % H) + 1}`),
      digits: 2,
      domain: [0, 1],
    });
    if (!headViewChosen) showInHeadView(r.bestLayer, [r.bestHead]);
    drawAttention();
  };

  // ---- generation, streamed a token at a time
  let stopGeneration = false;
  $('#generate').addEventListener('click', async () => {
    const { model, tokenizer } = current();
    const out = $('#generated');
    const temperature = readNumber($('#temperature'), { name: 'Temperature', min: 0, max: 10 });
    const topK = readNumber($('#top-k'), { name: 'Top-k', integer: true, min: 0, max: model.config.vocabSize });
    const maxNewTokens = readNumber($('#max-new'), { name: 'Tokens', integer: true, min: 1, max: 2000 });
    let ids = null;
    try {
      ids = tokenizer.encode($('#prompt').value).slice(-(model.config.blockSize - 1));
      showProblem($('#prompt'), ids.length === 0 ? 'Type a prompt first.' : '');
    } catch (error) {
      showProblem($('#prompt'), error.message);
    }
    if (!ids?.length || temperature === null || topK === null || maxNewTokens === null) return;
    out.textContent = tokenizer.decode(ids);
    out.dataset.state = 'streaming';
    stopGeneration = false;
    $('#generate').disabled = true;
    $('#stop-generate').disabled = false;
    try {
      for (const [id] of model.stream(ids, { maxNewTokens, temperature, topK })) {
        out.textContent += tokenizer.decode([id]);
        if (stopGeneration) break;
        await nextTurn();
      }
    } catch (error) {
      report(error);
    } finally {
      out.dataset.state = 'done';
      $('#generate').disabled = false;
      $('#stop-generate').disabled = true;
    }
  });
  $('#stop-generate').addEventListener('click', () => {
    stopGeneration = true;
  });

  // ---- heads switched off: a head mask (nLayer, nHead) for every forward and the measurement
  const switchedOff = new Set(); // "layer.head", 0-based
  /** The head mask of the switches, or null when every head is on. */
  function headMask() {
    if (switchedOff.size === 0) return null;
    const { nLayer, nHead } = current().model.config;
    const data = new Float32Array(nLayer * nHead).fill(1);
    for (const key of switchedOff) {
      const [l, h] = key.split('.').map(Number);
      data[l * nHead + h] = 0;
    }
    return { data, shape: [nLayer, nHead] };
  }
  /** "layer 2, head 4 and layer 1, head 1", for sentences. */
  const switchedOffText = () => [...switchedOff].sort().map((key) => {
    const [l, h] = key.split('.').map(Number);
    return `layer ${l + 1}, head ${h + 1}`;
  }).join(' and ');

  // ---- attention of every layer and head on the reader's text: what the last
  // token predicts and looks at, and the head view of one layer
  const headViewHeads = new Set([0]);
  // Until the reader (or a link) picks a layer or heads, the head view shows the head that looks hardest at the subject.
  let headViewChosen = false;
  function showInHeadView(layer, heads) {
    $('#head-view-layer').value = String(layer);
    headViewHeads.clear();
    for (const h of heads) headViewHeads.add(h);
  }

  const attentionFigures = ['#probe-claim', '#probe-next', '#probe-heads', '[data-figure="model-attention"]', '[data-figure="trained-head-view"]',
    '[data-score-panel]'];

  // ---- trace one number: [layer, head, query, key] of the map cell taken apart
  let traced = null;
  const panel = scorePanel($('[data-score-panel]'), { hint: 'No number traced yet: click a cell of a map above, or choose one and press “Trace this number”.' });
  /** Options 0 … n-1 named by label(k), keeping the chosen one when it still exists. */
  function fillSelect(select, n, label) {
    const chosen = select.value;
    select.replaceChildren(...Array.from({ length: n }, (_, k) => new Option(label(k), String(k))));
    if (Number(chosen) < n) select.value = chosen;
  }
  /** Draws the traced cell's panel from this forward's trace (or clears it if the cell no longer exists). */
  function showTraced(trace, pieces, H) {
    const T = pieces.length;
    fillSelect($('#trace-layer'), trace.layers.length, (l) => `layer ${l + 1}`);
    fillSelect($('#trace-head'), H, (h) => `head ${h + 1}`);
    fillSelect($('#trace-query'), T, (i) => `${i + 1}: ${shown(pieces[i])}`);
    fillSelect($('#trace-key'), T, (j) => `${j + 1}: ${shown(pieces[j])}`);
    if (traced && (traced[0] >= trace.layers.length || traced[1] >= H || traced[2] >= T || traced[3] >= T)) traced = null;
    if (!traced) {
      panel.clear();
      return;
    }
    const [l, h, i, j] = traced;
    ['#trace-layer', '#trace-head', '#trace-query', '#trace-key'].forEach((sel, k) => ($(sel).value = String(traced[k])));
    const e = attn.explainScore(oneHead(trace.layers[l], h), i, j);
    panel.show(e, { i, j, queryLabel: shown(pieces[i]), keyLabels: pieces.map(shown), context: `layer ${l + 1}, head ${h + 1}` });
  }
  $('#trace').addEventListener('click', () => {
    traced = ['#trace-layer', '#trace-head', '#trace-query', '#trace-key'].map((sel) => Number($(sel).value));
    drawAttention();
  });
  function fillLayers() {
    const { nLayer, nHead } = current().model.config;
    const select = $('#head-view-layer');
    select.replaceChildren(...Array.from({ length: nLayer }, (_, l) => new Option(`layer ${l + 1}`, String(l))));
    headViewHeads.clear();
    headViewChosen = false;
    traced = null; // a new model: nothing traced yet
    // One switch per head; a new model starts with every head on.
    switchedOff.clear();
    delete $('#head-switches').dataset.off;
    $('#head-switches').replaceChildren($('#head-switches legend'), ...Array.from({ length: nLayer }, (_, l) => {
      const group = document.createElement('div');
      group.className = 'layer';
      for (let h = 0; h < nHead; h++) {
        const label = document.createElement('label');
        const box = document.createElement('input');
        box.type = 'checkbox';
        box.checked = true;
        box.dataset.layer = String(l);
        box.dataset.head = String(h);
        label.append(box, ` layer ${l + 1}, head ${h + 1}`);
        group.appendChild(label);
      }
      return group;
    }));
  }

  /** Switches off exactly these heads ("layer.head", 0-based), ticks the switches to match, and says whether anything changed. */
  function switchOff(keys) {
    const before = [...switchedOff].sort().join(',');
    switchedOff.clear();
    for (const key of keys) switchedOff.add(key);
    for (const box of $('#head-switches').querySelectorAll('input')) box.checked = !switchedOff.has(`${box.dataset.layer}.${box.dataset.head}`);
    const after = [...switchedOff].sort().join(',');
    if (after) $('#head-switches').dataset.off = after;
    else delete $('#head-switches').dataset.off;
    return after !== before;
  }
  $('#head-switches').addEventListener('change', ({ target }) => {
    const key = `${target.dataset.layer}.${target.dataset.head}`;
    switchOff(target.checked ? [...switchedOff].filter((k) => k !== key) : [...switchedOff, key]);
    drawAttention();
    measure();
  });
  const drawAttention = perFrame(() => {
    const { model, tokenizer } = current();
    const grid = $('[data-figure="model-attention"]');
    const figures = attentionFigures.map((sel) => $(sel));
    let ids;
    try {
      ids = tokenizer.encode($('#probe').value);
      if (ids.length === 0) throw new Error('Type a text: at least one word the model knows.');
      const block = model.config.blockSize;
      showProblem($('#probe'), ids.length > block ? `The model reads at most ${block} tokens; only the first ${block} are shown.` : '');
      ids = ids.slice(0, block);
    } catch (error) {
      showProblem($('#probe'), `${error.message} The list of words it knows is under “What this model can read” above.`);
      markStale(figures, true);
      return;
    }
    markStale(figures, false);
    try {
      const vocabulary = tokenizer.pieces;
      const pieces = ids.map((i) => vocabulary[i]);
      const { logits, trace } = model.forward(ids, { trace: true, headMask: headMask() });
      const T = ids.length;
      const H = model.config.nHead;
      const V = model.config.vocabSize;
      const probs = attn.softmax(attn.tensor(logits.data.slice((T - 1) * V, T * V), [V])).data;
      const top = [...probs.keys()].sort((a, b) => probs[b] - probs[a]).slice(0, 5);
      $('#probe-next').textContent = `Next token after ${quote(pieces[T - 1])}: ` +
        top.map((i) => `${quote(vocabulary[i])} ${(100 * probs[i]).toFixed(1)}%`).join(' · ');
      $('#probe-next').dataset.top = JSON.stringify(top.map((i) => vocabulary[i]));
      const looks = [];
      const focusOf = [];
      grid.replaceChildren();
      trace.layers.forEach((layer, l) => {
        for (let h = 0; h < H; h++) {
          const weights = layer.weights.data.subarray(h * T * T, (h + 1) * T * T);
          const lastRow = weights.subarray((T - 1) * T, T * T);
          const focus = lastRow.indexOf(Math.max(...lastRow));
          focusOf.push(focus);
          const item = document.createElement('li');
          item.textContent = `layer ${l + 1}, head ${h + 1}: ${quote(pieces[focus])} (${lastRow[focus].toFixed(2)})`;
          item.dataset.focus = String(focus);
          looks.push(item);
          const cell = document.createElement('figure');
          cell.dataset.layer = String(l);
          cell.dataset.head = String(h);
          grid.appendChild(cell);
          heatmapCanvas(cell, { data: weights, shape: [T, T] }, {
            title: `layer ${l + 1}, head ${h + 1}${switchedOff.has(`${l}.${h}`) ? ' (switched off)' : ''}`,
            rowLabels: pieces.map(shown),
            colLabels: pieces.map(shown),
            cellSize: T > 40 ? 11 : T > 20 ? 12 : 15,
          });
          const open = document.createElement('button');
          open.type = 'button';
          open.className = 'open-head-view';
          open.textContent = 'Open in the head view';
          open.setAttribute('aria-label', `Open in the head view: layer ${l + 1}, head ${h + 1}`);
          cell.appendChild(open);
        }
      });
      $('#probe-heads').replaceChildren(...looks);
      showTraced(trace, pieces, H);
      $('#probe-claim').textContent = claim(pieces, focusOf, H);
      const layer = Number($('#head-view-layer').value) || 0;
      headView($('[data-figure="trained-head-view"]'), trace.layers[layer].weights.data, pieces.map(shown), {
        heads: H, shown: headViewHeads, label: `Head view of layer ${layer + 1} of the active model`,
      });
      report(null);
    } catch (error) {
      report(error);
    }
  });

  /** What the head that looks hardest at subjects does on this text, in words. */
  function claim(pieces, focusOf, H) {
    if (probeReport === null) return 'Measuring which head of this model looks at the subject…';
    if (probeReport.error) return 'This model was not trained on the agreement corpus, so no head of it has learned to find a subject.';
    const { bestLayer, bestHead, bestSubjectAttention } = probeReport;
    const T = pieces.length;
    const focus = focusOf[bestLayer * H + bestHead];
    return `In this model, layer ${bestLayer + 1}, head ${bestHead + 1} is the head that looks hardest at the subject ` +
      `(in ${percent(bestSubjectAttention)} of 200 held-out sentences). On your text, the bottom row of its map, the last token ` +
      `${quote(pieces[T - 1])} asking what comes next, is brightest at ${quote(pieces[focus])}, ${T - 1 - focus} tokens back.`;
  }
  $('#probe').addEventListener('input', drawAttention);
  onThemeChange(drawAttention); // the canvas maps take their label colour from the theme when they are drawn
  $('#head-view-layer').addEventListener('change', () => {
    headViewChosen = true;
    headViewHeads.clear();
    drawAttention();
  });
  $('[data-figure="trained-head-view"]').addEventListener('click', ({ target }) => {
    if (target.closest('button.head-button')) headViewChosen = true; // the head view has already changed its heads
  });
  // The model view's small maps open, one at a time, in the head view.
  $('[data-figure="model-attention"]').addEventListener('click', (event) => {
    const { target } = event;
    if (target.matches('canvas.heatmap-canvas')) {
      const at = cellAt(target, event);
      const figure = target.closest('figure');
      if (!at) return;
      traced = [Number(figure.dataset.layer), Number(figure.dataset.head), ...at];
      drawAttention();
      return;
    }
    const cell = target.closest('button.open-head-view')?.closest('figure');
    if (!cell) return;
    headViewChosen = true;
    showInHeadView(Number(cell.dataset.layer), [Number(cell.dataset.head)]);
    drawAttention();
    const view = $('[data-figure="trained-head-view"]');
    view.scrollIntoView({ block: 'start' });
    view.tabIndex = -1;
    view.focus({ preventScroll: true });
  });

  // ---- training in a worker: each run becomes a model of the list
  const worker = new Worker(new URL('./training-worker.js', import.meta.url), { type: 'module' });
  let run = null; // the run in progress: {meta, curve, samples}
  const chartHolder = $('[data-figure="loss-chart"]');
  /** The curve and samples of the run in progress, else of the active model. */
  function showCurve() {
    const source = run ?? active?.meta;
    $('#curve-heading').textContent = run ? `Loss and samples of “${run.meta.name}”, training now`
      : active ? `Loss and samples of “${active.meta.name}”` : 'Loss and samples (train a model to see its own)';
    const curve = source?.curve ?? { x: [], loss: [], val: [] };
    lineChart(chartHolder, {
      title: 'Loss (training steps; validation at evaluations)',
      x: curve.x,
      series: [{ label: 'train', values: curve.loss, color: 'var(--accent)' }, { label: 'val', values: curve.val, color: 'var(--values)', points: true }],
      xLabel: 'training step',
      yLabel: 'cross-entropy loss (nats)',
      description: 'Loss chart: x axis training step, y axis cross-entropy loss (nats); training loss per step, validation loss at evaluations',
    });
    $('#samples').replaceChildren(...(source?.samples ?? []).map((s) => Object.assign(document.createElement('li'), { textContent: `step ${s.iter}: ${s.text}` })));
    showHeads(source?.headShares);
  }

  // Each head's share of looking at the subject, by step: one line per head, agreement dashed.
  const headsHolder = $('[data-figure="heads-chart"]');
  function showHeads(heads) {
    headsHolder.replaceChildren();
    delete headsHolder.dataset.emergedAt;
    if (!heads?.x.length) {
      $('#heads-status').textContent = run ? (run.meta.source.includes('agreement') ? 'Measuring the heads every 50 steps…' : 'Heads are measured when a model trains on the agreement corpus.')
        : 'Train a model on the agreement corpus to watch its heads learn.';
      return;
    }
    const H = heads.nHead;
    const name = (k) => `layer ${Math.floor(k / H) + 1}, head ${(k % H) + 1}`;
    lineChart(headsHolder, {
      title: 'Share of held-out sentences in which each head looks hardest at the subject',
      x: heads.x,
      series: [...heads.shares.map((values, k) => ({ label: name(k), values, color: headColor(k) })),
        { label: 'agreement', values: heads.accuracy, color: 'var(--ink)', dash: true }],
      xLabel: 'training step',
      yLabel: 'share of sentences',
      yDomain: [0, 1],
      description: 'Heads chart: x axis training step, y axis share of sentences; one line per head, agreement dashed',
    });
    // The first measurement at which some head looks at the subject in at least 80 % of the sentences.
    const at = heads.x.findIndex((_, t) => heads.shares.some((line) => line[t] >= 0.8));
    const last = heads.x.length - 1;
    const best = heads.shares.reduce((b, line, k) => (line[last] > heads.shares[b][last] ? k : b), 0);
    if (at >= 0) {
      const k = heads.shares.findIndex((line) => line[at] >= 0.8);
      headsHolder.dataset.emergedAt = String(heads.x[at]);
      $('#heads-status').textContent = `${name(k)[0].toUpperCase()}${name(k).slice(1)} first looked hardest at the subject in ` +
        `${percent(heads.shares[k][at])} of the sentences at step ${heads.x[at]}; at step ${heads.x[last]} the best head is ` +
        `${name(best)} (${percent(heads.shares[best][last])}) and agreement is ${percent(heads.accuracy[last])}.`;
    } else {
      $('#heads-status').textContent = `No head looks at the subject in 80 % of the sentences yet: at step ${heads.x[last]} the best is ` +
        `${name(best)} (${percent(heads.shares[best][last])}), agreement ${percent(heads.accuracy[last])}.`;
    }
  }
  const redrawChart = perFrame(showCurve);
  const status = $('#train-status');
  const setRunning = (state) => {
    document.body.dataset.training = state;
    $('#train').disabled = state === 'running' || state === 'paused' || state === 'starting';
    $('#pause').disabled = state !== 'running';
    $('#resume').disabled = state !== 'paused';
    $('#stop').disabled = state !== 'running' && state !== 'paused';
  };

  worker.onmessage = async ({ data }) => {
    if (data.type === 'started') {
      setRunning('running');
      redrawChart();
    } else if (data.type === 'progress') {
      $('#progress').value = data.iter / data.iters;
      // Speed over the last steps (the steps alone, without evaluations), so it settles quickly and stays honest.
      run.stepMs.push(data.stepMs);
      if (run.stepMs.length > 20) run.stepMs.shift();
      const stepsPerSecond = (1000 * run.stepMs.length) / run.stepMs.reduce((a, b) => a + b, 0);
      status.dataset.stepsPerSecond = stepsPerSecond.toFixed(2);
      status.textContent =
        `step ${data.iter} of ${data.iters}: loss ${data.loss.toFixed(4)}, learning rate ${data.lr.toExponential(2)} · ` +
        `${stepsPerSecond.toFixed(1)} steps/s (${Math.round(stepsPerSecond * data.tokens).toLocaleString('en')} tokens/s)`;
      run.curve.x.push(data.iter);
      run.curve.loss.push(data.loss);
      run.curve.val.push(null);
      redrawChart();
    } else if (data.type === 'eval') {
      run.curve.x.push(data.iter + 0.5);
      run.curve.loss.push(null);
      run.curve.val.push(data.val);
      status.dataset.lastVal = String(data.val);
      if (status.dataset.firstVal === undefined) status.dataset.firstVal = String(data.val);
      redrawChart();
    } else if (data.type === 'heads') {
      run.headShares ??= { nHead: data.nHead, x: [], shares: data.subjectAttention.map(() => []), accuracy: [] };
      run.headShares.x.push(data.iter);
      data.subjectAttention.forEach((share, k) => run.headShares.shares[k].push(share));
      run.headShares.accuracy.push(data.accuracy);
      redrawChart();
    } else if (data.type === 'sample') {
      run.samples.push({ iter: data.iter, text: data.text });
      redrawChart();
    } else if (data.type === 'checkpoint') {
      await saveRun(data);
    } else if (data.type === 'error') {
      $('#train-error').textContent = data.started
        ? `Training stopped: ${data.message} What it had learned until then is saved in the list of models above.`
        : `This run could not start: ${data.message} Nothing was changed.`;
      $('#train-error').hidden = false;
      if (!data.started) {
        run = null;
        setRunning('idle');
        showCurve();
      }
    }
  };

  /** Saves the run's checkpoint as its own model (created on its first checkpoint, updated after). */
  async function saveRun({ bytes, iter, done }) {
    try {
      const meta = await saveModel({ ...run.meta, ...describeBytes(bytes), curve: run.curve, samples: run.samples, headShares: run.headShares }, bytes);
      run.meta = meta;
      saved = await listModels();
      status.dataset.savedIter = String(iter);
      if (done) {
        status.textContent += ` — done, and saved in this browser as “${meta.name}”.`;
        run = null;
        setRunning('done');
        await activate(meta.id);
      } else {
        renderList();
      }
    } catch (error) {
      report(error);
    }
  }

  $('#train').addEventListener('click', async () => {
    const layers = readNumber($('#layers'), { name: 'Layers', integer: true, min: 1, max: 6 });
    const heads = readNumber($('#train-heads'), { name: 'Heads', integer: true, min: 1, max: 8 });
    let embd = readNumber($('#embd'), { name: 'n_embd', integer: true, min: 8, max: 256 });
    if (embd !== null && heads !== null && embd % heads !== 0) {
      showProblem($('#embd'), `n_embd must be a multiple of the ${heads} heads; got ${embd}.`);
      embd = null;
    }
    const iters = readNumber($('#iters'), { name: 'Steps', integer: true, min: 1, max: 100000 });
    let text = null;
    const fromFile = $('#data-choice').value === 'file';
    const file = $('#data-file').files[0];
    showProblem($('#data-file'), fromFile && !file ? 'Choose a text file first (or train on the agreement corpus).' : '');
    if (layers === null || heads === null || embd === null || iters === null || (fromFile && !file)) return;
    // The corpus run is the shipped model's recipe (tools/train-default-model.sh), shortened: its corpus,
    // 32 tokens and batches of 32, so that the subject head appears in a minute or so.
    text = fromFile ? await file.text() : attn.agreementCorpus(30000, 1337);
    const tokenizer = $('#tokenizer-choice').value;
    $('#train-error').hidden = true;
    delete status.dataset.firstVal;
    run = {
      meta: { name: `Run of ${new Date().toLocaleString()}`, source: fromFile ? `trained here on ${file.name}` : 'trained here on the agreement corpus' },
      curve: { x: [], loss: [], val: [] },
      samples: [],
      headShares: null, // each head's share of looking at the subject, by step (agreement corpus only)
      stepMs: [], // the durations of the latest training steps, for the speed shown
    };
    setRunning('starting');
    worker.postMessage({
      type: 'start',
      text,
      iters,
      evalEvery: Math.max(10, Math.floor(iters / 10)),
      sampleEvery: Math.max(10, Math.floor(iters / 5)),
      prompt: 'The cats, which',
      probeEvery: fromFile ? 0 : 50,
      model: { nLayer: layers, nHead: heads, nEmbd: embd, nInner: 4 * embd, blockSize: fromFile ? 64 : 32, bias: false, attentionBias: false, tieEmbeddings: true, dropout: 0 },
      training: { batchSize: fromFile ? 16 : 32, learningRate: 3e-3, minLr: 3e-4, warmupIters: Math.min(100, iters - 1), lrDecayIters: Math.max(iters, 101), evalIters: 8, tokenizer, seed: 1337 },
    });
  });
  $('#pause').addEventListener('click', () => {
    worker.postMessage({ type: 'pause' });
    setRunning('paused');
  });
  $('#resume').addEventListener('click', () => {
    worker.postMessage({ type: 'resume' });
    setRunning('running');
  });
  $('#stop').addEventListener('click', () => worker.postMessage({ type: 'stop' }));
  $('#use-shipped').addEventListener('click', () => activate('shipped'));

  $('#upload').addEventListener('change', async (event) => {
    const input = event.target;
    const file = input.files[0];
    if (!file) return;
    try {
      const bytes = new Uint8Array(await file.arrayBuffer());
      const described = describeBytes(bytes); // a damaged or foreign file throws here; nothing is saved
      const name = file.name.replace(/\.safetensors$/, '');
      const same = saved.find((m) => m.name === name);
      const replace = same && (await confirmDialog(`A model named “${name}” is already saved. Replace it with this file?`, { confirm: 'Replace it', cancel: 'Keep both' }));
      const meta = await saveModel({ ...(replace ? { id: same.id, created: same.created } : {}), name: replace || !same ? name : `${name} (2)`,
        source: `uploaded from ${file.name}`, ...described }, bytes);
      saved = await listModels();
      showProblem(input, '');
      await activate(meta.id);
    } catch (error) {
      showProblem(input, `“${file.name}” was not added: ${error.message}`);
    } finally {
      input.value = '';
    }
  });

  // ---- start: the saved models, then the link's model (without one, the model that was active at the last
  // visit) and the rest of its settings
  await adoptLegacyModel(describeBytes).catch(() => null);
  saved = await listModels();
  const last = await getActiveId().catch(() => undefined);
  setRunning('idle');
  const config = () => current().model.config;
  /** How many tokens of `text` the maps show (0 if the model cannot read it). */
  const tokensIn = (text) => {
    try {
      return Math.min(config().blockSize, current().tokenizer.encode(text).length);
    } catch {
      return 0;
    }
  };
  const headName = ([l, h]) => `layer ${l + 1}, head ${h + 1}`;
  let started = false;
  const integer = (min, max) => kinds.integer({ min, max });
  link = linkState({
    model: {
      ...kinds.text({ maxLength: 64 }),
      default: last && saved.some((m) => m.id === last) ? last : 'shipped',
      always: true, // a link names its model, so that it opens the same one wherever the reader's last model was
      get: () => active?.meta.id ?? 'shipped',
      set: async (id, note) => {
        if (started && id === (active?.meta.id ?? 'shipped')) return;
        started = true;
        if (id !== 'shipped' && !saved.some((m) => m.id === id)) {
          note(`Its model “${id}” is not saved in this browser (it was deleted, or trained or uploaded in another browser), so the shipped model is shown.`);
          id = 'shipped';
        }
        await activate(id);
      },
    },
    off: {
      ...kinds.tuples({ size: 2, max: [64, 64], count: 64 * 64 }),
      default: [],
      get: () => [...switchedOff].map((key) => key.split('.').map(Number)).sort((a, b) => a[0] - b[0] || a[1] - b[1]),
      set: (heads, note) => {
        const { nLayer, nHead } = config();
        const absent = heads.filter(([l, h]) => l >= nLayer || h >= nHead);
        if (absent.length) note(`This model has no ${absent.map(headName).join(' or ')} to switch off.`);
        if (switchOff(heads.filter((lh) => !absent.includes(lh)).map(([l, h]) => `${l}.${h}`))) measure();
      },
    },
    text: { ...kinds.text({ maxLength: 2000 }), default: $('#probe').value, control: '#probe' },
    trace: {
      ...kinds.tuple({ size: 4, max: [64, 64, 4096, 4096] }),
      default: null,
      get: () => traced,
      set: (at, note) => {
        const inside = at === null || (at[0] < config().nLayer && at[1] < config().nHead && at[2] < tokensIn($('#probe').value) && at[3] < tokensIn($('#probe').value));
        if (!inside) note(`Its traced number (${headName(at)}, query ${at[2] + 1}, key ${at[3] + 1}) is outside the maps of this model and text.`);
        traced = inside ? at : null;
      },
    },
    head_view: {
      // "layer:head,head" (1-based); nothing while the head view shows the subject head
      parse: (text) => {
        const [, layer, heads] = /^(\d{1,2}):(\d{1,2}(?:,\d{1,2})*)$/.exec(text) ?? [];
        if (!layer || Number(layer) < 1 || heads.split(',').some((h) => Number(h) < 1)) throw new Error('must be a layer and its heads, like 2:4 or 2:1,4');
        return { layer: Number(layer) - 1, heads: heads.split(',').map((h) => Number(h) - 1) };
      },
      format: (view) => (view ? `${view.layer + 1}:${view.heads.map((h) => h + 1).join(',')}` : ''),
      default: null,
      get: () => (headViewChosen ? { layer: Number($('#head-view-layer').value), heads: [...headViewHeads].sort((a, b) => a - b) } : null),
      set: (view, note) => {
        const { nLayer, nHead } = config();
        if (view && (view.layer >= nLayer || view.heads.some((h) => h >= nHead))) {
          note(`Its head view shows heads this model does not have (layer ${view.layer + 1}, heads ${view.heads.map((h) => h + 1).join(', ')}).`);
          view = null;
        }
        headViewChosen = view !== null;
        if (view) showInHeadView(view.layer, view.heads);
        else if (probeReport && !probeReport.error) showInHeadView(probeReport.bestLayer, [probeReport.bestHead]);
      },
    },
    prompt: { ...kinds.text({ maxLength: 2000 }), default: $('#prompt').value, control: '#prompt' },
    temperature: { ...kinds.number({ min: 0, max: 10 }), default: 0.8, control: '#temperature' },
    top_k: { ...integer(0, 1e6), default: 0, control: '#top-k' },
    max_new_tokens: { ...integer(1, 2000), default: 60, control: '#max-new' },
    tokenizer: { ...kinds.oneOf(['word', 'char']), default: 'word', control: '#tokenizer-choice' },
    n_layer: { ...integer(1, 6), default: 2, control: '#layers' },
    n_head: { ...integer(1, 8), default: 4, control: '#train-heads' },
    n_embd: { ...integer(8, 256), default: 64, control: '#embd' },
    max_iters: { ...integer(1, 100000), default: 1200, control: '#iters' },
  }, { restore: drawAttention });
  await link.ready;
  await new Promise(requestAnimationFrame);
});
