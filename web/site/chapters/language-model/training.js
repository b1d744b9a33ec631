// "Train your own": a run in a worker (training-worker.js) with the reader's
// model shape and length (chapters/settings.js's TRAINING) and the chapter's
// recipe (RECIPE); its loss curve, samples and, on the agreement corpus, each
// head's share of looking at the subject while it learns. Each run becomes a
// model of the list, saved at every checkpoint, and active when it is done.
import { headColor } from '../../components/head-view.js';
import { showProblem } from '../../components/inputs.js';
import { lineChart } from '../../components/line-chart.js';
import { perFrame, report } from '../../components/page.js';
import { LIVE_REDRAW_MS, RECIPE, trainingRun } from '../settings.js';
import { headName, percent } from './state.js';

const $ = (sel) => document.querySelector(sel);
const EMERGED = 0.8; // a head "has emerged" once it looks hardest at the subject in this share of sentences

/** settings: controls() of TRAINING; models: models.js's list. */
export function training(state, settings, models) {
  const { attn } = state;
  const worker = new Worker(new URL('./training-worker.js', import.meta.url), { type: 'module' });
  let run = null; // the run in progress: {meta, curve, samples, headShares, stepMs, progress, threads}
  const status = $('#train-status');

  /** What the charts show: the run in progress, else the active model. */
  const shown = () => run ?? state.active?.meta;

  /** The curve, samples and heads of the run in progress, else of the active model. */
  function showCurve() {
    showLoss();
    showSamples();
    showHeads(shown()?.headShares);
  }

  /** The loss chart and its heading. */
  function showLoss() {
    const source = shown();
    $('#curve-heading').textContent = run ? `Loss and samples of “${run.meta.name}”, training now`
      : state.active ? `Loss and samples of “${state.active.meta.name}”` : 'Loss and samples (train a model to see its own)';
    const curve = source?.curve ?? { x: [], loss: [], val: [] };
    lineChart($('[data-figure="loss-chart"]'), {
      title: 'Loss (training steps; validation at evaluations)',
      x: curve.x,
      series: [{ label: 'train', values: curve.loss, color: 'var(--accent)' }, { label: 'val', values: curve.val, color: 'var(--values)', points: true }],
      xLabel: 'training step',
      yLabel: 'cross-entropy loss (nats)',
      description: 'Loss chart: x axis training step, y axis cross-entropy loss (nats); training loss per step, validation loss at evaluations',
      empty: state.active ? `“${state.active.meta.name}” came without its training curve: train a model below to see its loss fall here, step by step.`
        : 'Train a model below to see its loss fall here, step by step.',
    });
  }

  function showSamples() {
    $('#samples').replaceChildren(...(shown()?.samples ?? []).map((s) => Object.assign(document.createElement('li'), { textContent: `step ${s.iter}: ${s.text}` })));
  }

  /** Each head's share of looking at the subject, by step: one line per head, agreement dashed. */
  function showHeads(heads) {
    const holder = $('[data-figure="heads-chart"]');
    holder.replaceChildren();
    delete holder.dataset.emergedAt;
    if (!heads?.x.length) {
      $('#heads-status').textContent = run ? (run.meta.source.includes('agreement') ? `Measuring the heads every ${RECIPE.corpus.probeEvery} steps…` : 'Heads are measured when a model trains on the agreement corpus.')
        : 'Train a model on the agreement corpus to watch its heads learn.';
      return;
    }
    const H = heads.nHead;
    const name = (k) => headName(Math.floor(k / H), k % H);
    // The head that looks at the subject most by the last measurement is drawn thick; heads that never reach
    // 5 % are faded, so that the flat lines do not stack on top of the one that matters.
    const lastAt = heads.x.length - 1;
    const leader = heads.shares.reduce((b, line, k) => (line[lastAt] > heads.shares[b][lastAt] ? k : b), 0);
    lineChart(holder, {
      title: 'Share of held-out sentences in which each head looks hardest at the subject',
      x: heads.x,
      series: [...heads.shares.map((values, k) => ({ label: name(k), values, color: headColor(k), emphasis: k === leader,
        muted: k !== leader && Math.max(...values) < 0.05 })),
        { label: 'agreement', values: heads.accuracy, color: 'var(--ink)', dash: true }],
      xLabel: 'training step',
      yLabel: 'share of sentences',
      yDomain: [0, 1],
      description: 'Heads chart: x axis training step, y axis share of sentences; one line per head, agreement dashed',
    });
    // The first measurement at which some head looks at the subject in at least EMERGED of the sentences.
    const at = heads.x.findIndex((_, t) => heads.shares.some((line) => line[t] >= EMERGED));
    const last = heads.x.length - 1;
    const best = heads.shares.reduce((b, line, k) => (line[last] > heads.shares[b][last] ? k : b), 0);
    // A run that ends with no head on the subject is not a failed run: said why, and what would show one.
    const why = heads.shares[best][last] >= EMERGED ? '' : heads.accuracy[last] >= EMERGED
      ? ' No head holds on to the subject now: the model agrees by another path (its feed-forward layers, or several heads ' +
        'each carrying a part), and nothing made one head keep the job. Train longer or with more heads to see one keep it: ' +
        'the shipped model, trained 4,000 steps, does.'
      : ' The model has not learned agreement yet, and no head has found the subject: train longer (the shipped model took ' +
        '4,000 steps), on the agreement corpus, with at least 2 layers.';
    if (at >= 0) {
      const k = heads.shares.findIndex((line) => line[at] >= EMERGED);
      holder.dataset.emergedAt = String(heads.x[at]);
      $('#heads-status').textContent = `${name(k)[0].toUpperCase()}${name(k).slice(1)} first looked hardest at the subject in ` +
        `${percent(heads.shares[k][at])} of the sentences at step ${heads.x[at]}; at step ${heads.x[last]} the best head is ` +
        `${name(best)} (${percent(heads.shares[best][last])}) and agreement is ${percent(heads.accuracy[last])}.${why}`;
    } else {
      $('#heads-status').textContent = `No head looks at the subject in ${percent(EMERGED)} of the sentences yet: at step ${heads.x[last]} the best is ` +
        `${name(best)} (${percent(heads.shares[best][last])}), agreement ${percent(heads.accuracy[last])}.${why}`;
    }
  }
  /** The progress bar and status line of the run in progress, at its latest step. */
  function showProgress() {
    const step = run?.progress;
    if (!step) return;
    $('#progress').value = step.iter / step.iters;
    const stepsPerSecond = (1000 * run.stepMs.length) / run.stepMs.reduce((a, b) => a + b, 0);
    status.dataset.stepsPerSecond = stepsPerSecond.toFixed(2);
    status.dataset.meanStepMs = (run.stepMsTotal / step.iter).toFixed(3);
    status.textContent =
      `step ${step.iter} of ${step.iters}: loss ${step.loss.toFixed(4)}, learning rate ${step.lr.toExponential(2)} · ` +
      `${stepsPerSecond.toFixed(1)} steps/s (${Math.round(stepsPerSecond * step.tokens).toLocaleString('en')} tokens/s` +
      `${run.threads > 1 ? ` on ${run.threads} threads` : ''})`;
  }

  // Once a second at most (LIVE_REDRAW_MS), and only the parts a message changed: painted for every step (up to
  // 30 a second), the status line and the charts kept the page's main thread busy 40 % of the time, a share of the
  // cores the training threads then lacked (bench/site_training.mjs measures the run on every core).
  const stale = new Set(); // what the run's messages changed since the last redraw
  const redrawRun = perFrame(() => {
    showProgress();
    if (stale.has('loss')) showLoss();
    if (stale.has('samples')) showSamples();
    if (stale.has('heads')) showHeads(shown()?.headShares);
    stale.clear();
  }, { minInterval: LIVE_REDRAW_MS });
  const changed = (...parts) => {
    for (const part of parts) stale.add(part);
    redrawRun();
  };

  const setRunning = (phase) => {
    document.body.dataset.training = phase;
    $('#train').disabled = phase === 'running' || phase === 'paused' || phase === 'starting';
    $('#pause').disabled = phase !== 'running';
    $('#resume').disabled = phase !== 'paused';
    $('#stop').disabled = phase !== 'running' && phase !== 'paused';
  };

  /** Saves the run's checkpoint as its own model (created on its first checkpoint, updated after). */
  async function saveRun({ bytes, iter, done }) {
    try {
      const meta = await models.save({ ...run.meta, curve: run.curve, samples: run.samples, headShares: run.headShares }, bytes);
      run.meta = meta;
      status.dataset.savedIter = String(iter);
      if (done) {
        // The run's last step and measurements drawn now, before the page says it is done.
        showProgress();
        showCurve();
        stale.clear(); // a redraw still pending then has nothing left to draw
        status.textContent += ` — done, and saved in this browser as “${meta.name}”.`;
        run = null;
        setRunning('done');
        await models.activate(meta.id);
      } else {
        models.render();
      }
    } catch (error) {
      report(error);
    }
  }

  worker.onmessage = async ({ data }) => {
    if (data.type === 'started') {
      run.threads = data.threads;
      status.dataset.threads = data.threads;
      setRunning('running');
      changed('loss', 'samples', 'heads');
    } else if (data.type === 'progress') {
      // Speed over the last steps (the steps alone, without evaluations), so it settles quickly and stays honest;
      // their total over the whole run too, whose mean bench/site_training.mjs reports (the last steps run
      // faster or slower than the run's mean as the machine and the page's drawing vary).
      run.stepMs.push(data.stepMs);
      if (run.stepMs.length > 20) run.stepMs.shift();
      run.stepMsTotal += data.stepMs;
      run.progress = data;
      run.curve.x.push(data.iter);
      run.curve.loss.push(data.loss);
      run.curve.val.push(null);
      changed('loss');
    } else if (data.type === 'eval') {
      run.curve.x.push(data.iter + 0.5);
      run.curve.loss.push(null);
      run.curve.val.push(data.val);
      status.dataset.lastVal = String(data.val);
      if (status.dataset.firstVal === undefined) status.dataset.firstVal = String(data.val);
      changed('loss');
    } else if (data.type === 'heads') {
      run.headShares ??= { nHead: data.nHead, x: [], shares: data.subjectAttention.map(() => []), accuracy: [] };
      run.headShares.x.push(data.iter);
      data.subjectAttention.forEach((share, k) => run.headShares.shares[k].push(share));
      run.headShares.accuracy.push(data.accuracy);
      changed('heads');
    } else if (data.type === 'sample') {
      run.samples.push({ iter: data.iter, text: data.text });
      changed('samples');
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

  /** The run the reader set (settings.js's trainingRun), or null after showing why a setting is refused. */
  function plan(fromFile) {
    const [nLayer, nHead, nEmbd, iters] = ['n_layer', 'n_head', 'n_embd', 'max_iters'].map((name) => settings.read(name));
    if (nHead !== null && nEmbd !== null) {
      // The library's rule (heads divide the width), checked by the library, shown beside n_embd.
      try {
        attn.nanoGPTConfig({ vocabSize: 1, blockSize: 1, nLayer: 1, nHead, nEmbd });
      } catch (error) {
        showProblem(settings.element('n_embd'), `${error.message.replace(/^nanoGPTConfig: /, '')}.`);
        return null;
      }
    }
    if ([nLayer, nHead, nEmbd, iters].includes(null)) return null;
    return trainingRun({ n_layer: nLayer, n_head: nHead, n_embd: nEmbd, max_iters: iters, tokenizer: settings.read('tokenizer') }, fromFile);
  }

  $('#train').addEventListener('click', async () => {
    const fromFile = $('#data-choice').value === 'file';
    const file = $('#data-file').files[0];
    showProblem($('#data-file'), fromFile && !file ? 'Choose a text file first (or train on the agreement corpus).' : '');
    const settled = plan(fromFile);
    if (settled === null || (fromFile && !file)) return;
    const text = fromFile ? await file.text() : null; // null: the worker makes the agreement corpus
    $('#train-error').hidden = true;
    delete status.dataset.firstVal;
    delete status.dataset.meanStepMs;
    run = {
      meta: { name: `Run of ${new Date().toLocaleString()}`, source: fromFile ? `trained here on ${file.name}` : 'trained here on the agreement corpus' },
      curve: { x: [], loss: [], val: [] },
      samples: [],
      headShares: null, // each head's share of looking at the subject, by step (agreement corpus only)
      stepMs: [], // the durations of the latest training steps, for the speed shown
      stepMsTotal: 0, // and of all of this run's steps
      progress: null, // the worker's latest 'progress' message
    };
    setRunning('starting');
    worker.postMessage({ type: 'start', text, ...settled });
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

  state.on('model', showCurve);
  setRunning('idle');
  return { showCurve };
}
