// Chapter 7: the tiny language model: generation from the shipped model,
// attention of every layer and head on the reader's input, and training in a
// Web Worker with a live loss curve, samples, pause/resume/stop, checkpoint
// download/upload, and the trained model kept in IndexedDB across reloads.
import 'uplot/dist/uPlot.min.css';

import { get, set } from 'idb-keyval';
import uPlot from 'uplot';

import { bars } from '../components/bars.js';
import { heatmapCanvas } from '../components/heatmap.js';
import { chapter, perFrame, report } from '../components/page.js';

const STORE_KEY = 'attention-step-by-step/trained-checkpoint';
const nextTurn = () => new Promise((resolve) => setTimeout(resolve, 0));

chapter(async (attn) => {
  const $ = (sel) => document.querySelector(sel);
  const shipped = await attn.loadDefaultModel();
  let trained = null; // {model, tokenizer, iter, bytes}
  const current = () => ($('#model-choice').value === 'trained' && trained ? trained : shipped);

  // ---- what the chosen model learned, over 200 held-out sentences, in a worker
  const prober = new Worker(new URL('./probe-worker.js', import.meta.url), { type: 'module' });
  const percent = (x) => `${(100 * x).toFixed(0)}%`;
  let probeRequest = 0;
  const measure = () => {
    const summary = $('#probe-summary');
    summary.textContent = 'Measuring on 200 held-out sentences…';
    delete summary.dataset.best;
    const bytes = current() === shipped ? null : current().bytes.slice();
    prober.postMessage({ id: ++probeRequest, bytes, sentences: 200 });
  };
  prober.onmessage = ({ data }) => {
    if (data.id !== probeRequest) return; // the model changed since; a newer answer is coming
    const summary = $('#probe-summary');
    const figure = $('[data-figure="subject-attention"]');
    if (data.error) {
      summary.textContent = `This model cannot be measured on the agreement corpus: ${data.error}`;
      figure.replaceChildren();
      return;
    }
    const r = data.report;
    const H = current().model.config.nHeads;
    summary.textContent = `It prefers the agreeing verb form in ${percent(r.accuracy)} of ${r.sentences} sentences; ` +
      `layer ${r.bestLayer + 1}, head ${r.bestHead + 1} looks hardest at the subject in ${percent(r.bestSubjectAttention)} of them.`;
    summary.dataset.accuracy = String(r.accuracy);
    summary.dataset.best = String(r.bestSubjectAttention);
    bars(figure, r.subjectAttention, {
      title: 'Share of sentences where the head looks hardest at the subject',
      labels: Array.from(r.subjectAttention, (_, i) => `L${Math.floor(i / H) + 1} H${(i % H) + 1}`),
      digits: 2,
      domain: [0, 1],
    });
  };

  // ---- the reader's own model: adopt checkpoint bytes (training, upload, IndexedDB)
  function adopt(bytes, source) {
    const ck = attn.loadCheckpoint(bytes); // throws on a bad file; the current model stays
    trained?.model.dispose();
    trained?.tokenizer.dispose();
    trained = { ...ck, bytes };
    let option = $('#model-choice option[value="trained"]');
    if (!option) {
      option = new Option('', 'trained');
      $('#model-choice').add(option);
    }
    option.textContent = `yours (${source})`;
    $('#trained-info').textContent = `Your model: ${ck.model.config.nLayers} layers, step ${ck.iter ?? '?'}, saved in this browser.`;
    $('#trained-info').dataset.iter = String(ck.iter ?? '');
    $('#download').disabled = false;
    if (current() === trained) measure();
  }
  const saved = await get(STORE_KEY).catch(() => undefined);
  if (saved instanceof Uint8Array) {
    try {
      adopt(saved, 'saved in this browser');
      $('#model-choice').value = 'trained';
    } catch (error) {
      report(new Error(`the model saved in this browser could not be read (${error.message})`));
    }
  }

  // ---- generation, streamed a token at a time
  let stopGeneration = false;
  $('#generate').addEventListener('click', async () => {
    const { model, tokenizer } = current();
    const out = $('#generated');
    let ids;
    try {
      ids = tokenizer.encode($('#prompt').value).slice(-(model.config.blockSize - 1));
      if (ids.length === 0) throw new Error('generate: type a prompt first');
      report(null);
    } catch (error) {
      report(error);
      return;
    }
    const options = {
      maxNewTokens: Math.max(1, Math.min(2000, $('#max-new').valueAsNumber || 60)),
      temperature: Math.max(0, $('#temperature').valueAsNumber || 0),
      topK: Math.max(0, Math.floor($('#top-k').valueAsNumber || 0)),
    };
    out.textContent = tokenizer.decode(ids);
    out.dataset.state = 'streaming';
    stopGeneration = false;
    $('#generate').disabled = true;
    $('#stop-generate').disabled = false;
    try {
      for (const [id] of model.stream(ids, options)) {
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

  // ---- attention of every layer and head on the reader's text, and what the
  // last token predicts and looks at
  const shown = (piece) => piece.replace(/\n/g, '↵');
  const quote = (piece) => `“${shown(piece)}”`;
  const drawAttention = perFrame(() => {
    const { model, tokenizer } = current();
    const grid = $('[data-figure="model-attention"]');
    try {
      const ids = tokenizer.encode($('#probe').value).slice(0, model.config.blockSize);
      if (ids.length === 0) return;
      const vocabulary = tokenizer.pieces;
      const pieces = ids.map((i) => vocabulary[i]);
      const { logits, trace } = model.forward(ids, { trace: true });
      const T = ids.length;
      const H = model.config.nHeads;
      const V = model.config.vocabSize;
      const probs = attn.softmax(attn.tensor(logits.data.slice((T - 1) * V, T * V), [V])).data;
      const top = [...probs.keys()].sort((a, b) => probs[b] - probs[a]).slice(0, 5);
      $('#probe-next').textContent = `Next token after ${quote(pieces[T - 1])}: ` +
        top.map((i) => `${quote(vocabulary[i])} ${(100 * probs[i]).toFixed(1)}%`).join(' · ');
      $('#probe-next').dataset.top = JSON.stringify(top.map((i) => vocabulary[i]));
      const looks = [];
      grid.replaceChildren();
      trace.layers.forEach((layer, l) => {
        for (let h = 0; h < H; h++) {
          const weights = layer.weights.data.subarray(h * T * T, (h + 1) * T * T);
          const lastRow = weights.subarray((T - 1) * T, T * T);
          const focus = lastRow.indexOf(Math.max(...lastRow));
          const item = document.createElement('li');
          item.textContent = `layer ${l + 1}, head ${h + 1}: ${quote(pieces[focus])} (${lastRow[focus].toFixed(2)})`;
          item.dataset.focus = String(focus);
          looks.push(item);
          const cell = document.createElement('figure');
          grid.appendChild(cell);
          heatmapCanvas(cell, { data: weights, shape: [T, T] }, {
            title: `layer ${l + 1}, head ${h + 1}`,
            rowLabels: pieces.map(shown),
            colLabels: pieces.map(shown),
            cellSize: T > 40 ? 7 : T > 20 ? 9 : 13,
          });
        }
      });
      $('#probe-heads').replaceChildren(...looks);
      report(null);
    } catch (error) {
      report(error);
    }
  });
  $('#probe').addEventListener('input', drawAttention);

  $('#model-choice').addEventListener('change', () => {
    drawAttention();
    measure();
  });
  drawAttention();
  measure();

  // ---- training in a worker
  const worker = new Worker(new URL('./training-worker.js', import.meta.url), { type: 'module' });
  const curve = { x: [], loss: [], val: [] };
  const chartHolder = $('[data-figure="loss-chart"]');
  const chart = new uPlot(
    {
      title: 'Loss (training steps; validation at evaluations)',
      width: Math.min(640, chartHolder.clientWidth || 640),
      height: 220,
      scales: { x: { time: false } },
      series: [{ label: 'step' }, { label: 'train', stroke: '#3b528b' }, { label: 'val', stroke: '#e5a50a', spanGaps: true, points: { show: true } }],
    },
    [[], [], []],
    chartHolder,
  );
  const redrawChart = perFrame(() => chart.setData([curve.x, curve.loss, curve.val]));
  const status = $('#train-status');
  const setRunning = (state) => {
    document.body.dataset.training = state;
    $('#train').disabled = state === 'running' || state === 'paused';
    $('#pause').disabled = state !== 'running';
    $('#resume').disabled = state !== 'paused';
    $('#stop').disabled = state !== 'running' && state !== 'paused';
  };

  worker.onmessage = async ({ data }) => {
    if (data.type === 'progress') {
      $('#progress').value = data.iter / data.iters;
      status.textContent = `step ${data.iter} of ${data.iters}: loss ${data.loss.toFixed(4)}, learning rate ${data.lr.toExponential(2)}`;
      curve.x.push(data.iter);
      curve.loss.push(data.loss);
      curve.val.push(null);
      redrawChart();
    } else if (data.type === 'eval') {
      curve.x.push(data.iter + 0.5);
      curve.loss.push(null);
      curve.val.push(data.val);
      status.dataset.lastVal = String(data.val);
      if (status.dataset.firstVal === undefined) status.dataset.firstVal = String(data.val);
      redrawChart();
    } else if (data.type === 'sample') {
      const li = document.createElement('li');
      li.textContent = `step ${data.iter}: ${data.text}`;
      $('#samples').appendChild(li);
    } else if (data.type === 'checkpoint') {
      try {
        adopt(data.bytes, `trained here, step ${data.iter}`);
        await set(STORE_KEY, data.bytes);
        if (data.done) {
          setRunning('done');
          status.textContent += ' — done, and saved in this browser.';
        }
      } catch (error) {
        report(error);
      }
    } else if (data.type === 'error') {
      report(new Error(data.message));
      setRunning('idle');
    }
  };

  $('#train').addEventListener('click', async () => {
    let text;
    try {
      if ($('#data-choice').value === 'file') {
        const file = $('#data-file').files[0];
        if (!file) throw new Error('training: choose a text file first');
        text = await file.text();
      } else {
        text = attn.agreementCorpus(4000, 7);
      }
    } catch (error) {
      report(error);
      return;
    }
    const embd = $('#embd').valueAsNumber;
    const iters = Math.max(1, Math.floor($('#iters').valueAsNumber || 1000));
    curve.x.length = curve.loss.length = curve.val.length = 0;
    delete status.dataset.firstVal;
    $('#samples').replaceChildren();
    report(null);
    setRunning('running');
    worker.postMessage({
      type: 'start',
      text,
      iters,
      evalEvery: Math.max(10, Math.floor(iters / 10)),
      sampleEvery: Math.max(10, Math.floor(iters / 5)),
      prompt: 'The cats, which',
      model: { nLayers: $('#layers').valueAsNumber, nHeads: $('#train-heads').valueAsNumber, dModel: embd, dFF: 4 * embd, blockSize: 64, bias: false, attentionBias: false, tieEmbeddings: true, dropout: 0 },
      training: { batchSize: 16, learningRate: 3e-3, minLr: 3e-4, warmupIters: Math.min(50, iters - 1), lrDecayIters: Math.max(iters, 51), evalIters: 8, tokenizer: $('#tokenizer-choice').value },
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

  $('#download').addEventListener('click', () => {
    if (!trained) return;
    const url = URL.createObjectURL(new Blob([trained.bytes], { type: 'application/octet-stream' }));
    const a = document.createElement('a');
    a.href = url;
    a.download = 'attention-model.safetensors';
    a.click();
    setTimeout(() => URL.revokeObjectURL(url), 1000);
  });
  $('#upload').addEventListener('change', async (event) => {
    const file = event.target.files[0];
    if (!file) return;
    try {
      const bytes = new Uint8Array(await file.arrayBuffer());
      adopt(bytes, `uploaded ${file.name}`);
      await set(STORE_KEY, bytes);
      $('#model-choice').value = 'trained';
      drawAttention();
      measure();
      report(null);
    } catch (error) {
      report(error);
    }
  });
  setRunning('idle');
  await new Promise(requestAnimationFrame);
});
