// This build's single-threaded module against another build's, on the same calls in one process: did a change
// make one thread slower? The other build is a checkout of this repository with its WASM module built
// (`git worktree add DIR REV && (cd DIR && bash tools/build.sh wasm)`); both modules run one thread, rounds
// interleaved (bench/timing.mjs), medians. Outputs are checked equal first: a change of speed, not of numbers.
//
//   node bench/against_build.mjs DIR [rounds, default 15]     (the table also goes to bench/against_build.md)
import { execFileSync } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

import { createAttention } from '../web/lib/index.js';
import { measure } from './timing.mjs';

const [dir, roundsArg] = process.argv.slice(2);
const entry = dir && join(resolve(dir), 'web', 'lib', 'index.js');
if (!entry || !existsSync(join(resolve(dir), 'web', 'lib', 'wasm', 'attention_wasm.wasm'))) {
  throw new Error('usage: node bench/against_build.mjs DIR [rounds]: DIR a checkout whose WASM module is built (tools/build.sh wasm)');
}
const ROUNDS = Number(roundsArg ?? 15);
const apis = {  // `threads: 1` is the single-threaded module
  this: await createAttention({ threads: 1 }),
  other: await (await import(pathToFileURL(entry).href)).createAttention(),  // before threads: one thread only
};

/** Each build's call made by make(api); both must give the same numbers before either is timed. */
function both(name, make) {
  const calls = Object.fromEntries(Object.entries(apis).map(([k, api]) => [k, make(api)]));
  const [a, b] = [calls.this(), calls.other()];
  if (a !== undefined && (a.length !== b.length || a.some((x, i) => Math.abs(x - b[i]) > 1e-4 * (1 + Math.abs(x))))) {
    throw new Error(`against_build: ${name}: the two builds give different numbers`);
  }
  return calls;
}

const text = Array.from({ length: 20000 }, (_, i) => 'abcdefghij klmnopqrstuvwxyz.,'[(i * 7919) % 29]).join('');
const cases = [];
for (const T of [256, 1024, 4096]) {
  for (const causal of [false, true]) {
    cases.push([`attention/${causal ? 'causal' : 'full'}/${T}`, (api) => {
      api.manualSeed(0);
      const [q, k, v] = [api.randn(T, 64), api.randn(T, 64), api.randn(T, 64)];
      return () => api.attention(q, k, v, { causal }).data;
    }]);
  }
}
cases.push(['mha/1024', (api) => {
  api.manualSeed(0);
  const mha = new api.MultiHeadAttention(128, 4);
  const x = api.randn(1, 1024, 128);
  return () => mha.forward(x, { trace: false }).output.data;
}]);
for (const N of [128, 512, 1024]) {
  cases.push([`linear/${N}`, (api) => {
    api.manualSeed(0);
    const linear = new api.Linear(N, N, false);
    const x = api.randn(N, N);
    return () => linear.forward(x).data;
  }]);
}
const ids = { data: Array.from({ length: 12 * 64 }, (_, i) => (i * 7) % 65), shape: [12, 64] };
cases.push(['gpt/forward', (api) => {
  const model = new api.GPT({ ...api.nanoGPTConfig({ vocabSize: 65, blockSize: 64, nLayer: 4, nHead: 4, nEmbd: 128 }), seed: 0 });
  return () => model.forward(ids).logits.data;
}]);
cases.push(['gpt/generate-63-tokens', (api) => {
  const model = new api.GPT({ ...api.nanoGPTConfig({ vocabSize: 65, blockSize: 64, nLayer: 4, nHead: 4, nEmbd: 128 }), seed: 0 });
  return () => Array.from(model.generate([0], { maxNewTokens: 63, temperature: 0 }).data);
}]);
// A step changes the model: each timed call trains on, so only the first call's loss is compared.
cases.push(['gpt/train-step', (api) => {
  const trainer = new api.Trainer({ model: { nLayer: 4, nHead: 4, nEmbd: 128, blockSize: 64, dropout: 0, seed: 0 }, text });
  return () => [trainer.step().loss];
}]);
cases.push(["train-step/chapter 8's model", (api) => {
  const trainer = new api.Trainer({
    model: { nLayer: 2, nHead: 4, nEmbd: 64, nInner: 256, blockSize: 32, bias: false, attentionBias: false, tieEmbeddings: true, dropout: 0 },
    training: { batchSize: 32, learningRate: 3e-3, seed: 1337, tokenizer: 'word' },
    text: api.agreementCorpus(30000, 1337),
  });
  return () => [trainer.step().loss];
}]);

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const revision = (at) => {
  try {
    return execFileSync('git', ['-C', at, 'log', '-1', '--format=%h (%cs)'], { encoding: 'utf8' }).trim()
      + (execFileSync('git', ['-C', at, 'status', '--porcelain', '--untracked-files=no'], { encoding: 'utf8' }).trim() ? ', changed' : '');
  } catch {
    return 'not a git checkout';
  }
};
const lines = [
  '# One thread: this build against an earlier one',
  '',
  `Produced by \`node bench/against_build.mjs DIR ${ROUNDS}\` on ${new Date().toISOString().slice(0, 10)}: ${os.cpus()[0].model.trim()}, ` +
    `${os.availableParallelism()} cores; Node ${process.versions.node}. This build: ${revision(ROOT)}; the other: ${revision(resolve(dir))}. ` +
    `Both single-threaded modules, medians of ${ROUNDS} interleaved rounds, milliseconds per call; the same case moves by ` +
    'up to 10 % between runs on this machine, so a ratio within ±0.10 of 1 is no change.',
  '',
  '| case | this build | the other build | this ÷ other |',
  '| --- | --- | --- | --- |',
];
console.log(lines.join('\n'));
for (const [name, make] of cases) {
  const t = await measure(both(name, make), ROUNDS);
  const line = `| ${name} | ${t.this.toFixed(3)} | ${t.other.toFixed(3)} | ${(t.this / t.other).toFixed(2)} |`;
  console.log(line);
  lines.push(line);
}
writeFileSync(join(ROOT, 'bench', 'against_build.md'), lines.join('\n') + '\n');
process.exit(0);
