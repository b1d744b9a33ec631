// Chapter 8's default run twice in one browser worker, on the single-threaded module and on the threaded one,
// in alternating blocks of steps (bench/site_training_interleaved.mjs): each block is what the page's training
// worker does for those steps (training-loop.js), evaluations, samples and head probes included. Both runs take
// the same steps, so their losses must agree to the bit; the result says whether they did.
import { createAttention } from '../../web/lib/index.js';
import { beginRun, endRun, runStep } from '../../web/site/chapters/language-model/training-loop.js';
import { RECIPE, TRAINING, trainingRun } from '../../web/site/chapters/settings.js';
import { eventLoopTurns } from '../../web/site/chapters/training-run.js';

const query = new URLSearchParams(location.search);
const threads = Number(query.get('threads') ?? 2), block = Number(query.get('block') ?? 10);

// One turn of the event loop between steps, as the page's training worker takes.
const nextTurn = eventLoopTurns();

try {
  const run = trainingRun(Object.fromEntries(Object.entries(TRAINING).map(([name, s]) => [name, s.default])), false);
  const sides = [];
  for (const count of [1, threads]) {
    const attn = await createAttention({ threads: count });
    if (attn.threads.count !== count) throw new Error(`asked for ${count} threads, got ${attn.threads.count}: ${attn.threads.reason}`);
    const t0 = performance.now();
    const trainer = new attn.Trainer({ model: run.model, training: run.training, text: attn.agreementCorpus(RECIPE.corpusSentences, RECIPE.corpusSeed) });
    const side = { threads: count, attn, trainer, startMs: performance.now() - t0, blocks: [], stepMs: 0, losses: [] };
    // Of the messages the page would draw, only the steps' own durations are kept.
    side.post = (message) => {
      if (message.type === 'progress') side.stepMs += message.stepMs;
    };
    sides.push(side);
  }
  for (let round = 0; sides.some((side) => side.trainer.iter < run.iters); round++) {
    for (const side of round % 2 ? [...sides].reverse() : sides) {
      const { attn, trainer, post } = side;
      const t0 = performance.now();
      if (round === 0) beginRun(attn, trainer, run, post);
      for (let i = 0; i < block && trainer.iter < run.iters; i++) {
        side.losses.push(runStep(attn, trainer, run, post).loss);
        await nextTurn();
      }
      if (trainer.iter === run.iters) endRun(trainer, post);
      side.blocks.push(performance.now() - t0);
    }
  }
  const sameLosses = sides[0].losses.length === run.iters && sides[0].losses.every((loss, i) => Object.is(loss, sides[1].losses[i]));
  postMessage({ threads, block, iters: run.iters, sameLosses, sides: sides.map(({ threads: t, startMs, blocks, stepMs }) => ({ threads: t, startMs, blocks, stepMs })) });
} catch (error) {
  postMessage({ error: String(error?.stack ?? error) });
}
