// Chapter 8's default training run in headless Chromium, on every core and on one: the same built site (dist/)
// served with the headers of cross-origin isolation (its training worker then runs the threaded module) and
// without them (one thread), runs interleaved. Reports the wall time of the whole default run (its evaluations,
// samples and head probes included) and its training steps' mean speed (the steps alone, over the whole run; the
// page's status line shows the speed of the last 20), medians over the rounds with their ranges, and the speed-up
// within each round.
//
//   npm run build && node bench/site_training.mjs [rounds, default 2]
import { availableParallelism } from 'node:os';

import { DIST, launchBrowser, openPage, serve, SUB_PATH } from '../tests/browser/harness.js';

const ROUNDS = Number(process.argv[2] ?? 2);
const ISOLATION = { 'Cross-Origin-Opener-Policy': 'same-origin', 'Cross-Origin-Embedder-Policy': 'require-corp' };
const servers = { isolated: await serve(DIST, { subPath: SUB_PATH, headers: ISOLATION }), 'one thread': await serve(DIST, { subPath: SUB_PATH }) };
const browser = await launchBrowser();
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const results = Object.fromEntries(Object.keys(servers).map((k) => [k, { seconds: [], stepsPerSecond: [], threads: 0 }]));

async function run(mode) {
  const server = servers[mode];
  const { page, context } = await openPage(browser, server.origin);
  try {
    await page.goto(`${server.url}chapters/7-language-model.html`);
    await page.waitForSelector('body[data-ready="true"]');
    const t0 = Date.now();
    await page.click('#train');
    await page.waitForSelector('body[data-training="done"]', { timeout: 600000 });
    const seconds = (Date.now() - t0) / 1000;
    const status = await page.$('#train-status');
    results[mode].seconds.push(seconds);
    results[mode].stepsPerSecond.push(1000 / Number(await status.getAttribute('data-mean-step-ms')));
    results[mode].threads = Number(await status.getAttribute('data-threads'));
    console.log(`${mode}: ${seconds.toFixed(1)} s, ${results[mode].stepsPerSecond.at(-1).toFixed(2)} steps/s on ${results[mode].threads} thread(s)`);
  } finally {
    await context.close();
  }
}

try {
  for (let round = 0; round < ROUNDS; round++) {
    const order = Object.keys(servers);
    if (round % 2) order.reverse();
    for (const mode of order) await run(mode);
  }
} finally {
  await browser.close();
  for (const server of Object.values(servers)) server.close();
}
const [iso, one] = [results.isolated, results['one thread']];
console.log(`\nChapter 8's default run, ${availableParallelism()} cores, medians of ${ROUNDS}:`);
console.log(`| page | threads | whole run | training steps (mean over the run) |\n| --- | --- | --- | --- |`);
for (const [mode, r] of Object.entries(results)) {
  const range = (xs, digits) => `${Math.min(...xs).toFixed(digits)}–${Math.max(...xs).toFixed(digits)}`;
  console.log(`| ${mode} | ${r.threads} | ${median(r.seconds).toFixed(1)} s (${range(r.seconds, 1)}) | ` +
    `${median(r.stepsPerSecond).toFixed(2)} steps/s (${range(r.stepsPerSecond, 2)}) |`);
}
console.log(`speed-up: ${(median(one.seconds) / median(iso.seconds)).toFixed(2)}× on the whole run, ` +
  `${(median(iso.stepsPerSecond) / median(one.stepsPerSecond)).toFixed(2)}× in steps per second`);
// This machine's speed drifts over minutes; the two runs of a round follow each other, so their ratio compares
// one phase of it. Reported beside the ratio of the medians, not instead of it.
const perRound = iso.seconds.map((s, i) => one.seconds[i] / s);
console.log(`speed-up within each round (its two runs back to back), whole run: median ${median(perRound).toFixed(2)}×, ` +
  `${perRound.map((x) => `${x.toFixed(2)}×`).join(', ')}`);
