// Chapter 8's run a step at a time, as the training worker runs it (training-worker.js) and
// bench/site_training_interleaved.mjs times it: an evaluation when one is due, the step, then a sample and a
// measurement of the heads when due (the cadence of settings.js's trainingRun). Every message for the page
// goes to `post` (training-worker.js lists them).
import { RECIPE } from '../settings.js';

/** A sample from the model as it is now, from the recipe's prompt. */
function sample(attn, trainer, prompt = RECIPE.samplePrompt) {
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
function probeHeads(attn, trainer, post) {
  const model = trainer.snapshot();
  const tok = attn.Tokenizer.fromVocabulary(trainer.config.tokenizer, trainer.vocabulary);
  try {
    const r = attn.probeAgreement(model, tok, { sentences: RECIPE.probeSentences });
    post({ type: 'heads', iter: trainer.iter, accuracy: r.accuracy, subjectAttention: Array.from(r.subjectAttention), nHead: model.config.nHead });
  } finally {
    tok.dispose();
    model.dispose();
  }
}

/** Before the first step: where the untrained heads look, for the chart's first point. */
export function beginRun(attn, trainer, run, post) {
  if (run.probeEvery > 0) probeHeads(attn, trainer, post);
}

/** One step and what is due around it; returns the step's result. */
export function runStep(attn, trainer, run, post) {
  if (trainer.iter % run.evalEvery === 0) post({ type: 'eval', iter: trainer.iter, ...trainer.evaluate() });
  const t0 = performance.now();
  const r = trainer.step();
  const stepMs = performance.now() - t0; // the step alone: evaluations and samples are not training speed
  post({ type: 'progress', iter: r.iter + 1, loss: r.loss, lr: r.lr, iters: run.iters, stepMs, tokens: trainer.config.batchSize * trainer.modelConfig.blockSize });
  if ((r.iter + 1) % run.sampleEvery === 0) post({ type: 'sample', iter: r.iter + 1, text: sample(attn, trainer) });
  if (run.probeEvery > 0 && ((r.iter + 1) % run.probeEvery === 0 || r.iter + 1 === run.iters)) probeHeads(attn, trainer, post);
  return r;
}

/** After the last step: the final evaluation. */
export function endRun(trainer, post) {
  post({ type: 'eval', iter: trainer.iter, ...trainer.evaluate() });
}
