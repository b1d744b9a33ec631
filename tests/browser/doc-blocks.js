// The fenced code blocks of README.md and docs/*.md, and the lines a page logs, shared by the tests that run the
// blocks: as written, against the tarball (docs.test.js), and in each bundler's production build (recipes.test.js).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { ROOT } from '../fixtures/package.js';

/** The fenced blocks of one file: { file, info, code, expected }, in order; expected is every `// → ` line. */
export function blocks(file) {
  const markdown = readFileSync(join(ROOT, file), 'utf8');
  const found = [];
  const fence = /^( *)```([^\n`]*)\n([\s\S]*?)^\1```$/gm;
  for (const [, indent, info, body] of markdown.matchAll(fence)) {
    const code = body.split('\n').map((line) => line.slice(indent.length)).join('\n');
    const expected = code.split('\n').filter((l) => /^\s*\/\/ → /.test(l)).map((l) => l.replace(/^\s*\/\/ → /, ''));
    found.push({ file, info: info.trim(), code, expected });
  }
  return found;
}

/**
 * The lines `page` logs: `listen(page)` before it loads, then `lines` resolves once `count` are in or the page has
 * thrown or crashed (what it logged is then compared, and the error reported by the harness). A page that stops
 * logging short of `count` is reported after a minute, not waited on for ever.
 */
export function pageLog(count) {
  const logged = [];
  let done;
  const finished = new Promise((resolve) => { done = resolve; });
  return {
    listen(page) {
      page.on('console', (msg) => {
        if (msg.type() === 'log') logged.push(...msg.text().split('\n'));
        if (logged.length >= count) done();
      });
      page.on('pageerror', done);
      page.on('crash', done);
      this.page = page;
    },
    async lines() {
      await Promise.race([finished, this.page.waitForEvent('close', { timeout: 60000 }).catch(() => {})]);
      return logged;
    },
  };
}
