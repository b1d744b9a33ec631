// Chapter 8's default run in headless Chromium, on one thread and on N, interleaved: one cross-origin isolated
// page whose worker holds both modules, each with a trainer of the chapter's default run, and runs them in
// alternating blocks of steps (the order swapped every round), each block what the page's training worker does
// for those steps, evaluations, samples and head probes included (training-loop.js). Interleaved this finely,
// the machine's slow phases fall on both runs alike, which whole runs minutes apart (site_training.mjs) cannot
// promise; what this leaves out is the page's own drawing, which site_training.mjs includes. Reports each run's
// time (its loop; making its corpus and trainer beside it) and its steps alone, the speed-ups, and the median
// speed-up within rounds; fails if the two runs' losses differ in any bit.
//
//   node bench/site_training_interleaved.mjs [threads, default 2] [steps per block, default 10]
// (after the WASM build, tools/build.sh wasm: the page loads the package from web/lib/)
import { fileURLToPath } from 'node:url';

import { launchBrowser, openPage, serve } from '../tests/browser/harness.js';

const [threads = 2, block = 10] = process.argv.slice(2).map(Number);
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const ISOLATION = { 'Cross-Origin-Opener-Policy': 'same-origin', 'Cross-Origin-Embedder-Policy': 'require-corp' };
const server = await serve(ROOT, { headers: ISOLATION });
const browser = await launchBrowser();
let result;
try {
  const { page, context } = await openPage(browser, server.origin);
  await page.goto(`${server.url}bench/site_training_interleaved/index.html?threads=${threads}&block=${block}`);
  await page.waitForFunction(() => window.benchResult, null, { timeout: 30 * 60 * 1000, polling: 500 });
  result = await page.evaluate(() => window.benchResult);
  await context.close();
} finally {
  await browser.close();
  server.close();
}
if (result.error) throw new Error(`site_training_interleaved: the page's worker failed: ${result.error}`);

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const sum = (xs) => xs.reduce((a, b) => a + b, 0);
const [one, many] = result.sides;
const s = (ms) => `${(ms / 1000).toFixed(1)} s`;
console.log(`Chapter 8's default run (${result.iters} steps) in Chromium, in blocks of ${block} steps, interleaved:`);
console.log('| module | threads | the run (its loop) | its steps alone | corpus and trainer |\n| --- | --- | --- | --- | --- |');
for (const side of result.sides) {
  console.log(`| ${side.threads === 1 ? 'single-threaded' : 'threaded'} | ${side.threads} | ${s(sum(side.blocks))} | ${s(side.stepMs)} | ${s(side.startMs)} |`);
}
const withinRounds = one.blocks.map((t, i) => t / many.blocks[i]);
console.log(`speed-up: ${(sum(one.blocks) / sum(many.blocks)).toFixed(2)}× on the run, ${(one.stepMs / many.stepMs).toFixed(2)}× in its steps; ` +
  `within rounds: median ${median(withinRounds).toFixed(2)}×`);
if (!result.sameLosses) throw new Error('site_training_interleaved: the two runs\' losses differ: a thread count changed the numbers');
console.log('losses: identical in both runs, every step');
