// Chapter 8's training runs, off the main thread: each step and the evaluations,
// samples and measurements due around it are training-loop.js's. Messages in:
//   {type: 'start', text, model, training, iters, evalEvery, sampleEvery, probeEvery}: text null for the agreement corpus
//   {type: 'pause'} | {type: 'resume'} | {type: 'stop'}
// Messages out: {type: 'started', vocabSize, threads} (threads: what attn.threads counts), {type: 'progress', iter, loss, lr, iters, stepMs, tokens},
//   {type: 'eval', iter, train, val}, {type: 'sample', iter, text},
//   {type: 'heads', iter, accuracy, subjectAttention, nHead} (every probeEvery steps, 0 = never),
//   {type: 'checkpoint', iter, bytes, done}, {type: 'error', message, started}
// Pausing, stopping, checkpoints and a failed run's last good state: training-run.js.
import { createAttention } from '../../../lib/index.js';
import { RECIPE } from '../settings.js';
import { trainingRuns } from '../training-run.js';
import { beginRun, endRun, runStep } from './training-loop.js';

// The library loads as the page opens, not when the reader presses Train: in a cross-origin isolated page that
// is the threaded module and its workers, ~1 s before the first step otherwise. A failure to load is reported
// by the run that needs it (trainingRuns posts its error), not as an unhandled rejection before.
const loading = createAttention();
loading.catch(() => {});
const runs = trainingRuns(run);

async function run({ text, ...plan }) {
  const attn = await loading;
  // The corpus is made here: 20,000 sentences took the page's main thread ~40 ms.
  const corpus = text ?? attn.agreementCorpus(RECIPE.corpusSentences, RECIPE.corpusSeed);
  runs.begin(new attn.Trainer({ model: plan.model, training: plan.training, text: corpus })); // a refused configuration throws here, nothing else changes
  const { trainer } = runs;
  postMessage({ type: 'started', vocabSize: trainer.modelConfig.vocabSize, threads: attn.threads.count });
  beginRun(attn, trainer, plan, postMessage);
  while (trainer.iter < plan.iters) {
    runStep(attn, trainer, plan, postMessage);
    if (!(await runs.next())) break;
  }
  endRun(trainer, postMessage);
  runs.finish();
}
