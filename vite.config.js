// The tutorial site: a multi-page static build in dist/, every URL relative
// (base './') so the folder works from any sub-path and any plain static
// server, with a service worker that precaches it for offline use; and
// `npm run dev`, Vite's dev server, which also rebuilds the WASM module when
// the C++ changes.
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { extname, relative, resolve } from 'node:path';

import { defineConfig } from 'vite';

import { buildApiReference } from './tools/api-reference.js';

const site = resolve(import.meta.dirname, 'web/site');
const chapters = readdirSync(resolve(site, 'chapters')).filter((f) => f.endsWith('.html'));

// The hosts chapter 9 downloads a model from when the reader asks for one by its Hub id: the Hugging Face Hub, and the
// file hosts its resolve/ URLs redirect the weights to, which a fetch must be allowed to follow (a policy checks every
// redirect). They have been cdn-lfs(-us-1|-eu-1).huggingface.co, cdn-lfs(-us-1).hf.co, cas-bridge.xethub.hf.co and the
// regional *.cdn.hf.co hosts; hf.co is the Hub's own domain, so any host under it fits. Only fetches: no script,
// style, image or frame comes from them. Nothing is fetched from them unasked (tests/browser/your-model-hub.test.js).
const HUB_HOSTS = [
  'https://huggingface.co',
  'https://cdn-lfs.huggingface.co',
  'https://cdn-lfs-us-1.huggingface.co',
  'https://cdn-lfs-eu-1.huggingface.co',
  'https://*.hf.co',
];

// No third-party script or style, no eval, no inline script. WebAssembly compilation needs
// 'wasm-unsafe-eval' (which allows nothing else). Inline styles are allowed:
// three.js's SVGRenderer styles each shape through a style attribute; styles
// cannot run code.
const CSP = [
  "default-src 'self'",
  "script-src 'self' 'wasm-unsafe-eval'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: blob:",
  "font-src 'self'",
  `connect-src 'self' ${HUB_HOSTS.join(' ')}`,
  "worker-src 'self'",
  "object-src 'none'",
  "base-uri 'self'",
].join('; ');

const ISOLATION_HEADERS = {
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Embedder-Policy': 'require-corp',
};

function pageHead() {
  return {
    name: 'attn-page-head',
    transformIndexHtml(html, ctx) {
      const root = ctx.path.includes('/chapters/') ? '..' : '.';
      const icon = { tag: 'link', attrs: { rel: 'icon', type: 'image/svg+xml', href: `${root}/favicon.svg` }, injectTo: 'head' };
      // The colour theme is set before the page is drawn (a blocking classic script, web/site/public/theme.js).
      const theme = { tag: 'script', attrs: { src: `${root}/theme.js` }, injectTo: 'head-prepend' };
      // The policy only in the build: the dev server's hot reload runs inline scripts.
      if (ctx.server) return [theme, icon];
      return [{ tag: 'meta', attrs: { 'http-equiv': 'Content-Security-Policy', content: CSP }, injectTo: 'head-prepend' }, theme, icon];
    },
  };
}

// After the pages are written: dist/api/, the API reference generated from the
// package's type declarations under the same policy (tools/api-reference.js),
// then dist/sw.js: web/site/service-worker.js with the list of built files a reader can keep offline (the
// reference too), their size and a hash of their contents (a new build, a new cache).
function apiReferenceAndServiceWorker() {
  return {
    name: 'attn-api-reference-and-service-worker',
    apply: 'build',
    async closeBundle() {
      const dist = resolve(import.meta.dirname, 'dist');
      await buildApiReference(resolve(dist, 'api'), CSP);
      const files = readdirSync(dist, { recursive: true })
        // .json: chapter 9's snapshots (induction/index.json), without which it did not work offline.
        .filter((f) => /\.(html|m?js|css|wasm|svg|woff2|safetensors|json)$/.test(f) && f !== 'sw.js')
        .sort();
      const hash = createHash('sha256');
      for (const f of files) hash.update(f).update(readFileSync(resolve(dist, f)));
      const source = readFileSync(resolve(site, 'service-worker.js'), 'utf8')
        .replace('self.__BUILD_HASH__', JSON.stringify(hash.digest('hex').slice(0, 16)))
        .replace('self.__PRECACHE__', JSON.stringify(files.map((f) => `./${relative(dist, resolve(dist, f))}`)))
        .replace('self.__PRECACHE_BYTES__', String(files.reduce((sum, f) => sum + statSync(resolve(dist, f)).size, 0)));
      writeFileSync(resolve(dist, 'sw.js'), source);
    },
  };
}

// npm run dev: when a file under cpp/ or CMakeLists.txt changes, rebuild the
// WASM module (tools/build.sh wasm, one build at a time) and reload the page;
// a compile error shows in Vite's overlay and the terminal, and the page keeps
// the last good module. The API reference is generated once and served at api/.
function devWasmAndApi() {
  const root = import.meta.dirname;
  return {
    name: 'attn-dev-wasm-and-api',
    apply: 'serve',
    async configureServer(server) {
      const api = resolve(root, 'build/dev-api');
      await buildApiReference(api, CSP);
      server.middlewares.use('/api', async (req, res, next) => {
        const path = resolve(api, `.${decodeURIComponent(new URL(req.url, 'http://x').pathname)}`);
        if (!path.startsWith(api)) return next();
        try {
          const body = await readFile(path.endsWith('/') ? `${path}index.html` : path);
          const type = { '.html': 'text/html', '.js': 'text/javascript', '.css': 'text/css', '.svg': 'image/svg+xml' }[extname(path)];
          res.setHeader('content-type', type ?? 'application/octet-stream');
          res.end(body);
        } catch {
          next();
        }
      });

      let building = null;
      let again = false;
      const rebuild = () => {
        if (building) {
          again = true;
          return;
        }
        server.config.logger.info('C++ changed: rebuilding the WASM module (tools/build.sh wasm)…', { timestamp: true });
        let output = '';
        building = spawn('bash', ['tools/build.sh', 'wasm'], { cwd: root });
        building.stdout.on('data', (d) => (output += d));
        building.stderr.on('data', (d) => (output += d));
        building.on('close', (code) => {
          building = null;
          if (code === 0) {
            server.config.logger.info('WASM module rebuilt; reloading.', { timestamp: true });
            server.ws.send({ type: 'full-reload' });
          } else {
            server.config.logger.error(output, { timestamp: true });
            server.ws.send({ type: 'error', err: { message: `tools/build.sh wasm failed:\n${output.slice(-4000)}`, stack: '' } });
          }
          if (again) {
            again = false;
            rebuild();
          }
        });
      };
      server.watcher.add([resolve(root, 'cpp'), resolve(root, 'CMakeLists.txt')]);
      const isCpp = (file) => file.startsWith(resolve(root, 'cpp')) || file === resolve(root, 'CMakeLists.txt');
      // A new or deleted file counts too: a header added and then included, a source listed in CMakeLists.txt.
      for (const event of ['change', 'add', 'unlink']) server.watcher.on(event, (file) => isCpp(file) && rebuild());
    },
  };
}

export default defineConfig({
  root: site,
  base: './',
  plugins: [pageHead(), apiReferenceAndServiceWorker(), devWasmAndApi()],
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
  // Both servers send the headers that make a page cross-origin isolated (docs/site.md), so that the module
  // runs threaded in the site's workers; a static host gets them from the site's service worker instead.
  server: {
    host: '127.0.0.1',
    port: 5173,
    headers: ISOLATION_HEADERS,
  },
  preview: {
    host: '127.0.0.1',
    port: 4173,
    headers: ISOLATION_HEADERS,
  },
});
