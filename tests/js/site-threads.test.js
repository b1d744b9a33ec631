// Which thread runs what on the site. A page never freezes because the work whose cost grows with a run or a
// model runs in workers: the chapters' own, or the package's (createAttention({ worker: true }), whose every call is
// a Promise computed in web/lib/worker.js). On a page's thread the library is only asked for bounded steps (a trace
// or a forward of the shipped or browser-trained model, one token of a stream between two turns of the event loop).
// This is checked on the modules themselves, not by timing the pages (a task's duration varies 2× on a shared
// host): the modules a page runs are those its <script> imports, minus what starts as a worker
// (new Worker(new URL(...))), and none of them may call the heavy part of the API but on the package's worker API,
// which the site names `remote` wherever it holds it (and binds that name to nothing else).
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const SITE = fileURLToPath(new URL('../../web/site/', import.meta.url));

// The calls whose cost grows with a run, a brought model or a corpus, and the word that finds each in code.
const HEAVY = {
  'training (Trainer)': /\bTrainer\b/,
  'a whole generation in one call (GPT.generate)': /\.generate\(/,
  'loading a brought model (loadPretrained)': /\bloadPretrained\(/,
  'measuring agreement over sentences (probeAgreement)': /\bprobeAgreement\(/,
  'making a training corpus (agreementCorpus)': /\bagreementCorpus\(/,
  'every head of a brought model (summarizeHeads)': /\bsummarizeHeads\(/,
};

/** A module's code without its comments (they name the API freely). */
const code = (file) => readFileSync(file, 'utf8').replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"`])\/\/.*$/gm, '$1');

/** The site's own modules that `file` imports statically, and the worker modules it starts. */
function edges(file) {
  const text = code(file);
  const local = (spec) => (spec.startsWith('.') && spec.endsWith('.js') ? join(dirname(file), spec) : null);
  const workers = [...text.matchAll(/new Worker\(new URL\('([^']+)', import\.meta\.url\)/g)].map(([, s]) => local(s));
  const imports = [...text.matchAll(/^\s*import\s[^;]*?from\s+'([^']+)'/gm), ...text.matchAll(/^\s*import\s+'([^']+)'/gm)]
    .map(([, s]) => local(s)).filter((f) => f && f.startsWith(SITE));
  return { imports, workers };
}

/** Every module reachable from `entries` by static imports: { modules, workers } (the worker entries met). */
function reach(entries) {
  const modules = new Set();
  const workers = new Set();
  const visit = (file) => {
    if (modules.has(file)) return;
    modules.add(file);
    const e = edges(file);
    e.workers.forEach((w) => workers.add(w));
    e.imports.forEach(visit);
  };
  entries.forEach(visit);
  return { modules, workers };
}

const pages = [join(SITE, 'index.html'), ...readdirSync(join(SITE, 'chapters')).filter((f) => f.endsWith('.html')).map((f) => join(SITE, 'chapters', f))];
const pageEntries = pages.flatMap((html) => [...readFileSync(html, 'utf8').matchAll(/<script type="module" src="([^"]+)"/g)]
  .map(([, src]) => join(dirname(html), src)));
const onPages = reach(pageEntries);
const inWorkers = reach([...onPages.workers]);

test('the pages start the site\'s three workers, and two modules start the package\'s', () => {
  assert.equal(pageEntries.length, pages.length, 'every page has one module script');
  assert.deepEqual([...onPages.workers].map((f) => relative(SITE, f)).sort(), [
    'chapters/induction/training-worker.js',
    'chapters/language-model/probe-worker.js',
    'chapters/language-model/training-worker.js',
  ]);
  const remote = [...onPages.modules].filter((f) => /createAttention\(\{ worker: true/.test(code(f)));
  assert.deepEqual(remote.map((f) => relative(SITE, f)).sort(), ['chapters/at-scale/kept-sinks.js', 'chapters/your-model/session.js']);
});

/** Where `text` calls `pattern` other than as `remote.<call>(` or `remote.<a>.<call>(`. */
const onThisThread = (text, pattern) => [...text.matchAll(new RegExp(pattern.source, 'g'))]
  .filter((m) => !/\bremote\.$/.test(text.slice(0, m.index + (m[0].startsWith('.') ? 1 : 0))));

test('no module a page runs calls work that grows with a run or a model but in a worker', () => {
  const offending = [];
  for (const file of onPages.modules) {
    const text = code(file);
    for (const [what, pattern] of Object.entries(HEAVY)) if (onThisThread(text, pattern).length > 0) offending.push(`${relative(SITE, file)}: ${what}`);
    // `remote` is the package's worker API and nothing else: every value given to that name is createAttention({ worker: true })
    // (or null, until it is started).
    for (const [, value] of text.matchAll(/\bremote\s*(?:\?\?)?=(?!=)\s*([^;]+)/g)) {
      if (!/^(?:null$|(?:await\s+)?createAttention\(\{ worker: true)/.test(value.trim())) offending.push(`${relative(SITE, file)}: remote = ${value}`);
    }
  }
  assert.deepEqual(offending, []);
  // Each of these is called somewhere in a worker, or on the package's worker API: the list names what the site really
  // does, so a renamed call fails here instead of slipping past the check above.
  const workerCode = [...inWorkers.modules].map(code).join('\n');
  const remoteCalls = [...onPages.modules].map(code).join('\n');
  for (const [what, pattern] of Object.entries(HEAVY)) {
    const inRemote = [...remoteCalls.matchAll(new RegExp(pattern.source, 'g'))].length > onThisThread(remoteCalls, pattern).length;
    assert.ok(pattern.test(workerCode) || inRemote, `no worker does ${what}`);
  }
});

test('a stream on a page\'s thread gives the event loop a turn between tokens', () => {
  // chapter 8's Generate streams the active model on the page (GPT.stream): one token per turn, never a whole run.
  // Chapter 9's streams from the package's worker: each token is a Promise, awaited by `for await`.
  const streaming = [...onPages.modules].filter((f) => /\.stream\(/.test(code(f)));
  assert.deepEqual(streaming.map((f) => relative(SITE, f)).sort(), ['chapters/language-model/generation.js', 'chapters/your-model/generate.js']);
  const onPage = code(join(SITE, 'chapters/language-model/generation.js'));
  assert.match(onPage.match(/for \(const [^)]*? of [^)]*?\.stream\([^]*?\n\s{6}\}/)?.[0] ?? '', /await nextTurn\(\)/, 'chapter 8: the stream\'s loop');
  const fromWorker = code(join(SITE, 'chapters/your-model/generate.js'));
  assert.match(fromWorker, /for await \(const \[token\] of stream\)/, 'chapter 9: the stream is awaited token by token');
  assert.match(fromWorker, /const stream = loaded\.model\.stream\(/, 'chapter 9: the stream is the worker model\'s');
});
