// The site's service worker: precaches every file of the build (the list and
// a content hash are filled in by vite.config.js) and answers from the cache
// first, so the tutorial works offline after one visit. A new build has a new
// hash, hence a new cache; old caches are deleted on activation.
const CACHE = `attention-step-by-step-${self.__BUILD_HASH__}`;
const FILES = self.__PRECACHE__; // paths relative to this worker

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
  event.respondWith(caches.match(lookup, { ignoreSearch: true }).then((hit) => hit ?? fetch(event.request)));
});
