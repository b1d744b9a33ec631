// The tutorial site: a multi-page static build in dist/, every URL relative
// (base './') so the folder works from any sub-path and any plain static
// server, with a service worker that precaches it for offline use.
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { relative, resolve } from 'node:path';

import { defineConfig } from 'vite';

const site = resolve(import.meta.dirname, 'web/site');
const chapters = readdirSync(resolve(site, 'chapters')).filter((f) => f.endsWith('.html'));

// No third-party host, no eval, no inline script. WebAssembly compilation needs
// 'wasm-unsafe-eval' (which allows nothing else). Inline styles are allowed:
// three.js's SVGRenderer styles each shape through a style attribute; styles
// cannot run code. Injected at build time only (the dev server's HMR differs).
const CSP = [
  "default-src 'self'",
  "script-src 'self' 'wasm-unsafe-eval'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: blob:",
  "font-src 'self'",
  "connect-src 'self'",
  "worker-src 'self'",
  "object-src 'none'",
  "base-uri 'self'",
].join('; ');

function pageHead() {
  return {
    name: 'attn-page-head',
    apply: 'build',
    transformIndexHtml(html, ctx) {
      const root = ctx.path.includes('/chapters/') ? '..' : '.';
      return [
        { tag: 'meta', attrs: { 'http-equiv': 'Content-Security-Policy', content: CSP }, injectTo: 'head-prepend' },
        { tag: 'link', attrs: { rel: 'icon', type: 'image/svg+xml', href: `${root}/favicon.svg` }, injectTo: 'head' },
      ];
    },
  };
}

// dist/sw.js: web/site/service-worker.js with the list of built files to
// precache and a hash of their contents (a new build, a new cache).
function serviceWorker() {
  return {
    name: 'attn-service-worker',
    apply: 'build',
    closeBundle() {
      const dist = resolve(import.meta.dirname, 'dist');
      const files = readdirSync(dist, { recursive: true })
        .filter((f) => /\.(html|js|css|wasm|svg|woff2|safetensors)$/.test(f) && f !== 'sw.js')
        .sort();
      const hash = createHash('sha256');
      for (const f of files) hash.update(f).update(readFileSync(resolve(dist, f)));
      const source = readFileSync(resolve(site, 'service-worker.js'), 'utf8')
        .replace('self.__BUILD_HASH__', JSON.stringify(hash.digest('hex').slice(0, 16)))
        .replace('self.__PRECACHE__', JSON.stringify(files.map((f) => `./${relative(dist, resolve(dist, f))}`)));
      writeFileSync(resolve(dist, 'sw.js'), source);
    },
  };
}

export default defineConfig({
  root: site,
  base: './',
  plugins: [pageHead(), serviceWorker()],
  worker: { format: 'es' },
  build: {
    outDir: '../../dist',
    emptyOutDir: true,
    target: 'es2022',
    // Every asset a file of its own: a data: URI (Vite inlines small fonts) would need font-src data:.
    assetsInlineLimit: 0,
    rollupOptions: {
      input: {
        index: resolve(site, 'index.html'),
        ...Object.fromEntries(chapters.map((f) => [f.replace('.html', ''), resolve(site, 'chapters', f)])),
      },
    },
  },
  preview: {
    host: '127.0.0.1',
    port: 4173,
  },
});
