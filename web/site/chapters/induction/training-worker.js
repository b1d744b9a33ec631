// Chapter 9's live run, off the main thread: the library's induction recipe from the reader's seed, with the
// heads measured every INDUCTION_RUN.scoreEvery steps. Messages in:
//   {type: 'start', seed, iters, alphabet}: alphabet, the letters the tokens are (the shipped model's vocabulary)
//   {type: 'pause'} | {type: 'resume'} | {type: 'stop'}
// Messages out: {type: 'started', threads}, {type: 'progress', iter, iters, loss, stepMs},
//   {type: 'scores', iter, seconds, firstRepeatLoss, secondRepeatLoss, previousToken, prefixMatching} (seconds of
//   training, measurements included and pauses left out), {type: 'checkpoint', iter, bytes, done}, {type: 'error', message, started}.
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
const runs = trainingRuns(run);

function measure(trainer, started) {
  const model = trainer.snapshot();
  try {
    const s = attn.headScores(model, { batchSize: INDUCTION_RUN.scoreSequences, ablation: false });
    postMessage({ type: 'scores', iter: trainer.iter, seconds: (performance.now() - started - runs.pausedMs) / 1000,
      firstRepeatLoss: s.firstRepeatLoss, secondRepeatLoss: s.secondRepeatLoss, previousToken: s.previousToken, prefixMatching: s.prefixMatching });
  } finally {
    model.dispose();
  }
}

async function run({ seed, iters, alphabet }) {
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
