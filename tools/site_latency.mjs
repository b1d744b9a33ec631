// How fast the site's chapters draw: the first figure after navigation (the page's 'first-figure' mark), an
// edit until its last figure is redrawn (the last DOM change after the edit), and the longest task the edit
// blocked the page with (a long-task observer: only tasks over 50 ms are seen, so "≤ 50" means none was),
// in headless Chromium at 1280 px.
// Give one built site (dist/) or two to compare them in one run, interleaved:
//
//   node tools/site_latency.mjs dist                    # this build
//   node tools/site_latency.mjs /tmp/old/dist dist      # an older build (git worktree + vite build) against this one
//
// Medians of 5 loads and 15 edits per chapter and build. These machines are noisy: compare builds measured in
// the same run, never against numbers from another.
import { resolve } from 'node:path';

import { launchBrowser, serve, SUB_PATH } from '../tests/browser/harness.js';

const dists = process.argv.slice(2);
if (dists.length === 0) {
  console.error('usage: node tools/site_latency.mjs <dist> [<dist to compare>]');
  process.exit(2);
}
// One edit per chapter: a field and the values it takes (null: a click on a checkbox).
const EDITS = {
  '2-self-attention': ['[data-editor="inputs"] input', (k) => String(0.4 + 0.01 * k)],
  '3-trainable-weights': ['#seed', (k) => String(100 + k)],
  '5-masking': ['#causal', null],
  '6-multi-head': ['#num-heads', (k) => ['2', '3', '6'][k]],
};
const LOADS = 5;
const EDITS_PER_LOAD = 3;

const servers = await Promise.all(dists.map((d) => serve(resolve(d), { subPath: SUB_PATH })));
const browser = await launchBrowser();
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const results = new Map();
try {
  for (let rep = 0; rep < LOADS; rep++) {
    const order = servers.map((_, i) => i);
    if (rep % 2) order.reverse(); // interleaved, neither build always first
    for (const i of order) {
      for (const [chapter, [selector, value]] of Object.entries(EDITS)) {
        const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, serviceWorkers: 'block' });
        const page = await context.newPage();
        await page.addInitScript(() => {
          window.longTasks = [];
          new PerformanceObserver((list) => window.longTasks.push(...list.getEntries().map((e) => e.duration))).observe({ type: 'longtask' });
        });
        await page.goto(`${servers[i].url}chapters/${chapter}.html`);
        await page.waitForSelector('body[data-ready="true"]');
        const first = await page.evaluate(() => performance.getEntriesByName('first-figure')[0].startTime);
        const edits = [];
        const blocked = [];
        for (let k = 0; k < EDITS_PER_LOAD; k++) {
          await page.evaluate(() => (window.longTasks.length = 0));
          edits.push(await page.evaluate(([sel, v]) => new Promise((done) => {
            const input = document.querySelector(sel);
            let last = null;
            const watch = new MutationObserver(() => (last = performance.now()));
            watch.observe(document.querySelector('main'), { subtree: true, childList: true, attributes: true, characterData: true });
            const start = performance.now();
            if (v === null) input.click();
            else {
              input.value = v;
              input.dispatchEvent(new Event('input', { bubbles: true }));
              input.dispatchEvent(new Event('change', { bubbles: true }));
            }
            setTimeout(() => {
              watch.disconnect();
              done(last === null ? NaN : last - start);
            }, 800);
          }), [selector, value ? value(k) : null]));
          blocked.push(await page.evaluate(() => Math.max(0, ...window.longTasks)));
        }
        const key = `${chapter}\t${dists[i]}`;
        const r = results.get(key) ?? { first: [], edit: [], blocked: [] };
        r.first.push(first);
        r.edit.push(...edits);
        r.blocked.push(...blocked);
        results.set(key, r);
        await context.close();
      }
    }
  }
} finally {
  await browser.close();
  servers.forEach((s) => s.close());
}
const longest = (ms) => (ms === 0 ? '≤ 50' : ms.toFixed(0));
console.log('chapter\tbuild\tfirst figure (ms)\tedit redrawn (ms)\tedit range\tlongest task of an edit, median / worst (ms)');
for (const [key, { first, edit, blocked }] of results) {
  console.log(`${key}\t${median(first).toFixed(0)}\t${median(edit).toFixed(0)}\t${Math.min(...edit).toFixed(0)}–${Math.max(...edit).toFixed(0)}\t` +
    `${longest(median(blocked))} / ${longest(Math.max(...blocked))}`);
}
