// Every folder of examples/ as a user would run it: the packed tarball
// installed into a copy, built with its own build command (the bundlers come
// from the repository's devDependencies), then run in Node or served to
// Chromium under a strict Content-Security-Policy. Each prints notebook 000's
// attention weights and the shipped model's next word; the expected values come
// from the golden numbers and from this repository's own build.
import assert from 'node:assert/strict';
import { cpSync, readdirSync, readFileSync, realpathSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';

import { createAttention } from '../../web/lib/index.js';
import { createServer as createViteServer } from 'vite';

import { assertClean, ISOLATION_HEADERS, launchBrowser, openPage, withServedPage } from './harness.js';
import { buildCppProject, installCppLibrary, installProject, packTarball, ROOT, run, WORK } from '../fixtures/package.js';
import { gpt2References } from '../fixtures/torch-cache.js';
import { notebook } from '../js/helpers.js';

const PROMPT = 'The cats, which slept near the dog,';
const CSP = "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; worker-src 'self'; connect-src 'self'";

let tarball;
let browser;
const expected = {};

before(async () => {
  tarball = packTarball();
  browser = await launchBrowser();
  // What every example must show: notebook 000's weights for "journey", printed as
  // torch prints them, and the word the shipped model picks greedily.
  const attn = await createAttention();
  expected.weights = attn.format(notebook('nb000.attn_weights_2'));
  const { model, tokenizer } = await attn.loadDefaultModel();
  const prompt = tokenizer.encode(PROMPT);
  expected.nextWord = tokenizer.decode(Array.from(model.generate([prompt], { maxNewTokens: 1, temperature: 0 }).data).slice(prompt.length));
  model.dispose();
});
after(() => browser?.close());

const example = (name) => join(ROOT, 'examples', name);

/** Builds with the example's own `npm run build`; returns its output, which must hold no warning. */
function build(dir) {
  const output = run('npm', ['run', '--silent', 'build'], dir, { NO_COLOR: '1' });
  assert.doesNotMatch(output, /warn|\(!\)/i, `the build warned:\n${output}`);
  return output;
}

/** The kinds of large file a bundle holds (.wasm, .safetensors), sorted. */
const shipped = (dist) => [...new Set(readdirSync(dist, { recursive: true }).map(String)
  .map((f) => /\.(wasm|safetensors)$/.exec(f)?.[0]).filter(Boolean))].sort();

/** The package's files a bundle holds, by their names in the package (a bundler adds a hash to each), sorted. */
const packageFiles = (dist) => readdirSync(dist, { recursive: true }).map(String)
  .map((f) => /(attention_wasm[\w.]*?|agreement|induction|worker)(?:-[\w-]{8})?\.(wasm|mjs|js|safetensors)$/.exec(f.split('/').at(-1)))
  .filter(Boolean).map((m) => `${m[1]}.${m[2]}`).sort();

/** A copy of an installed example whose app (its file `main`) is `source` instead. */
function withApp(dir, name, main, source) {
  const copy = join(WORK, name);
  rmSync(copy, { recursive: true, force: true });
  cpSync(dir, copy, { recursive: true });
  rmSync(join(copy, 'dist'), { recursive: true, force: true });
  writeFileSync(join(copy, main), source);
  return copy;
}

/** The kinds of large file (.wasm, .safetensors) a withoutModel app's page fetches, once it has shown its result. */
const fetchedKinds = (dir) => {
  const kinds = new Set();
  const before = (page) => page.on('request', (r) => kinds.add(/\.(wasm|safetensors)(\?|$)/.exec(new URL(r.url()).pathname)?.[0]));
  return withServedPage(browser, dir, { before }, async (page) => {
    await page.waitForFunction(() => document.querySelector('#weights').value.startsWith('tensor'), null, { timeout: 30000 });
    return [...kinds].filter(Boolean).sort();
  });
};

/** A copy of an installed example whose app computes without ever loading the model. */
const withoutModel = (dir, name, main) => withApp(dir, name, main, `import { createAttention } from 'attention-step-by-step';
const attn = await createAttention();
document.querySelector('#weights').value = attn.format(attn.softmax([1, 2, 3]));
`);

// Inputs of the threads apps and of their one-thread reference: (256, 64), the same on both sides.
const ATTENTION_INPUTS = 'const inputs = (seed) => ({ data: Float32Array.from({ length: 256 * 64 }, (_, i) => Math.sin(seed * 1000 + i * 0.37)), shape: [256, 64] });';

/**
 * A copy of an installed example whose app runs causal attention (T = 256, d = 64, enough to split over threads) in
 * createAttention({ worker: true, threads: 2 }), and shows the plan and the output.
 */
const withThreads = (dir, name, main) => withApp(dir, name, main, `import { createAttention } from 'attention-step-by-step';
${ATTENTION_INPUTS}
const attn = await createAttention({ worker: true, threads: 2 });
const y = await attn.attention(inputs(1), inputs(2), inputs(3), { causal: true });
document.querySelector('#weights').value = JSON.stringify({ threads: attn.threads.count, reason: attn.threads.reason, output: Array.from(y.data) });
document.querySelector('#next-word').value = 'done';
`);

/** What a withThreads app shows on a cross-origin-isolated page (under the strict CSP too). */
const threaded = (dir) => withServedPage(browser, dir, { headers: { ...ISOLATION_HEADERS, 'content-security-policy': CSP } }, async (page) => {
  await page.waitForFunction(() => document.querySelector('#next-word').value === 'done', null, { timeout: 30000 });
  return JSON.parse(await page.evaluate(() => document.querySelector('#weights').value));
});

/** The same attention on one thread, here: what the threaded app must show, bit for bit. */
async function oneThreadOutput() {
  const attn = await createAttention({ threads: 1 });
  const inputs = new Function(`${ATTENTION_INPUTS} return inputs;`)();
  return Array.from(attn.attention(inputs(1), inputs(2), inputs(3), { causal: true }).data);
}

/** Serves an example's page and returns the two results it shows, and the outputs of the ids in `more`. */
const shown = (dir, headers, more = []) => withServedPage(browser, dir, { headers }, async (page) => {
  await page.waitForFunction(() => document.querySelector('#next-word').value !== '…', null, { timeout: 30000 });
  return page.evaluate((ids) => Object.fromEntries([['weights', 'weights'], ['nextWord', 'next-word'], ...ids.map((id) => [id, id])]
    .map(([key, id]) => [key, document.querySelector(`#${id}`).value])), more);
});

describe('examples/', () => {
  // A new user's first command failed: npm asked the registry for attention-step-by-step@^0.1.0 (a 404). Every
  // folder depends on this checkout; those that need no bundler (whose devDependencies would come from the
  // registry) are installed here, in place, as their README says, and run.
  test('each folder installs the package from this checkout, and its first commands run', () => {
    const folders = readdirSync(join(ROOT, 'examples'), { withFileTypes: true }).filter((d) => d.isDirectory() && d.name !== 'cpp');
    assert.ok(folders.length >= 7);
    for (const { name } of folders) {
      const manifest = JSON.parse(readFileSync(join(example(name), 'package.json'), 'utf8'));
      assert.equal(manifest.dependencies['attention-step-by-step'], 'file:../..', name);
      assert.equal(manifest.type, undefined, `${name}: runs under npm's default type, commonjs`);
    }
    for (const name of ['node', 'heads-table', 'plain-html']) {
      const dir = example(name);
      try {
        run('npm', ['install', '--offline', '--no-audit', '--no-fund', '--no-package-lock', '--loglevel=error'], dir);
        assert.equal(realpathSync(join(dir, 'node_modules', 'attention-step-by-step')), realpathSync(ROOT), name);
        if (name === 'node') {
          assert.equal(run('npm', ['start', '--silent'], dir), `${expected.weights}\n${JSON.stringify(expected.nextWord)}\n`);
          assert.equal(run('node', ['require.cjs'], dir), 'tensor([[0.6590, 0.2424, 0.0986]])\n');
        }
      } finally {
        rmSync(join(dir, 'node_modules'), { recursive: true, force: true });
      }
    }
  });

  test('node: ES module and require()', () => {
    const dir = installProject('node', tarball, example('node'));
    assert.equal(run('node', ['index.mjs'], dir), `${expected.weights}\n${JSON.stringify(expected.nextWord)}\n`);
    assert.equal(run('node', ['require.cjs'], dir), 'tensor([[0.6590, 0.2424, 0.0986]])\n');
  });

  test('plain-html: an import map and a CSP meta tag, no build step', async () => {
    const dir = installProject('plain-html', tarball, example('plain-html'));
    assert.deepEqual(await shown(dir), expected); // the page's own CSP, with its import map's hash
    // The same page where the .wasm was not copied (what a bundler that ignores it leaves): the Error says how
    // to give its URL, instead of a bare 404.
    const broken = join(WORK, 'plain-html-no-wasm');
    rmSync(broken, { recursive: true, force: true });
    cpSync(dir, broken, { recursive: true });
    rmSync(join(broken, 'node_modules', 'attention-step-by-step', 'web', 'lib', 'wasm', 'attention_wasm.wasm'));
    writeFileSync(join(broken, 'main.js'), `import { createAttention } from 'attention-step-by-step';
createAttention().catch((e) => { document.querySelector('#weights').value = e.message; document.querySelector('#next-word').value = 'refused'; });
`);
    const message = await withServedPage(browser, broken, {}, async (page, problems) => {
      await page.waitForFunction(() => document.querySelector('#next-word').value === 'refused');
      // The 404 (and the browser's log of it) is what this case is about, not a problem of the page: exactly
      // that one failed request, then nothing else.
      assert.deepEqual(problems.failedResponses.map((r) => r.replace(/127\.0\.0\.1:\d+/, 'host')),
        ['404 http://host/node_modules/attention-step-by-step/web/lib/wasm/attention_wasm.wasm']);
      problems.failedResponses.length = 0;
      problems.consoleErrors = problems.consoleErrors.filter((m) => !/status of 404/.test(m));
      return page.evaluate(() => document.querySelector('#weights').value);
    });
    assert.match(message, /^createAttention: could not load the WebAssembly module from http:\/\/127\.0\.0\.1:\d+\/node_modules\/attention-step-by-step\/web\/lib\/wasm\/attention_wasm\.wasm: HTTP 404; a bundler that does not copy it can be given its URL: import wasmUrl from 'attention-step-by-step\/wasm', then createAttention\(\{ wasmUrl \}\), or the folder it serves the package's wasm\/ files from: createAttention\(\{ wasmPaths \}\)$/);
  });

  test('vite: built with no warning, runs under a strict CSP; the single-thread entry ships one module; an app that never loads the model never fetches it', async () => {
    const dir = installProject('vite', tarball, example('vite'));
    build(dir);
    assert.deepEqual(shipped(join(dir, 'dist')), ['.safetensors', '.wasm']);
    // The models are in every build (loadDefaultModel() with no URL finds its copy); the app's ?url import is the same file.
    assert.deepEqual(packageFiles(join(dir, 'dist')), ['agreement.safetensors', 'attention_wasm.wasm', 'induction.safetensors']);
    assert.deepEqual(await shown(join(dir, 'dist'), { 'content-security-policy': CSP }), expected);
    const bare = withoutModel(dir, 'vite-no-model', 'main.js');
    build(bare);
    assert.deepEqual(await fetchedKinds(join(bare, 'dist')), ['.wasm']);
  });

  // "Every bundle ships everything": a page that only called softmax on its main thread shipped both modules, the
  // threaded glue and its worker, 2.8 MB. The README's table of what each kind of app ships is measured here.
  test("what each kind of app ships, as the README's table says", async () => {
    const installed = installProject('vite', tarball, example('vite'));
    const apps = {
      single: withApp(installed, 'vite-ships-single', 'main.js', `import { createAttention } from 'attention-step-by-step/single-thread';
const attn = await createAttention();
document.querySelector('#weights').value = attn.format(attn.softmax([1, 2, 3]));
`),
      main: withApp(installed, 'vite-ships-main', 'main.js', `import { createAttention } from 'attention-step-by-step';
const attn = await createAttention();
document.querySelector('#weights').value = attn.format(attn.softmax([1, 2, 3]));
`),
      model: withApp(installed, 'vite-ships-model', 'main.js', `import { createAttention } from 'attention-step-by-step/single-thread';
import modelUrl from 'attention-step-by-step/model?url';
const attn = await createAttention();
const { model } = await attn.loadDefaultModel({ url: modelUrl });
document.querySelector('#weights').value = String(model.config.nLayer);
`),
    };
    const measured = {};
    for (const [kind, dir] of Object.entries(apps)) {
      build(dir);
      const dist = join(dir, 'dist');
      const files = readdirSync(dist, { recursive: true }).map(String).filter((f) => statSync(join(dist, f)).isFile() && !f.endsWith('.html'));
      measured[kind] = { files: packageFiles(dist), megabytes: files.reduce((sum, f) => sum + statSync(join(dist, f)).size, 0) / 1e6 };
    }
    console.log(`what each kind of app ships: ${JSON.stringify(measured)}`);
    // Every build holds the shipped models, which loadDefaultModel() with no URL fetches (and only it).
    assert.deepEqual(measured.single.files, ['agreement.safetensors', 'attention_wasm.wasm', 'induction.safetensors']);
    assert.deepEqual(measured.model.files, ['agreement.safetensors', 'attention_wasm.wasm', 'induction.safetensors']);
    assert.deepEqual(measured.main.files, ['agreement.safetensors', 'attention_wasm.wasm', 'attention_wasm_threads.mjs', 'attention_wasm_threads.wasm',
      'attention_wasm_threads.worker.js', 'induction.safetensors', 'worker.js']);
    // The README's rows, in order: each size within 5 % of what was measured (a change to the module moves them).
    const table = readFileSync(join(ROOT, 'README.md'), 'utf8').match(/<!-- app sizes -->\n([\s\S]*?)\n\n/)[1];
    const said = [...table.matchAll(/^\| [^|]+ \| [^|]+ \| ([\d.]+) MB \|$/gm)].map((m) => Number(m[1]));
    assert.equal(said.length, 3, table);
    [measured.single, measured.model, measured.main].forEach(({ megabytes }, i) => {
      assert.ok(Math.abs(said[i] - megabytes) <= 0.05 * megabytes, `row ${i + 1}: the README says ${said[i]} MB, measured ${megabytes.toFixed(2)} MB`);
    });
  });

  test('webpack: built with no warning ("Critical dependency" included), runs under a strict CSP; an app that never loads the model never fetches it', async () => {
    const dir = installProject('webpack', tarball, example('webpack'));
    build(dir);
    assert.deepEqual(shipped(join(dir, 'dist')), ['.safetensors', '.wasm']);
    assert.deepEqual(await shown(dir, { 'content-security-policy': CSP }), expected);
    const bare = withoutModel(dir, 'webpack-no-model', 'src/main.js');
    build(bare);
    assert.deepEqual(await fetchedKinds(bare), ['.wasm']);
  });

  // Vite inlined the threaded module's 3 KB worker file as a data: URL, from which a worker cannot import the
  // module on an isolated page: 30 s of waiting, then one thread. Both bundlers now ship it as a file, unconfigured.
  test('vite and webpack: threads on a cross-origin-isolated page without configuration, with the numbers of one thread', async () => {
    const expectedOutput = await oneThreadOutput();
    for (const [name, main, served] of [['vite', 'main.js', 'dist'], ['webpack', 'src/main.js', '.']]) {
      const dir = withThreads(installProject(name, tarball, example(name)), `${name}-threads`, main);
      build(dir);
      const shownThreaded = await threaded(join(dir, served));
      assert.equal(shownThreaded.threads, 2, name);
      assert.deepEqual(shownThreaded.output, expectedOutput, name);
    }
  });

  // A thread's worker that could not import the module only rejected a promise in the worker, which nobody
  // heard: the page waited out the 30 s start-up, then ran on one thread saying only that the workers did not
  // start. Here the server has the module for the worker of { worker: true } and not for the threads' worker.
  test('a threads worker that cannot load the module: one thread at once, and the page is told why', async () => {
    const dir = withThreads(installProject('vite', tarball, example('vite')), 'vite-threads-missing', 'main.js');
    build(dir);
    const headers = { ...ISOLATION_HEADERS, 'content-security-policy': CSP, 'cache-control': 'no-store' };
    const refuse = (path, nth) => /attention_wasm_threads-[\w-]+\.mjs$/.test(path) && nth > 1;
    const plan = await withServedPage(browser, join(dir, 'dist'), { headers, refuse }, async (page, problems) => {
      await page.waitForFunction(() => document.querySelector('#next-word').value === 'done', null, { timeout: 60000 });
      // The refused request, and the worker's report of it, are this case's cause, not a fault of the page.
      problems.failedResponses = problems.failedResponses.filter((r) => !/^404 .*attention_wasm_threads-[\w-]+\.mjs$/.test(r));
      problems.consoleErrors = problems.consoleErrors.filter((m) => !/status of 404|running on one thread/.test(m));
      return JSON.parse(await page.evaluate(() => document.querySelector('#weights').value));
    });
    assert.equal(plan.threads, 1);
    assert.match(plan.reason, /^the threaded module did not start: a worker did not start \(.*dynamically imported module/);
    assert.deepEqual(plan.output, await oneThreadOutput());
  });

  // Vite's dev server prepended an import to the threaded module's worker script, which a classic worker cannot
  // hold ("Cannot use import statement outside a module"): one thread, and an error blaming the API's worker.
  // Those workers are module workers now.
  test("vite's dev server: threads on a cross-origin-isolated page without configuration, with the numbers of one thread", async () => {
    const dir = withThreads(installProject('vite', tarball, example('vite')), 'vite-dev-threads', 'main.js');
    const server = await createViteServer({
      root: dir, configFile: join(dir, 'vite.config.mjs'), logLevel: 'silent',
      server: { host: '127.0.0.1', port: 0, headers: ISOLATION_HEADERS },
    });
    await server.listen();
    const origin = server.resolvedUrls.local[0].replace(/\/$/, '');
    const { page, context, problems } = await openPage(browser, origin);
    try {
      await page.goto(`${origin}/`);
      await page.waitForFunction(() => document.querySelector('#next-word').value === 'done', null, { timeout: 30000 });
      const result = JSON.parse(await page.evaluate(() => document.querySelector('#weights').value));
      assert.equal(result.threads, 2);
      assert.deepEqual(result.output, await oneThreadOutput());
      // The page asks for /favicon.ico, which the example does not have: the dev server's 404 is no fault of the app.
      problems.failedResponses = problems.failedResponses.filter((r) => !r.endsWith('/favicon.ico'));
      problems.consoleErrors = problems.consoleErrors.filter((m) => !/status of 404/.test(m));
      assertClean(problems);
    } finally {
      await context.close();
      await server.close();
    }
  });

  test('esbuild: the worker bundled as an entry and the wasm/ folder copied, named by workerUrl and wasmPaths: 2 threads on an isolated page', async () => {
    const dir = installProject('esbuild', tarball, example('esbuild'));
    build(dir);
    // Not isolated: one thread, and the page says why.
    const { threads: one, ...plain } = await shown(dir, { 'content-security-policy': CSP }, ['threads']);
    assert.deepEqual(plain, expected);
    assert.match(one, /^1: the page is not cross-origin isolated/);
    // Isolated: two threads, the same numbers.
    const { threads: two, ...isolated } = await shown(dir, { ...ISOLATION_HEADERS, 'content-security-policy': CSP }, ['threads']);
    assert.deepEqual(isolated, expected);
    assert.equal(two, '2: 2 threads were asked for');
  });

  test('web-worker: createAttention({ worker: true }) streams and trains, and the page\'s own thread never holds the module (Vite)', async () => {
    const dir = installProject('web-worker', tarball, example('web-worker'));
    build(dir);
    // From the moment the page starts: every WebAssembly module its main thread compiles or instantiates (a
    // worker's are its own), and its long tasks (over 50 ms), printed as a diagnostic: a speed, not asserted.
    const before = (page) => page.addInitScript(() => {
      window.wasmOnMainThread = [];
      for (const name of ['compile', 'compileStreaming', 'instantiate', 'instantiateStreaming']) {
        const original = WebAssembly[name];
        WebAssembly[name] = function (...args) {
          window.wasmOnMainThread.push(name);
          return original.apply(this, args);
        };
      }
      for (const name of ['Module', 'Instance']) {
        const Original = WebAssembly[name];
        WebAssembly[name] = new Proxy(Original, { construct(target, args) { window.wasmOnMainThread.push(name); return Reflect.construct(target, args); } });
      }
      window.longTasks = [];
      new PerformanceObserver((list) => window.longTasks.push(...list.getEntries().map((e) => Math.round(e.duration))))
        .observe({ type: 'longtask' });
    });
    const result = await withServedPage(browser, join(dir, 'dist'), { headers: { 'content-security-policy': CSP }, before }, async (page) => {
      await page.waitForFunction(() => document.querySelector('#trained').value === 'done', null, { timeout: 120000 });
      return page.evaluate(() => ({
        weights: document.querySelector('#weights').value,
        nextWord: document.querySelector('#next-word').value,
        streamed: document.querySelector('#continuation').value,
        loss: Number(document.querySelector('#loss').value),
        wasmOnMainThread: window.wasmOnMainThread,
        longTasks: window.longTasks,
      }));
    });
    assert.deepEqual({ weights: result.weights, nextWord: result.nextWord }, expected);
    assert.ok(result.streamed.startsWith(expected.nextWord) && result.streamed.length > 40, result.streamed);
    assert.ok(result.loss > 0 && result.loss < 3, `loss after 200 steps: ${result.loss}`);
    // All of it computed in the worker: the page's thread never had a module to compute with, so nothing it
    // computed could freeze it.
    assert.deepEqual(result.wasmOnMainThread, []);
    console.log(`web-worker example: main-thread tasks over 50 ms: ${result.longTasks.length ? `${result.longTasks.join(', ')} ms` : 'none'}`);
  });

  test('heads-table: a Hugging Face GPT-2 folder, every head measured, as the library measures it here', async () => {
    const dir = installProject('heads-table', tarball, example('heads-table'));
    const folder = gpt2References([{ name: 'small', n_layer: 2, n_head: 3, n_embd: 24, n_positions: 32 }]);
    const out = run('node', ['index.mjs', join(folder, 'small'), 'The cat sat on the mat. The cat sat on the'], dir);
    const attn = await createAttention();
    const { model, tokenizer } = await attn.loadPretrained(join(folder, 'small'));
    const ids = tokenizer.encode('The cat sat on the mat. The cat sat on the');
    const s = attn.summarizeHeads(model, ids);
    const best = s.previousToken.data.indexOf(Math.max(...s.previousToken.data));
    const lines = out.trim().split('\n');
    assert.equal(lines[0], `${ids.length} tokens; 2 layers × 3 heads`);
    assert.equal(lines.length, 2 + 6 + 1);
    // 0-based, as everywhere else (it printed layer 1 head 1 for what the API calls layer 0 head 0).
    assert.match(lines[2], new RegExp(`^\\s+${Math.floor(best / 3)}\\s+${best % 3}\\s+${s.previousToken.data[best].toFixed(3)}\\s`));
    const next = s.nextLogits.data.indexOf(Math.max(...s.nextLogits.data));
    assert.equal(lines.at(-1), `next token: ${JSON.stringify(tokenizer.decode([next]))}`);
    model.dispose();
    tokenizer.dispose();
  });

  test('cpp: find_package(attn) from an install prefix, a Hugging Face folder in one call; the library builds without a warning and passes no machine-specific flag on', async () => {
    const prefix = installCppLibrary(); // warnings are errors in its build: a warning fails it, naming itself
    const exported = readdirSync(join(prefix, 'lib', 'cmake', 'attn')).map((f) => readFileSync(join(prefix, 'lib', 'cmake', 'attn', f), 'utf8')).join('\n');
    assert.doesNotMatch(exported, /-march|-mtune|-mavx/, 'the installed target carries a CPU-specific flag');
    const build = buildCppProject('cpp', example('cpp'), prefix);
    const commands = JSON.parse(readFileSync(join(build, 'compile_commands.json'), 'utf8'));
    assert.ok(commands.length > 0);
    for (const { command } of commands) assert.doesNotMatch(command, /-march|-mtune|-mavx/, command);
    const model = join(ROOT, 'web', 'lib', 'models', 'agreement.safetensors');
    const out = run(join(build, 'hello_attention'), [model], ROOT);
    const weights = Array.from(notebook('nb000.attn_weights_2').data, (w) => w.toFixed(4)).join(' ');
    assert.equal(out, `${weights} \n${expected.nextWord}\n`);
    // A Hugging Face folder in one call (attn::load_pretrained): the next token JS's loadPretrained gives.
    const folder = join(gpt2References([{ name: 'small', n_layer: 2, n_head: 3, n_embd: 24, n_positions: 32 }]), 'small');
    const attn = await createAttention();
    const gpt2 = await attn.loadPretrained(folder);
    const ids = gpt2.model.generate([gpt2.tokenizer.encode('The cat sat on the')], { maxNewTokens: 1, temperature: 0 });
    const nextToken = gpt2.tokenizer.decode([ids.data.at(-1)]);
    gpt2.model.dispose();
    gpt2.tokenizer.dispose();
    assert.equal(run(join(build, 'hello_attention'), [model, folder], ROOT), `${weights} \n${expected.nextWord}\n${nextToken}\n`);
  });
});
