// Every code block of README.md and docs/*.md runs as written, against what a user installs:
// `js` blocks both in Node and in Chromium (a user is told they run in either), `js node` in Node alone,
// `js browser` in Chromium alone, with the packed tarball (in a page, resolved by an import map, under a strict
// policy); `js esbuild` bundled by the README's own esbuild command, and the README's `cpp` block built with its
// `cmake` block against the installed C++ library. A line `// → text` after a print is the output the block
// must print there, in order. `sh` blocks are commands for a shell and unlabelled blocks are text: neither is run.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';

import { blocks, pageLog } from './doc-blocks.js';
import { ISOLATION_HEADERS, launchBrowser, withServedPage } from './harness.js';
import { buildCppProject, installCppLibrary, installProject, packTarball, ROOT, run, WORK } from '../fixtures/package.js';

const README = readFileSync(join(ROOT, 'README.md'), 'utf8');
const DOCS = ['README.md', ...readdirSync(join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).sort().map((f) => `docs/${f}`)];
const CSP = "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; worker-src 'self'; connect-src 'self'";
const RUN = ['js', 'js node', 'js browser', 'js esbuild', 'cpp', 'cmake'];
const NOT_RUN = ['sh', ''];

const all = DOCS.flatMap(blocks);
const ofKind = (...infos) => all.filter((b) => infos.includes(b.info));
const where = (b) => `${b.file}:\n${b.code}`;

let tarball;
let browser;
before(async () => {
  tarball = packTarball();
  browser = await launchBrowser();
});
after(() => browser?.close());

/** A project with the tarball installed and `files` written into it. */
function project(name, files) {
  const dir = installProject(name, tarball, { name, private: true, type: 'module' });
  for (const [file, text] of Object.entries(files)) {
    mkdirSync(join(dir, file, '..'), { recursive: true });
    writeFileSync(join(dir, file), text);
  }
  return dir;
}

/** Serves `dir` and returns the lines its page logged, once `count` are in or the page has thrown. */
function browserLog(dir, count, headers) {
  const log = pageLog(count);
  return withServedPage(browser, dir, { headers, before: (page) => log.listen(page) }, () => log.lines());
}

describe('README.md and docs/', () => {
  test('have only block kinds this test knows, and run some of each', () => {
    assert.deepEqual(all.filter((b) => ![...RUN, ...NOT_RUN].includes(b.info)).map((b) => `${b.file}: ${b.info}`), []);
    for (const kind of ['js', 'js esbuild', 'cpp', 'cmake']) assert.ok(ofKind(kind).length > 0, kind);
    assert.equal(ofKind('cpp').length, 1);
    assert.equal(ofKind('cmake').length, 1);
  });

  test('every js block runs in Node and prints what it says', () => {
    const js = ofKind('js', 'js node');
    const dir = project('docs-node', Object.fromEntries(js.map((b, i) => [`block-${i}.mjs`, b.code])));
    js.forEach((b, i) => {
      const printed = run('node', [`block-${i}.mjs`], dir).trimEnd().split('\n');
      assert.deepEqual(printed, b.expected, where(b));
    });
  });

  test('every js block runs in Chromium and logs what it says', async () => {
    for (const [i, b] of ofKind('js', 'js browser').entries()) {
      const importMap = '{ "imports": { "attention-step-by-step": "./node_modules/attention-step-by-step/web/lib/index.js" } }';
      const hash = createHash('sha256').update(importMap).digest('base64');
      const html = `<!doctype html><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${CSP.replace("'wasm-unsafe-eval'", `'wasm-unsafe-eval' 'sha256-${hash}'`)}">
<script type="importmap">${importMap}</script><script type="module" src="./main.js"></script>`;
      const dir = project(`docs-browser-${i}`, { 'index.html': html, 'main.js': b.code });
      assert.deepEqual(await browserLog(dir, b.expected.length), b.expected, where(b));
    }
  });

  test("the js esbuild block, built with the README's esbuild command, runs in Chromium", async () => {
    const command = README.match(/`(esbuild app\.js [^`]+)`/)?.[1];
    assert.ok(command, 'the README gives the esbuild command');
    for (const [i, b] of ofKind('js esbuild').entries()) {
      const html = '<!doctype html><meta charset="utf-8"><script type="module" src="./dist/app.js"></script>';
      const dir = project(`docs-esbuild-${i}`, { 'index.html': html, 'app.js': b.code });
      const output = run('bash', ['-c', command.replace(/^esbuild /, 'esbuild --log-level=warning ')], dir,
        { PATH: `${join(ROOT, 'node_modules', '.bin')}:${process.env.PATH}` });
      assert.equal(output, '', 'esbuild printed no warning');
      // Cross-origin isolated, for the threads of docs/guide.md's block.
      assert.deepEqual(await browserLog(dir, b.expected.length, { ...ISOLATION_HEADERS, 'content-security-policy': CSP }), b.expected, where(b));
    }
  });

  test('the cpp block, built with the cmake block against the installed library, prints what it says', () => {
    const [cpp] = ofKind('cpp');
    const [cmake] = ofKind('cmake');
    const source = join(WORK, 'readme-cpp-source');
    mkdirSync(source, { recursive: true });
    writeFileSync(join(source, 'CMakeLists.txt'), cmake.code);
    writeFileSync(join(source, 'main.cpp'), cpp.code);
    const build = buildCppProject('readme-cpp', source, installCppLibrary());
    assert.deepEqual(run(join(build, 'hello'), [], build).trimEnd().split('\n'), cpp.expected);
  });
});
