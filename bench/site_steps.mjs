// Chapter 7's default training step in headless Chromium, on one thread and on N: one cross-origin isolated
// page whose worker holds both modules, each with a trainer of the chapter's default run, and alternates blocks
// of their steps (one block each per round, the order swapped every round). Interleaved this finely, the
// machine's slow phases fall on both sides alike, which whole runs minutes apart (site_training.mjs) cannot
// promise. Reports the step's median and mean on each side and the speed-up, overall and within rounds, and
// fails if the two trainers' losses differ in any bit.
//
//   node bench/site_steps.mjs [threads, default 2] [rounds, default 30] [steps per block, default 10]
import { fileURLToPath } from 'node:url';

import { launchBrowser, openPage, serve } from '../tests/browser/harness.js';

const [threads = 2, rounds = 30, block = 10] = process.argv.slice(2).map(Number);
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const ISOLATION = { 'Cross-Origin-Opener-Policy': 'same-origin', 'Cross-Origin-Embedder-Policy': 'require-corp' };
const server = await serve(ROOT, { headers: ISOLATION });
const browser = await launchBrowser();
let result;
try {
  const { page, context } = await openPage(browser, server.origin);
  await page.goto(`${server.url}bench/site_steps/index.html?threads=${threads}&rounds=${rounds}&block=${block}`);
  await page.waitForFunction(() => window.benchResult, null, { timeout: 30 * 60 * 1000, polling: 500 });
  result = await page.evaluate(() => window.benchResult);
  await context.close();
} finally {
  await browser.close();
  server.close();
}
if (result.error) throw new Error(`site_steps: the page's worker failed: ${result.error}`);

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const mean = (xs) => xs.reduce((a, b) => a + b, 0) / xs.length;
const [one, many] = result.sides;
console.log(`Chapter 7's default training step in Chromium, ${rounds} rounds of ${block} steps on each side ` +
  `(after ${result.warmUp} untimed), interleaved:`);
console.log('| module | threads | step, median | step, mean |\n| --- | --- | --- | --- |');
for (const side of result.sides) {
  console.log(`| ${side.threads === 1 ? 'single-threaded' : 'threaded'} | ${side.threads} | ${median(side.ms).toFixed(2)} ms | ${mean(side.ms).toFixed(2)} ms |`);
}
const withinRounds = one.perRound.map((t, i) => t / many.perRound[i]);
console.log(`speed-up: ${(median(one.ms) / median(many.ms)).toFixed(2)}× (medians), ${(mean(one.ms) / mean(many.ms)).toFixed(2)}× (means); ` +
  `within rounds: median ${median(withinRounds).toFixed(2)}×, range ${Math.min(...withinRounds).toFixed(2)}–${Math.max(...withinRounds).toFixed(2)}×`);
if (!result.sameLosses) throw new Error('site_steps: the two trainers\' losses differ: a thread count changed the numbers');
console.log('losses: identical on both sides, every step');
