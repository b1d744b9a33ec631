// The API reference (dist/api, generated from web/lib/index.d.ts by
// tools/api-reference.js during the site build): served under the site's own
// Content-Security-Policy with nothing refused and nothing fetched from another
// host, searchable offline, and every chapter's "In code" link lands on the
// function it names.
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';

import { assertClean, DIST, openPage, useSite } from './harness.js';

const site = useSite();
const csp = (html) => html.match(/http-equiv="Content-Security-Policy" content="([^"]+)"/)?.[1].replaceAll('&#39;', "'");

describe('the API reference', () => {
  test('has the site\'s Content-Security-Policy on every page', () => {
    const sitePolicy = csp(readFileSync(join(DIST, 'index.html'), 'utf8'));
    assert.ok(sitePolicy?.includes("script-src 'self' 'wasm-unsafe-eval'"), sitePolicy);
    for (const page of ['api/index.html', 'api/interfaces/Attention.html', 'api/functions/createAttention.html']) {
      const html = readFileSync(join(DIST, page), 'utf8');
      assert.equal(csp(html), sitePolicy, page);
      assert.doesNotMatch(html, /<script>/, `${page} has no inline script`);
      // The site's icon, so that no page asks the server for /favicon.ico (a 404 on a static host).
      const icon = html.match(/<link rel="icon" type="image\/svg\+xml" href="([^"]+)"/)?.[1];
      assert.ok(icon && existsSync(join(DIST, page, '..', icon)), `${page}: icon ${icon}`);
    }
  });

  test('renders under that policy and searches offline', async () => {
    const { page, context, problems } = await openPage(site.browser, site.server.origin);
    await page.goto(`${site.server.url}api/index.html`);
    // TypeDoc's theme script (moved out of line) ran, and its app showed the page.
    await page.waitForFunction(() => document.documentElement.dataset.theme && document.body.style.display !== 'none');
    await page.click('#tsd-search-trigger');
    await page.fill('#tsd-search-input', 'softmax');
    await page.waitForSelector('#tsd-search-results li');
    const results = await page.$$eval('#tsd-search-results li', (items) => items.map((li) => li.textContent));
    assert.ok(results.some((r) => r.includes('softmax')), results.join(' | '));
    assertClean(problems);
    await context.close();
  });

  test('every chapter\'s "In code" links land on what they name', async () => {
    const chapters = ['1-why-attention', '2-self-attention', '3-trainable-weights', '4-scaling', '5-masking',
      '6-multi-head', 'positions', '7-language-model', 'at-scale'];
    for (const chapter of chapters) {
      const { page, context, problems } = await site.load(`chapters/${chapter}`);
      const links = await page.$$eval('.in-code a', (as) => as.map((a) => ({ href: a.href, text: a.textContent })));
      assert.ok(links.length >= 2, `${chapter} links the API`);
      for (const { href, text } of links) {
        const target = await context.newPage();
        const response = await target.goto(href);
        assert.equal(response.status(), 200, href);
        const hash = new URL(href).hash.slice(1);
        if (hash) {
          const heading = await target.$eval(`[id="${hash}"]`, (el) => el.closest('section, .tsd-panel')?.textContent ?? el.textContent);
          // The anchor is the member the link names: attn.softmax → Attention#softmax.
          assert.match(heading, new RegExp(text.replace(/^(new )?attn\./, '').replace(/[^\w]/g, ''), 'i'), href);
        }
        await target.close();
      }
      assertClean(problems);
      await context.close();
    }
  });
});
