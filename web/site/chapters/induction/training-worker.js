// Chapter 11's live run, off the main thread: the library's induction recipe from the reader's seed, with the
// heads measured every INDUCTION_RUN.scoreEvery steps. Messages in:
//   {type: 'start', seed, iters, alphabet, ids}: alphabet, the letters the tokens are (the shipped model's
//   vocabulary); ids, the reader's letters (null while they are refused), on which each measurement draws the heads
//   {type: 'letters', ids}: the reader changed them
//   {type: 'pause'} | {type: 'resume'} | {type: 'stop'}
// Messages out: {type: 'started', threads}, {type: 'progress', iter, iters, loss, stepMs},
//   {type: 'scores', iter, seconds, firstRepeatLoss, secondRepeatLoss, previousToken, prefixMatching, maps} (seconds of
//   training, measurements included and pauses left out; maps: {ids, previous: {head, weights}, induction: {head, weights}},
//   the most previous-token head of layer 1 and the most induction-like of layer 2 on the reader's letters, (T, T) each), {type: 'checkpoint', iter, bytes, done}, {type: 'error', message, started}.
// Pausing, stopping, checkpoints and a failed run's last good state: ../training-run.js.
import { createAttention } from '../../../lib/index.js';
import { INDUCTION_RUN } from '../settings.js';
import { trainingRuns } from '../training-run.js';

// The library loads as the page opens, not when the reader presses Train: in a cross-origin isolated page that
// is the threaded module and its workers, ~1 s before the first step otherwise. A failure to load is reported
// by the run that needs it (trainingRuns posts its error), not as an unhandled rejection before.
const loading = createAttention();
loading.catch(() => {});
let attn;
let letters = null; // the reader's letters as token ids, or null
const runs = trainingRuns(run, { onMessage: (data) => data.type === 'letters' && (letters = data.ids) });

/** The head of `layer` that scores highest in `scores` (H of them from `from`), drawn on the reader's letters. */
function headMap(model, layer, scores, from) {
  const H = model.config.nHead;
  let head = 0;
  for (let h = 1; h < H; h++) if (scores.data[from + h] > scores.data[from + head]) head = h;
  const T = letters.length;
  return { head, weights: attn.layerAttention(model, letters, layer).data.slice(head * T * T, (head + 1) * T * T) };
}

function measure(trainer, started) {
  const model = trainer.snapshot();
  try {
    const s = attn.headScores(model, { batchSize: INDUCTION_RUN.scoreSequences, ablation: false });
    // The maps the chapter shows, as they are at this step: the two heads forming.
    const maps = letters && { ids: letters, previous: headMap(model, 0, s.previousToken, 0),
      induction: headMap(model, 1, s.prefixMatching, model.config.nHead) };
    postMessage({ type: 'scores', iter: trainer.iter, seconds: (performance.now() - started - runs.pausedMs) / 1000,
      firstRepeatLoss: s.firstRepeatLoss, secondRepeatLoss: s.secondRepeatLoss, previousToken: s.previousToken, prefixMatching: s.prefixMatching, maps });
  } finally {
    model.dispose();
  }
}

async function run({ seed, iters, alphabet, ids }) {
  letters = ids;
  attn = await loading;
  const { model, training } = attn.inductionRecipe();
  runs.begin(new attn.Trainer({ model, training: { ...training, seed }, text: alphabet }));
  const { trainer } = runs;
  postMessage({ type: 'started', threads: attn.threads.count });
  const started = performance.now();
  measure(trainer, started);
  while (trainer.iter < iters) {
    const t0 = performance.now();
    const r = trainer.step();
    postMessage({ type: 'progress', iter: r.iter + 1, iters, loss: r.loss, stepMs: performance.now() - t0 });
    if ((r.iter + 1) % INDUCTION_RUN.scoreEvery === 0 || r.iter + 1 === iters) measure(trainer, started);
    if (!(await runs.next())) break;
  }
  runs.finish();
}
