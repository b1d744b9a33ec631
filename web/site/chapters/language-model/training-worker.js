// The training loop of chapter 7, off the main thread; its samples and
// measurements follow the chapter's recipe (chapters/settings.js). Messages in:
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

// The library loads as the page opens, not when the reader presses Train: in a cross-origin isolated page that
// is the threaded module and its workers, ~1 s before the first step otherwise. A failure to load is reported
// by the run that needs it (trainingRuns posts its error), not as an unhandled rejection before.
const loading = createAttention();
loading.catch(() => {});
let attn;
const runs = trainingRuns(run);

function sample(trainer, prompt = RECIPE.samplePrompt) {
  const model = trainer.snapshot();
  try {
    const tok = attn.Tokenizer.fromVocabulary(trainer.config.tokenizer, trainer.vocabulary);
    try {
      // The prompt's pieces that this text's vocabulary has (a text file may lack "The").
      const pieces = new Set(tok.pieces);
      const known = tok.kind === 'char' ? [...prompt].filter((c) => pieces.has(c)).join('') : prompt;
      let ids;
      try {
        ids = tok.encode(known);
      } catch {
        ids = [];
      }
      if (ids.length === 0) ids = [0];
      const out = model.generate(ids.slice(-model.config.blockSize + 1), { maxNewTokens: RECIPE.sampleTokens[tok.kind], temperature: RECIPE.sampleTemperature, seed: trainer.iter });
      return tok.decode(out.data);
    } finally {
      tok.dispose();
    }
  } finally {
    model.dispose();
  }
}

// Each head's share of held-out agreement sentences in which it looks hardest
// at the subject, measured on a copy of the model as it is now (attn.probeAgreement).
function probeHeads(trainer) {
  const model = trainer.snapshot();
  const tok = attn.Tokenizer.fromVocabulary(trainer.config.tokenizer, trainer.vocabulary);
  try {
    const r = attn.probeAgreement(model, tok, { sentences: RECIPE.probeSentences });
    postMessage({ type: 'heads', iter: trainer.iter, accuracy: r.accuracy, subjectAttention: Array.from(r.subjectAttention), nHead: model.config.nHead });
  } finally {
    tok.dispose();
    model.dispose();
  }
}

async function run({ text, model, training, iters, evalEvery, sampleEvery, probeEvery = 0 }) {
  attn = await loading;
  // The corpus is made here: 20,000 sentences took the page's main thread ~40 ms.
  const corpus = text ?? attn.agreementCorpus(RECIPE.corpusSentences, RECIPE.corpusSeed);
  runs.begin(new attn.Trainer({ model, training, text: corpus })); // a refused configuration throws here, nothing else changes
  const { trainer } = runs;
  postMessage({ type: 'started', vocabSize: trainer.modelConfig.vocabSize, threads: attn.threads.count });
  if (probeEvery > 0) probeHeads(trainer); // where the untrained heads look, for the chart's first point
  while (trainer.iter < iters) {
    if (trainer.iter % evalEvery === 0) postMessage({ type: 'eval', iter: trainer.iter, ...trainer.evaluate() });
    const t0 = performance.now();
    const r = trainer.step();
    const stepMs = performance.now() - t0; // the step alone: evaluations and samples are not training speed
    postMessage({ type: 'progress', iter: r.iter + 1, loss: r.loss, lr: r.lr, iters, stepMs, tokens: trainer.config.batchSize * trainer.modelConfig.blockSize });
    if ((r.iter + 1) % sampleEvery === 0) postMessage({ type: 'sample', iter: r.iter + 1, text: sample(trainer) });
    if (probeEvery > 0 && ((r.iter + 1) % probeEvery === 0 || r.iter + 1 === iters)) probeHeads(trainer);
    if (!(await runs.next())) break;
  }
  postMessage({ type: 'eval', iter: trainer.iter, ...trainer.evaluate() });
  runs.finish();
}
