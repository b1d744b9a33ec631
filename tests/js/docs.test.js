// The documents hold together: every relative link of README.md and docs/*.md reaches a file of this repository
// (and a heading, when it names one), and docs/performance.md's tables are bench/results.md's. The README once
// sent readers to sections that had moved; performance pages quoted runs that no file recorded.
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

import { DOC, RESULTS, withResults } from '../../bench/performance-doc.mjs';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const FILES = ['README.md', 'examples/README.md', ...readdirSync(join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)];

/** A heading's anchor as GitHub makes it: lower case, punctuation dropped, spaces as hyphens. */
const anchor = (heading) => heading.trim().toLowerCase().replace(/[^\p{L}\p{N} _-]/gu, '').replace(/ /g, '-');

function anchorsOf(path) {
  const text = readFileSync(join(ROOT, path), 'utf8').replace(/^```[\s\S]*?^```/gm, '');
  return new Set([...text.matchAll(/^#+ (.+)$/gm)].map(([, heading]) => anchor(heading.replace(/`/g, ''))));
}

// The README links the repository's files absolutely, as the package's front page (the tarball holds none of
// docs/, examples/ or cpp/; package.test.js checks what it links relatively): those links are held to the same rule.
const REPOSITORY = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).repository.url.replace(/^git\+/, '').replace(/\.git$/, '');
const IN_REPOSITORY = new RegExp(`^${REPOSITORY.replace(/[.]/g, '\\.')}/(?:blob|tree)/main/`);

test('every relative link of the documents, and every link into the repository, reaches a file, and a heading when it names one', () => {
  const broken = [];
  for (const file of FILES) {
    const text = readFileSync(join(ROOT, file), 'utf8').replace(/^```[\s\S]*?^```/gm, '');
    for (const [, link] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
      const inRepository = IN_REPOSITORY.test(link);
      if (link.startsWith(`${REPOSITORY}/`) && !inRepository) broken.push(`${file}: ${link} (not a file on main, which this test reads)`);
      if (/^[a-z]+:/.test(link) && !inRepository) continue; // https:, mailto:
      const target = inRepository ? link.replace(IN_REPOSITORY, '') : link;
      const [path, hash] = target.split('#');
      const resolved = inRepository ? normalize(path) : path ? normalize(join(dirname(file), path)) : file;
      if (!existsSync(join(ROOT, resolved))) broken.push(`${file}: ${link} (no ${resolved})`);
      else if (hash && resolved.endsWith('.md') && !anchorsOf(resolved).has(hash)) broken.push(`${file}: ${link} (no heading #${hash})`);
    }
  }
  assert.deepEqual(broken, []);
});

test("docs/performance.md's tables are bench/results.md's (node bench/performance-doc.mjs copies them)", () => {
  const doc = readFileSync(DOC, 'utf8');
  assert.equal(doc, withResults(doc, readFileSync(RESULTS, 'utf8')));
  assert.match(doc, /\| attention\/causal\/1024 \|/);
});

test('the README is a front page: at most 300 lines', () => {
  const lines = readFileSync(join(ROOT, 'README.md'), 'utf8').split('\n').length;
  assert.ok(lines <= 300, `README.md has ${lines} lines`);
});
