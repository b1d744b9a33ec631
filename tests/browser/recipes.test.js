// The README's recipes in each bundler's production build, from the packed tarball: Vite (vite build, then vite
// preview, which answers a path it does not have with index.html), webpack 5 with no configuration at all
// (`webpack --mode production`), and esbuild with the README's own line; Node runs them in docs.test.js. Each page
// must log what the recipe's `// →` lines say, and no bundle may hold a path of the machine that built it.
// Reported: loadDefaultModel() with no URL read Vite's index.html as the model ("the header length
// 8104636974849335612 exceeds the file's 188 bytes"), webpack's bundle fetched file:///…/agreement.safetensors,
// and a worker esbuild had emptied was waited on for ever.
import assert from 'node:assert/strict';
import { mkdirSync, readdirSync, readFileSync, realpathSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';

import { preview, build as viteBuild } from 'vite';

import { blocks, pageLog } from './doc-blocks.js';
import { ISOLATION_HEADERS, launchBrowser, openPage, withServedPage, assertClean } from './harness.js';
import { installProject, packTarball, ROOT, run } from '../fixtures/package.js';

const README = readFileSync(join(ROOT, 'README.md'), 'utf8');
const RECIPES = blocks('README.md').filter((b) => b.info === 'js');
const BIN = join(ROOT, 'node_modules', '.bin');
const PAGE = (script) => `<!doctype html><meta charset="utf-8"><script ${script}></script>`;

let browser;
let dir; // one project with the tarball installed; each recipe in a folder of its own inside it
before(async () => {
  browser = await launchBrowser();
  dir = installProject('recipes', packTarball(), { name: 'recipes', private: true });
});
after(() => browser?.close());

/** A folder of the project holding `files`. */
function folder(name, files) {
  const at = join(dir, name);
  for (const [file, text] of Object.entries(files)) {
    mkdirSync(join(at, file, '..'), { recursive: true });
    writeFileSync(join(at, file), text);
  }
  return at;
}

/** Every file a build emitted, and the text of its scripts. */
function emitted(dist) {
  const files = readdirSync(dist, { recursive: true }).map(String).filter((f) => statSync(join(dist, f)).isFile());
  return { files, scripts: files.filter((f) => /\.(m?js|html)$/.test(f)).map((f) => [f, readFileSync(join(dist, f), 'utf8')]) };
}

/** No script of a build names a place on the machine that built it: a file: URL, the checkout, the project. */
function assertNoMachinePath(dist, label) {
  for (const [file, text] of emitted(dist).scripts) {
    for (const path of ['file:///', ROOT.replace(/\/$/, ''), realpathSync(dir)]) {
      assert.ok(!text.includes(path), `${label}: ${file} holds ${JSON.stringify(path)}: …${text.slice(Math.max(0, text.indexOf(path) - 80), text.indexOf(path) + 80)}…`);
    }
  }
}

/** The lines a page at `url` (on `origin`) logs, with nothing else wrong on it. */
async function logged(url, origin, count) {
  const log = pageLog(count);
  const { page, context, problems } = await openPage(browser, origin);
  try {
    log.listen(page);
    await page.goto(url);
    const lines = await log.lines();
    // The browser asks every host for /favicon.ico, which vite preview answers 404 (a request the page's own
    // responses do not list): no fault of the app. Any 404 of the page's own is still in failedResponses.
    problems.failedResponses = problems.failedResponses.filter((r) => !r.endsWith('/favicon.ico'));
    if (problems.failedResponses.length === 0) problems.consoleErrors = problems.consoleErrors.filter((m) => !/status of 404/.test(m));
    assertClean(problems);
    return lines;
  } finally {
    await context.close();
  }
}

describe("the README's recipes in production builds, from the tarball", () => {
  test('there are three, and the first two and the third (worker: true) are all of them', () => {
    assert.equal(RECIPES.length, 3);
    assert.match(RECIPES[1].code, /loadDefaultModel\(\)/, 'the model with no URL');
    assert.match(RECIPES[2].code, /worker: true/);
  });

  test('Vite: vite build, served by vite preview', async () => {
    for (const [i, recipe] of RECIPES.entries()) {
      const root = folder(`vite-${i}`, { 'index.html': PAGE('type="module" src="./main.js"'), 'main.js': recipe.code });
      await viteBuild({ root, configFile: false, logLevel: 'warn' });
      assertNoMachinePath(join(root, 'dist'), `vite, recipe ${i + 1}`);
      const server = await preview({ root, configFile: false, logLevel: 'silent', preview: { host: '127.0.0.1', port: 0 } });
      try {
        const url = server.resolvedUrls.local[0];
        assert.deepEqual(await logged(url, new URL(url).origin, recipe.expected.length), recipe.expected, `vite, recipe ${i + 1}`);
      } finally {
        await server.close();
      }
    }
  });

  test('webpack 5 in production mode with no configuration', async () => {
    for (const [i, recipe] of RECIPES.entries()) {
      const root = folder(`webpack-${i}`, { 'index.html': PAGE('src="./dist/main.js"'), 'src/index.js': recipe.code });
      const output = run(join(BIN, 'webpack'), ['--mode', 'production', '--no-stats'], root, { NO_COLOR: '1' });
      assert.equal(output.trim(), '', 'webpack printed nothing: no warning (its size hints go to stats, off here)');
      assertNoMachinePath(join(root, 'dist'), `webpack, recipe ${i + 1}`);
      const log = pageLog(recipe.expected.length);
      const lines = await withServedPage(browser, root, { before: (page) => log.listen(page) }, () => log.lines());
      assert.deepEqual(lines, recipe.expected, `webpack, recipe ${i + 1}`);
    }
  });

  test("esbuild with the README's line", async () => {
    const command = README.match(/`(esbuild app\.js [^`]+)`/)?.[1];
    assert.ok(command, 'the README gives the esbuild command');
    for (const [i, recipe] of RECIPES.entries()) {
      const root = folder(`esbuild-${i}`, { 'index.html': PAGE('type="module" src="./dist/app.js"'), 'app.js': recipe.code });
      mkdirSync(join(root, 'node_modules'), { recursive: true });
      // The line names node_modules/attention-step-by-step as a user's project has it.
      run('ln', ['-sfn', join(dir, 'node_modules', 'attention-step-by-step'), join(root, 'node_modules', 'attention-step-by-step')], root);
      const output = run('bash', ['-c', command.replace(/^esbuild /, 'esbuild --log-level=warning ')], root, { PATH: `${BIN}:${process.env.PATH}` });
      assert.equal(output, '', 'esbuild printed no warning');
      assertNoMachinePath(join(root, 'dist'), `esbuild, recipe ${i + 1}`);
      const log = pageLog(recipe.expected.length);
      const lines = await withServedPage(browser, root, { before: (page) => log.listen(page) }, () => log.lines());
      assert.deepEqual(lines, recipe.expected, `esbuild, recipe ${i + 1}`);
    }
  });

  // esbuild bundled a worker file holding only `import 'attention-step-by-step/worker'` to 0 bytes (the package said
  // it had no side effects), and createAttention({ worker: true, workerUrl }) waited more than 150 s; an empty
  // worker script did the same. The file now bundles to the worker, and a worker that never answers is an error.
  test('esbuild: a worker file that imports the worker entry is the worker; an empty one is a named error in workerTimeoutMs', async () => {
    const app = `import { createAttention } from 'attention-step-by-step';
const here = (file) => new URL(file, import.meta.url);
const attn = await createAttention({ worker: true, threads: 1, workerUrl: here('./my-worker.js'), wasmPaths: here('./wasm/') });
console.log(attn.format(await attn.softmax([0, 0])));
await attn.dispose();
try {
  await createAttention({ worker: true, threads: 1, workerUrl: here('./empty-worker.js'), workerTimeoutMs: 1000 });
  console.log('started');
} catch (e) {
  console.log(e.code);
  console.log(e.message);
}
`;
    const root = folder('esbuild-own-worker', { 'index.html': PAGE('type="module" src="./dist/app.js"'), 'app.js': app,
      'my-worker.js': "import 'attention-step-by-step/worker';\n", 'dist/empty-worker.js': '' });
    const output = run(join(BIN, 'esbuild'), ['app.js', 'my-worker.js', '--bundle', '--format=esm', '--outdir=dist', '--log-level=warning'], root);
    assert.equal(output, '');
    assert.ok(statSync(join(root, 'dist', 'my-worker.js')).size > 100000, 'the worker bundled whole');
    run('cp', ['-r', join(dir, 'node_modules', 'attention-step-by-step', 'web', 'lib', 'wasm'), join(root, 'dist')], root);
    const log = pageLog(3);
    const lines = await withServedPage(browser, root, { headers: ISOLATION_HEADERS, before: (page) => log.listen(page) }, () => log.lines());
    assert.equal(lines[0], 'tensor([0.5000, 0.5000])');
    assert.equal(lines[1], 'ERR_ATTN_WORKER');
    assert.match(lines[2], /^createAttention: the worker http:\/\/127\.0\.0\.1:\d+\/dist\/empty-worker\.js did not answer within 1 s: its script is empty/);
  });
});
