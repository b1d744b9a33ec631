// The training loop of chapter 7, off the main thread. Messages in:
//   {type: 'start', text, model, training, iters, evalEvery, sampleEvery, prompt}
//   {type: 'pause'} | {type: 'resume'} | {type: 'stop'}
// Messages out: {type: 'progress', iter, loss, lr}, {type: 'eval', iter, train, val},
//   {type: 'sample', iter, text}, {type: 'checkpoint', iter, bytes, vocabulary, done},
//   {type: 'error', message}
import { createAttention } from '../../lib/index.js';

let attn;
let trainer = null;
let paused = false;
let stopped = false;

const nextMessageTurn = () => new Promise((resolve) => setTimeout(resolve, 0));

function checkpoint(done) {
  const bytes = trainer.checkpoint();
  postMessage({ type: 'checkpoint', iter: trainer.iter, bytes, vocabulary: trainer.vocabulary, done }, [bytes.buffer]);
}

function sample(prompt) {
  const model = trainer.snapshot();
  try {
    const chars = [...prompt].filter((c) => trainer.vocabulary.includes(c)).join('') || trainer.vocabulary[0];
    const tok = new attn.CharTokenizer(trainer.vocabulary);
    const ids = tok.encode(chars).slice(-model.config.blockSize + 1);
    const out = model.generate(ids, { maxNewTokens: 60, temperature: 0.8, seed: trainer.iter });
    const text = tok.decode(out.data);
    tok.dispose();
    return text;
  } finally {
    model.dispose();
  }
}

async function run({ text, model, training, iters, evalEvery, sampleEvery, prompt }) {
  attn ??= await createAttention();
  trainer?.dispose();
  trainer = new attn.Trainer({ model, training, text });
  paused = false;
  stopped = false;
  while (trainer.iter < iters && !stopped) {
    if (paused) {
      await nextMessageTurn();
      continue;
    }
    if (trainer.iter % evalEvery === 0) postMessage({ type: 'eval', iter: trainer.iter, ...trainer.evaluate() });
    const r = trainer.step();
    postMessage({ type: 'progress', iter: r.iter + 1, loss: r.loss, lr: r.lr, iters });
    if ((r.iter + 1) % sampleEvery === 0) postMessage({ type: 'sample', iter: r.iter + 1, text: sample(prompt) });
    await nextMessageTurn(); // lets pause / stop messages in
  }
  postMessage({ type: 'eval', iter: trainer.iter, ...trainer.evaluate() });
  checkpoint(true);
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
    postMessage({ type: 'error', message: error.message });
  }
};
