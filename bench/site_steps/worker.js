// Chapter 7's default run's training step in one browser worker, on the single-threaded module and on the
// threaded one, in alternating blocks of steps (bench/site_steps.mjs). Both trainers take the same steps, so
// their losses must agree to the bit; the result says whether they did.
import { createAttention } from '../../web/lib/index.js';
import { RECIPE, TRAINING, trainingRun } from '../../web/site/chapters/settings.js';

const query = new URLSearchParams(location.search);
const threads = Number(query.get('threads') ?? 2), rounds = Number(query.get('rounds') ?? 30), block = Number(query.get('block') ?? 10);
const WARM_UP = 20; // steps before timing: V8 compiles the hot functions at its top tier in the first ~10

// One turn of the event loop between steps, as the page's training worker takes (training-run.js).
const channel = new MessageChannel();
let turn = null;
channel.port1.onmessage = () => turn();
const nextTurn = () => new Promise((resolve) => {
  turn = resolve;
  channel.port2.postMessage(null);
});

try {
  const run = trainingRun(Object.fromEntries(Object.entries(TRAINING).map(([name, s]) => [name, s.default])), false);
  const sides = [];
  for (const count of [1, threads]) {
    const attn = await createAttention({ threads: count });
    if (attn.threads.count !== count) throw new Error(`asked for ${count} threads, got ${attn.threads.count}: ${attn.threads.reason}`);
    const text = attn.agreementCorpus(RECIPE.corpusSentences, RECIPE.corpusSeed);
    const trainer = new attn.Trainer({ model: run.model, training: run.training, text });
    for (let i = 0; i < WARM_UP; i++) trainer.step();
    sides.push({ threads: count, trainer, ms: [], losses: [], perRound: [] });
  }
  for (let round = 0; round < rounds; round++) {
    for (const side of round % 2 ? [...sides].reverse() : sides) {
      let total = 0;
      for (let i = 0; i < block; i++) {
        const t0 = performance.now();
        const { loss } = side.trainer.step();
        const ms = performance.now() - t0;
        side.ms.push(ms);
        side.losses.push(loss);
        total += ms;
        await nextTurn();
      }
      side.perRound.push(total);
    }
  }
  const sameLosses = sides[0].losses.every((loss, i) => Object.is(loss, sides[1].losses[i]));
  postMessage({ threads, rounds, block, warmUp: WARM_UP, sameLosses, sides: sides.map(({ threads: t, ms, perRound }) => ({ threads: t, ms, perRound })) });
} catch (error) {
  postMessage({ error: String(error?.stack ?? error) });
}
