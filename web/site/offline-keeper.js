// The index's "Keep every chapter offline": the service worker keeps what the reader opens, and the whole site
// (every chapter, its models and snapshots, the API reference) only when asked here, its size said first.
const MB = (bytes) => `${(bytes / 1e6).toFixed(1)} MB`;

/** Wires the button and status of the index's footer to the service worker (hidden where there is none). */
export function offlineKeeper(button, status) {
  if (!('serviceWorker' in navigator) || import.meta.env.DEV) return;
  const worker = navigator.serviceWorker.ready.then((registration) => registration.active);
  navigator.serviceWorker.addEventListener('message', ({ data }) => {
    if (data?.type === 'offline-size') {
      button.hidden = false;
      button.disabled = data.kept;
      button.textContent = `Keep every chapter offline (${MB(data.bytes)})`;
      status.textContent = data.kept ? 'Every chapter is kept in this browser: the whole site works offline.'
        : 'Pages you open are kept for offline use; this keeps the rest too.';
    } else if (data?.type === 'kept') {
      button.disabled = true;
      status.textContent = `Kept: ${data.files} files, ${MB(data.bytes)}. The whole site now works offline.`;
      status.dataset.kept = 'true';
    } else if (data?.type === 'keep-failed') {
      button.disabled = false;
      status.textContent = `Could not keep every file (${data.message}); pages you open are still kept.`;
    }
  });
  button.addEventListener('click', async () => {
    button.disabled = true;
    status.textContent = 'Keeping every chapter…';
    (await worker).postMessage({ type: 'keep-offline' });
  });
  worker.then((active) => active.postMessage({ type: 'offline-size' }));
}
