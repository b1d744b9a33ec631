// The site's service worker. It keeps what a reader's pages fetch (cache first, filled as they are fetched), so a
// page once opened works offline, and downloads nothing on its own: a first visit used to precache the whole
// build, 8.9 MB, unasked. The whole build (the list, its size and a content hash are filled in by vite.config.js)
// is kept only when the reader asks ("Keep every chapter offline" on the index, offline-keeper.js). A new build
// has a new hash, hence a new cache; old caches are deleted on activation.
//
// It also makes the site cross-origin isolated where the host cannot send the
// headers itself (a static host: the technique of coi-serviceworker): every
// response it gives carries COOP and COEP, so a page it served has shared
// memory, and the WebAssembly module runs on every core (web/lib/threads.js).
// page.js reloads a first visit once this worker is in control. Hosts that can
// set headers send the same two (docs/site.md) and need no reload.
const CACHE = `attention-step-by-step-${self.__BUILD_HASH__}`;
const FILES = self.__PRECACHE__; // paths relative to this worker: the whole build
const BYTES = self.__PRECACHE_BYTES__; // their size

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

self.addEventListener('install', () => self.skipWaiting());

// The index's offline keeper: {type: 'offline-size'} is answered with {type: 'offline-size', files, bytes, kept}
// (kept: every file is already cached); {type: 'keep-offline'} caches the whole build and answers {type: 'kept'}
// or {type: 'keep-failed', message}.
self.addEventListener('message', (event) => {
  const reply = (message) => event.source?.postMessage(message);
  if (event.data?.type === 'offline-size') {
    event.waitUntil(caches.open(CACHE).then((cache) => Promise.all(FILES.map((f) => cache.match(new URL(f, location.href)))))
      .then((hits) => reply({ type: 'offline-size', files: FILES.length, bytes: BYTES, kept: hits.every(Boolean) })));
  } else if (event.data?.type === 'keep-offline') {
    event.waitUntil(caches.open(CACHE).then((cache) => cache.addAll(FILES))
      .then(() => reply({ type: 'kept', files: FILES.length, bytes: BYTES }), (error) => reply({ type: 'keep-failed', message: String(error?.message ?? error) })));
  }
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
  lookup.search = '';
  event.respondWith(caches.match(lookup, { ignoreSearch: true }).then((hit) => hit ?? fetch(event.request).then((response) => {
    // Kept as fetched (a whole 200, not a range or an error), for the next visit and for offline use.
    if (response.ok && response.status === 200 && response.type === 'basic') {
      const copy = response.clone();
      event.waitUntil(caches.open(CACHE).then((cache) => cache.put(lookup, copy)));
    }
    return response;
  })).then(isolated));
});
