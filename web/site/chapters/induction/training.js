// Chapter 11's "Train one yourself": the controls of a live run in training-worker.js, its two charts filling in
// as the worker measures the heads, the step and time of its phase change, and what the reader can do with the
// model when it stops (use it in the chapter's views, download its checkpoint). The latest run is kept in this
// browser at every checkpoint (pause, end, failure) and offered again on the next visit.
import { getInductionRun, saveInductionRun } from '../../components/model-store.js';
import { perFrame, report } from '../../components/page.js';
import { LIVE_REDRAW_MS } from '../settings.js';
import { addScores, drawCurves, emptyCurve, phaseChange } from './curves.js';

const $ = (sel) => document.querySelector(sel);

/**
 * settings: the chapter's controls(); alphabet: the letters of the tokens; onModel(bytes | null): use a model (null:
 * the shipped one); letters(): the reader's letters as ids (null while refused); onMaps(maps, iter): draw the run's
 * two heads on them at a measurement (the worker's `maps`). Returns { lettersChanged() } for the chapter to call.
 */
export async function liveTraining({ settings, alphabet, nHead, onModel, letters, onMaps }) {
  const worker = new Worker(new URL('./training-worker.js', import.meta.url), { type: 'module' });
  const status = $('#train-status');
  let curve = emptyCurve(nHead);
  let threads = 1;
  let bytes = null; // the latest checkpoint of the run
  let speed = []; // the latest steps' durations, for the speed shown
  let planned = null; // {seed, iters} of the run in progress
  let latest = null; // the run's latest 'progress' message, until the run ends
  let lastScores = null; // the run's latest measurement of its heads

  const draw = perFrame(() => drawCurves(document.querySelector('[data-figure="live-losses"]'),
    document.querySelector('[data-figure="live-scores"]'), curve,
    { what: 'your run', empty: 'Start a run to see its loss and its heads here, as it trains.' }));

  const setPhase = (phase) => {
    document.body.dataset.inductionTraining = phase;
    $('#train').disabled = phase === 'running' || phase === 'paused' || phase === 'starting';
    $('#pause').disabled = phase !== 'running';
    $('#resume').disabled = phase !== 'paused';
    $('#stop').disabled = phase !== 'running' && phase !== 'paused';
    $('#use-trained').disabled = bytes === null || phase === 'starting';
    $('#download-trained').disabled = bytes === null;
  };

  function describePhaseChange(last) {
    const at = phaseChange(curve);
    if (at === null) return ` The second copy's loss is ${last.secondRepeatLoss.toFixed(2)} nats: no phase change yet.`;
    const k = curve.x.indexOf(at);
    status.dataset.phaseChangeStep = String(at);
    status.dataset.phaseChangeSeconds = curve.seconds[k].toFixed(1);
    return ` Phase change: the second copy's loss fell below 2 nats at step ${at}, after ${curve.seconds[k].toFixed(1)} s of training.`;
  }

  // The status line, once a second at most (LIVE_REDRAW_MS): painted for every step (some 50 a second), it kept
  // the main thread from leaving the cores to the training threads.
  const showProgress = perFrame(() => {
    if (!latest) return; // the run ended since: the status says so
    const perSecond = (1000 * speed.length) / speed.reduce((a, b) => a + b, 0);
    status.textContent = `step ${latest.iter} of ${latest.iters}: loss ${latest.loss.toFixed(3)} · ${perSecond.toFixed(0)} steps/s` +
      `${threads > 1 ? ` on ${threads} threads` : ''}.${lastScores ? describePhaseChange(lastScores) : ''}`;
  }, { minInterval: LIVE_REDRAW_MS });

  worker.onmessage = ({ data }) => {
    if (data.type === 'started') {
      threads = data.threads;
      status.dataset.threads = String(threads);
      setPhase('running');
    } else if (data.type === 'progress') {
      speed.push(data.stepMs);
      if (speed.length > 20) speed.shift();
      status.dataset.iter = String(data.iter);
      latest = data;
      showProgress();
    } else if (data.type === 'scores') {
      lastScores = data;
      addScores(curve, data.iter, data);
      curve.seconds.push(data.seconds);
      draw();
      if (data.maps) onMaps(data.maps, data.iter);
    } else if (data.type === 'checkpoint') {
      bytes = data.bytes;
      saveInductionRun({ ...planned, iter: data.iter, curve, bytes, saved: Date.now() }).catch(report);
      if (data.done) {
        latest = null;
        status.textContent = `Done: ${data.iter} steps.${lastScores ? describePhaseChange(lastScores) : ''}`;
        status.dataset.done = 'true';
        setPhase('done');
      } else {
        setPhase('paused');
      }
    } else if (data.type === 'error') {
      $('#train-error').textContent = data.started ? `Training stopped: ${data.message} The model as it was before is kept.`
        : `This run could not start: ${data.message}`;
      $('#train-error').hidden = false;
      setPhase(data.started ? 'done' : 'idle');
    }
  };

  $('#train').addEventListener('click', () => {
    const [seed, iters] = [settings.read('seed'), settings.read('max_iters')];
    if (seed === null || iters === null) return;
    planned = { seed, iters };
    curve = { ...emptyCurve(nHead), seconds: [] };
    lastScores = null;
    latest = null;
    bytes = null;
    speed = [];
    $('#train-error').hidden = true;
    for (const key of ['phaseChangeStep', 'phaseChangeSeconds', 'done', 'iter']) delete status.dataset[key];
    status.textContent = 'Starting…';
    setPhase('starting');
    draw();
    worker.postMessage({ type: 'start', seed, iters, alphabet, ids: letters() });
  });
  $('#pause').addEventListener('click', () => worker.postMessage({ type: 'pause' }));
  $('#resume').addEventListener('click', () => {
    worker.postMessage({ type: 'resume' });
    setPhase('running');
  });
  $('#stop').addEventListener('click', () => worker.postMessage({ type: 'stop' }));
  $('#use-trained').addEventListener('click', () => {
    onModel(bytes.slice());
    $('#use-shipped').disabled = false;
  });
  $('#use-shipped').addEventListener('click', () => {
    onModel(null);
    $('#use-shipped').disabled = true;
  });
  $('#download-trained').addEventListener('click', () => {
    try {
      const a = Object.assign(document.createElement('a'), {
        href: URL.createObjectURL(new Blob([bytes], { type: 'application/octet-stream' })),
        download: `induction-seed-${settings.read('seed')}.safetensors`,
      });
      a.click();
      setTimeout(() => URL.revokeObjectURL(a.href), 1000);
    } catch (error) {
      report(error);
    }
  });
  // The run kept from an earlier visit, ready to be used or downloaded again.
  const kept = await getInductionRun().catch(() => undefined);
  if (kept?.bytes instanceof Uint8Array) {
    ({ bytes, curve } = kept);
    status.dataset.kept = 'true';
    status.textContent = `Your last run (seed ${kept.seed}, ${kept.iter} of ${kept.iters} steps, ${new Date(kept.saved).toLocaleString()}) ` +
      'is kept in this browser: use it above, download it, or start another.';
  }
  setPhase('idle');
  draw();
  return { lettersChanged: () => worker.postMessage({ type: 'letters', ids: letters() }) };
}
