// The site's service worker: precaches every file of the build (the list and
// a content hash are filled in by vite.config.js) and answers from the cache
// first, so the tutorial works offline after one visit. A new build has a new
// hash, hence a new cache; old caches are deleted on activation.
//
// It also makes the site cross-origin isolated where the host cannot send the
// headers itself (a static host: the technique of coi-serviceworker): every
// response it gives carries COOP and COEP, so a page it served has shared
// memory, and the WebAssembly module runs on every core (web/lib/threads.js).
// page.js reloads a first visit once this worker is in control. Hosts that can
// set headers send the same two (docs/site.md) and need no reload.
const CACHE = `attention-step-by-step-${self.__BUILD_HASH__}`;
const FILES = self.__PRECACHE__; // paths relative to this worker

const ISOLATION = {
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Embedder-Policy': 'require-corp',
  // Every file is the site's own: say so, as require-corp asks of what an isolated page loads.
  'Cross-Origin-Resource-Policy': 'same-origin',
};

/** The response with the isolation headers (an opaque or error response cannot be rewritten, and needs none). */
function isolated(response) {
  if (response.type === 'opaque' || response.type === 'error') return response;
  const headers = new Headers(response.headers);
  for (const [name, value] of Object.entries(ISOLATION)) headers.set(name, value);
  return new Response(response.body, { status: response.status, statusText: response.statusText, headers });
}

self.addEventListener('install', (event) => {
  event.waitUntil(caches.open(CACHE).then((cache) => cache.addAll(FILES)).then(() => self.skipWaiting()));
});

self.addEventListener('activate', (event) => {
  event.waitUntil(
    caches
      .keys()
      .then((keys) => Promise.all(keys.filter((k) => k.startsWith('attention-step-by-step-') && k !== CACHE).map((k) => caches.delete(k))))
      .then(() => self.clients.claim()),
  );
});

self.addEventListener('fetch', (event) => {
  if (event.request.method !== 'GET') return;
  const url = new URL(event.request.url);
  if (url.origin !== location.origin) return;
  const lookup = url.pathname.endsWith('/') ? new URL('index.html', url) : url;
  event.respondWith(caches.match(lookup, { ignoreSearch: true }).then((hit) => hit ?? fetch(event.request)).then(isolated));
});
