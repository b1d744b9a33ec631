// "Your model", chapter 9's first section: where a model comes from. A real model from the Hugging Face Hub in one
// click (hub-models.js: each button says its download before it is pressed), or any model by its id with an access
// token for a gated one (sent to the Hub, never kept); a folder's files dropped or chosen; or the site's own model.
// A load shows its progress and can be cancelled. What the Hub sent stays in this browser (the package keeps it in
// the Cache API): the button then says so, a second load sends no request at all, and "Forget" removes it. A
// folder's files are kept too (store.js). Nothing is asked of another host before the reader clicks: the list of
// kept models is the browser's own.
import { forgetFolder, keepFolder, keptFolder } from './store.js';
import { HUB_MODELS, keptWhole, megabytes, millions } from './hub-models.js';
import { describeModel, loadFailure } from './sentences.js';

const $ = (sel) => document.querySelector(sel);
const HUB_PAGE = 'https://huggingface.co/';

/**
 * A Hub id from what the reader typed: an id, or a model's page on the Hub (https://huggingface.co/org/name/…);
 * null for an address of anything else, which is never fetched.
 */
export function idFromTyped(text) {
  const typed = text.trim();
  if (typed.startsWith(HUB_PAGE)) return typed.slice(HUB_PAGE.length).split(/[/?#]/).slice(0, 2).join('/');
  return /^(?:[a-z][a-z0-9+.-]*:|\.{0,2}\/)/i.test(typed) ? null : typed;
}

/**
 * Wires the section to `session` (session.js). onLoaded(loaded, { setAside }) runs when a model is in use;
 * onGone() when none is (a model set aside for one that then failed). Returns { refresh, loadHub, loadKeptFolder }.
 */
export function chooseModel(session, { onLoaded, onGone }) {
  let kept = []; // attn.cachedModels(): the Hub models this browser keeps
  let loading = null; // the AbortController of the load in progress
  const wholeEntry = (id) => kept.find((m) => m.id === id && keptWhole(m)) ?? null;
  const tableEntry = (id) => HUB_MODELS.find((m) => m.id === id) ?? null;

  function showProgress({ loaded, total }, verb) {
    $('#load-progress').max = total || 1;
    $('#load-progress').value = loaded;
    $('#load-status').textContent = `${verb}: ${megabytes(loaded)} of ${megabytes(total)}`;
  }

  function showError(message) {
    $('#load-error').textContent = message;
    $('#load-error').hidden = !message;
  }

  /**
   * A load of `source` with progress and Cancel: `label` names it once loaded ('' for a folder), `verb` says what its
   * progress is ("Downloading SmolLM2-135M").
   */
  async function run(source, { label, verb, bytes, accessToken, whenFailed = async () => {} }) {
    loading?.abort(new DOMException('Loading was cancelled.', 'AbortError'));
    const controller = new AbortController();
    loading = controller;
    showError('');
    $('#load-controls').hidden = false;
    $('#load-progress').value = 0;
    $('#load-status').textContent = `${verb}…`;
    const before = session.loaded();
    try {
      const result = await session.load(source, { bytes, accessToken, signal: controller.signal, onProgress: (p) => showProgress(p, verb) });
      if (loading !== controller) return null;
      $('#load-status').textContent = `Loaded${label ? ` ${label}` : ''}: ${describeModel(result.loaded.info)}.`;
      await onLoaded(result.loaded, result);
      return result.loaded;
    } catch (error) {
      await whenFailed(error);
      if (loading !== controller && error?.name === 'AbortError') return null; // replaced by a newer load
      const now = session.loaded();
      const still = now ? ` Still using: ${describeModel(now.info)}.` : before ? ' The model in use was set aside to make room for it; none is loaded now.' : '';
      if (!now && before) onGone();
      if (error?.name === 'AbortError') {
        $('#load-status').textContent = `Loading was cancelled.${still}`;
      } else {
        $('#load-status').textContent = still.trim();
        showError(loadFailure(error, { id: source.hub ?? null, token: Boolean(accessToken) }));
      }
      return null;
    } finally {
      if (loading === controller) {
        loading = null;
        $('#load-controls').hidden = true;
      }
      refresh();
    }
  }

  /** A model by its Hub id: from this browser when it keeps it whole (no request), else downloaded and kept. */
  async function loadHub(id, { accessToken } = {}) {
    const entry = wholeEntry(id);
    const name = tableEntry(id)?.name;
    const label = name ? `${name} (${id})` : id;
    const loaded = await run({ hub: id }, {
      label, verb: entry ? `Reading ${label} from this browser` : `Downloading ${label}`,
      bytes: entry?.size ?? tableEntry(id)?.download ?? Infinity, accessToken,
      // What a cancelled or failed download left of a model not kept before is not kept: nothing stays unasked.
      whenFailed: async () => {
        if (!entry) await session.remote.removeCachedModel(id).catch(() => {});
      },
    });
    if (loaded) $('#kept').hidden = true;
    return loaded;
  }

  /** Files the reader chose or dropped; kept in this browser (unless `keptBefore` says they already are). */
  async function loadFolder(files, keptBefore = null) {
    const bytes = files.filter((f) => f.name.endsWith('.safetensors')).reduce((sum, f) => sum + f.size, 0);
    const loaded = await run({ files }, { label: '', verb: 'Reading the files', bytes });
    if (!loaded) return null;
    if (keptBefore) {
      showKept(keptBefore.saved);
    } else {
      // Not awaited: the views draw while the browser writes the files, however long a large model takes. Until it
      // has, nothing is offered for removal: the folder kept before is being replaced.
      showKeptNote('Keeping the files in this browser, so that a reload does not ask for them again…', false);
      keepFolder(files, { name: files.map((f) => f.name).join(', '), model: describeModel(loaded.info) }).then(
        () => showKept(Date.now()),
        (e) => showKeptNote(`This browser would not keep the files (${e.message}); you will be asked for them again.`, false),
      );
    }
    return loaded;
  }

  function showKeptNote(text, removable) {
    $('#kept').hidden = false;
    $('#forget-model').hidden = !removable;
    $('#kept-note').textContent = text;
  }
  const showKept = (saved) => showKeptNote(`Kept in this browser since ${new Date(saved).toLocaleString()}: a reload uses it without asking again.`, true);

  // ---- the Hub's models, as buttons that say their download (or that this browser keeps them) ----------------

  function hubItem({ id, name, parameters, download, about }) {
    const entry = wholeEntry(id);
    const item = document.createElement('li');
    item.className = 'hub-model';
    item.dataset.id = id;
    const load = Object.assign(document.createElement('button'), { type: 'button', className: 'hub-load' });
    const size = document.createElement('span');
    size.className = 'hub-size';
    const shape = parameters ? `${millions(parameters)} parameters, ` : '';
    size.textContent = entry ? `${shape}kept in this browser (${megabytes(entry.size)})` : download ? `${shape}${megabytes(download)} to download` : '';
    item.dataset.kept = String(Boolean(entry));
    load.append(name ?? id, ' ', size);
    load.addEventListener('click', () => loadHub(id, { accessToken: $('#hub-token').value.trim() || undefined }));
    const text = document.createElement('span');
    text.className = 'note-text';
    text.textContent = about ? `${id}: ${about}` : id;
    const forget = Object.assign(document.createElement('button'), { type: 'button', className: 'hub-forget', textContent: 'Forget', hidden: !entry });
    forget.setAttribute('aria-label', `Forget ${name ?? id}: remove it from this browser`);
    forget.addEventListener('click', async () => {
      await session.remote.removeCachedModel(id);
      await refresh();
      $('#load-status').textContent = session.loaded()?.source.hub === id
        ? `${name ?? id} is removed from this browser; it stays in use on this page until you leave it.` : `${name ?? id} is removed from this browser.`;
    });
    item.append(load, ' ', forget, document.createElement('br'), text);
    return item;
  }

  /** The list drawn again from what this browser keeps (the table's models, then any other kept whole). */
  async function refresh() {
    kept = await session.remote.cachedModels().catch(() => []);
    const others = kept.filter((m) => keptWhole(m) && !tableEntry(m.id)).map((m) => ({ id: m.id }));
    $('#hub-models').replaceChildren(...[...HUB_MODELS, ...others].map(hubItem));
    $('#hub-offline').hidden = navigator.onLine;
  }

  async function loadTyped() {
    const id = idFromTyped($('#hub-id').value);
    if (!id) {
      showError(id === '' ? 'Type a model\'s id first, such as HuggingFaceTB/SmolLM2-135M-Instruct.'
        : 'Type a model\'s id on the Hugging Face Hub, such as HuggingFaceTB/SmolLM2-135M-Instruct: addresses of other sites are not fetched.');
      return;
    }
    await loadHub(id, { accessToken: $('#hub-token').value.trim() || undefined });
  }
  // A form, so that Enter in either field loads (and the browser knows the token field for what it is).
  $('#hub-form').addEventListener('submit', (e) => {
    e.preventDefault();
    loadTyped();
  });
  $('#cancel-load').addEventListener('click', () => loading?.abort(new DOMException('Loading was cancelled.', 'AbortError')));
  for (const event of ['online', 'offline']) addEventListener(event, () => ($('#hub-offline').hidden = navigator.onLine));

  // ---- a folder's files, and the site's own model -------------------------------------------------------------

  $('#load-shipped').addEventListener('click', async () => {
    const loaded = await run({ shipped: true }, { label: 'the site\'s own model', verb: 'Loading the site\'s own model', bytes: 0 });
    if (loaded) $('#kept').hidden = true;
  });
  $('#model-files').addEventListener('change', (e) => {
    const files = [...e.target.files];
    e.target.value = '';
    if (files.length) loadFolder(files);
  });
  const zone = $('#drop-zone');
  zone.addEventListener('dragover', (e) => {
    e.preventDefault();
    zone.classList.add('dragging');
  });
  zone.addEventListener('dragleave', () => zone.classList.remove('dragging'));
  zone.addEventListener('drop', (e) => {
    e.preventDefault();
    zone.classList.remove('dragging');
    const files = [...e.dataTransfer.files];
    if (files.length) loadFolder(files);
  });
  $('#forget-model').addEventListener('click', async () => {
    try {
      await forgetFolder();
    } catch (e) {
      $('#kept-note').textContent = `This browser would not remove the files (${e.message}); they may still be kept.`;
      return;
    }
    $('#kept').hidden = true;
    const now = session.loaded();
    $('#load-status').textContent = now?.source.files
      ? `Removed from this browser. The model stays loaded on this page until you leave it: ${describeModel(now.info)}.` : 'Removed from this browser.';
  });

  /** The folder this browser keeps, loaded (a reload's start); false when there is none. */
  async function loadKeptFolder() {
    const folder = await keptFolder().catch(() => null);
    if (!folder) return false;
    $('#load-status').textContent = 'Loading the model kept in this browser…';
    await loadFolder(folder.files, folder);
    return true;
  }

  return { refresh, loadHub, loadKeptFolder, isKept: (id) => wholeEntry(id) !== null, idFromTyped };
}
