// Chapter 9's live run, off the main thread: the library's induction recipe from the reader's seed, with the
// heads measured every INDUCTION_RUN.scoreEvery steps. Messages in:
//   {type: 'start', seed, iters, alphabet}: alphabet, the letters the tokens are (the shipped model's vocabulary)
//   {type: 'pause'} | {type: 'resume'} | {type: 'stop'}
// Messages out: {type: 'started', threads}, {type: 'progress', iter, iters, loss, stepMs},
//   {type: 'scores', iter, seconds, firstRepeatLoss, secondRepeatLoss, previousToken, prefixMatching} (the scores as
//   plain {data, shape}), {type: 'checkpoint', iter, bytes, done}, {type: 'error', message, started}.
// A run that fails after it started sends the checkpoint of its last good state first.
import { createAttention } from '../../../lib/index.js';
import { INDUCTION_RUN } from '../settings.js';

let attn;
let trainer = null;
let paused = false;
let stopped = false;
let running = false;

const nextMessageTurn = () => new Promise((resolve) => setTimeout(resolve, 0));

function checkpoint(done) {
  const bytes = trainer.checkpoint();
  postMessage({ type: 'checkpoint', iter: trainer.iter, bytes, done }, [bytes.buffer]);
}

function measure(started) {
  const model = trainer.snapshot();
  try {
    const s = attn.headScores(model, { batchSize: INDUCTION_RUN.scoreSequences, ablation: false });
    postMessage({ type: 'scores', iter: trainer.iter, seconds: (performance.now() - started) / 1000, firstRepeatLoss: s.firstRepeatLoss,
      secondRepeatLoss: s.secondRepeatLoss, previousToken: s.previousToken, prefixMatching: s.prefixMatching });
  } finally {
    model.dispose();
  }
}

async function run({ seed, iters, alphabet }) {
  attn ??= await createAttention();
  const { model, training } = attn.inductionRecipe();
  const next = new attn.Trainer({ model, training: { ...training, seed }, text: alphabet });
  trainer?.dispose();
  trainer = next;
  paused = false;
  stopped = false;
  running = true;
  postMessage({ type: 'started', threads: attn.threads.count });
  const started = performance.now(); // training time, measurements included, pauses left out
  let pausedFor = 0;
  measure(started);
  while (trainer.iter < iters && !stopped) {
    if (paused) {
      const t = performance.now();
      await nextMessageTurn();
      pausedFor += performance.now() - t;
      continue;
    }
    const t0 = performance.now();
    const r = trainer.step();
    postMessage({ type: 'progress', iter: r.iter + 1, iters, loss: r.loss, stepMs: performance.now() - t0 });
    if ((r.iter + 1) % INDUCTION_RUN.scoreEvery === 0 || r.iter + 1 === iters) measure(started + pausedFor);
    await nextMessageTurn(); // lets pause / stop messages in
  }
  checkpoint(true);
  running = false;
}

onmessage = async ({ data }) => {
  try {
    if (data.type === 'start') await run(data);
    else if (data.type === 'pause' && trainer) {
      paused = true;
      checkpoint(false);
    } else if (data.type === 'resume') paused = false;
    else if (data.type === 'stop') {
      stopped = true;
      paused = false;
    }
  } catch (error) {
    const started = data.type === 'start' && running;
    running = false;
    if (started) checkpoint(true);
    postMessage({ type: 'error', message: error.message, started });
  }
};
