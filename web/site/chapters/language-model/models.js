// Chapter 8's list of models: the shipped one and the reader's (trained here
// or uploaded, kept in the browser by components/model-store.js); choosing,
// downloading, deleting and uploading them. Changing the active model emits
// 'model'.
import { confirmDialog } from '../../components/confirm.js';
import { showProblem } from '../../components/inputs.js';
import { deleteModel, getActiveId, listModels, modelBytes, saveModel, setActiveId } from '../../components/model-store.js';
import { quote } from './state.js';

const $ = (sel) => document.querySelector(sel);

/** What the list shows of a checkpoint: its size and tokens. */
export function describeBytes(attn, bytes) {
  const ck = attn.loadCheckpoint(bytes);
  try {
    const c = ck.model.config;
    return { iter: ck.iter, layers: c.nLayer, heads: c.nHead, nEmbd: c.nEmbd, tokenizer: ck.tokenizer.kind };
  } finally {
    ck.model.dispose();
    ck.tokenizer.dispose();
  }
}

export function modelList(state) {
  const { attn } = state;

  function render() {
    const item = (id, name, detail, meta) => {
      const li = document.createElement('li');
      li.dataset.model = id;
      const label = document.createElement('label');
      const radio = Object.assign(document.createElement('input'), { type: 'radio', name: 'active-model', value: id });
      radio.checked = (state.active?.meta.id ?? 'shipped') === id;
      radio.addEventListener('change', () => activate(id));
      label.append(radio, ` ${name} `);
      label.append(Object.assign(document.createElement('span'), { className: 'note-text', textContent: detail }));
      li.append(label);
      if (meta) {
        const download = Object.assign(document.createElement('button'), { type: 'button', textContent: 'Download', className: 'download' });
        download.setAttribute('aria-label', `Download ${name}`);
        download.addEventListener('click', () => downloadModel(meta));
        const remove = Object.assign(document.createElement('button'), { type: 'button', textContent: 'Delete', className: 'delete' });
        remove.setAttribute('aria-label', `Delete ${name}`);
        remove.addEventListener('click', () => removeModel(meta));
        li.append(download, remove);
      }
      return li;
    };
    const detail = (m) => `${m.layers} layers, ${m.heads} heads, n_embd ${m.nEmbd}, ${m.tokenizer === 'word' ? 'words' : 'characters'}` +
      `${m.iter != null ? `, step ${m.iter}` : ''} · ${m.source}`;
    $('#model-list').replaceChildren(
      item('shipped', 'The shipped model', '2 layers, 4 heads, n_embd 64, words · trained on the agreement corpus by npm run train:model'),
      ...state.saved.map((m) => item(m.id, m.name, detail(m), m)),
      ...(state.storageProblem ? [Object.assign(document.createElement('li'), { className: 'note-text storage-problem', textContent: state.storageProblem })] : []),
    );
  }

  function describeActive() {
    const { active } = state;
    const { model, tokenizer } = state.current();
    const c = model.config;
    const what = active
      ? `Active model: yours, “${active.meta.name}” (${c.nLayer} layers, ${c.nHead} heads, ${tokenizer.kind === 'word' ? 'words' : 'characters'}${active.meta.iter != null ? `, trained ${active.meta.iter} steps` : ''}).`
      : 'Active model: the shipped one (2 layers, 4 heads, trained on the agreement corpus).';
    $('#active-model').textContent = `${what} Everything below is computed from it.`;
    $('#active-model').dataset.active = active ? active.meta.id : 'shipped';
    $('#use-shipped').disabled = active === null;
    const pieces = tokenizer.pieces;
    $('#known-words summary').textContent = `The ${pieces.length} ${tokenizer.kind === 'word' ? 'words and marks' : 'characters'} this model can read`;
    $('#known-words-list').textContent = pieces.map(quote).join(' ');
  }

  function disposeActive() {
    state.active?.model.dispose();
    state.active?.tokenizer.dispose();
    state.active = null;
  }

  /** Makes the shipped model ('shipped') or a saved one active; a file that cannot be read leaves the active one. */
  async function activate(id) {
    const problem = $('#model-error');
    try {
      if (id === 'shipped') {
        disposeActive();
      } else {
        const meta = state.saved.find((m) => m.id === id);
        const bytes = await modelBytes(id);
        const ck = attn.loadCheckpoint(bytes); // a damaged file throws here; the active model stays
        disposeActive();
        state.active = { meta, model: ck.model, tokenizer: ck.tokenizer, bytes };
      }
      problem.hidden = true;
      // Remembered for the next visit where storage works; where it fails or does not answer, the switch stands.
      await setActiveId(id).catch(() => {});
    } catch (error) {
      problem.textContent = `That model could not be loaded, so the active one stays: ${error.message}`;
      problem.hidden = false;
    }
    render();
    state.probeReport = null;
    describeActive();
    state.emit('model');
    state.link?.record();
  }

  async function downloadModel(meta) {
    const bytes = await modelBytes(meta.id);
    const url = URL.createObjectURL(new Blob([bytes], { type: 'application/octet-stream' }));
    const a = Object.assign(document.createElement('a'), { href: url, download: `${meta.name.replace(/[^\w.-]+/g, '-')}.safetensors` });
    a.click();
    setTimeout(() => URL.revokeObjectURL(url), 1000);
  }

  async function removeModel(meta) {
    if (!(await confirmDialog(`Delete “${meta.name}” from this browser? Its checkpoint, loss curve and samples go with it.`, { confirm: 'Delete', cancel: 'Keep it' }))) return;
    await deleteModel(meta.id);
    await readSaved();
    if (state.active?.meta.id === meta.id) await activate('shipped');
    else render();
  }

  /** Saves a model (a run's checkpoint, an upload) under `meta` and lists it; returns its metadata. */
  async function save(meta, bytes) {
    const saved = await saveModel({ ...meta, ...describeBytes(attn, bytes) }, bytes);
    await readSaved();
    return saved;
  }

  $('#use-shipped').addEventListener('click', () => activate('shipped'));
  $('#upload').addEventListener('change', async (event) => {
    const input = event.target;
    const file = input.files[0];
    if (!file) return;
    try {
      const bytes = new Uint8Array(await file.arrayBuffer());
      describeBytes(attn, bytes); // a damaged or foreign file throws here; nothing is saved
      const name = file.name.replace(/\.safetensors$/, '');
      const same = state.saved.find((m) => m.name === name);
      const replace = same && (await confirmDialog(`A model named “${name}” is already saved. Replace it with this file?`, { confirm: 'Replace it', cancel: 'Keep both' }));
      const meta = await save({ ...(replace ? { id: same.id, created: same.created } : {}), name: replace || !same ? name : `${name} (2)`,
        source: `uploaded from ${file.name}` }, bytes);
      showProblem(input, '');
      await activate(meta.id);
    } catch (error) {
      showProblem(input, `“${file.name}” was not added: ${error.message}`);
    } finally {
      input.value = '';
    }
  });

  /** The saved models into state.saved; when the storage fails, an empty list and, in the list, why. */
  async function readSaved() {
    [state.saved, state.storageProblem] = await listModels().then(
      (saved) => [saved, null],
      (error) => [[], `Your saved models could not be read: ${error.message}`],
    );
  }

  /**
   * The saved models, and the id of the model that was active at the last visit (if it is still saved). Storage
   * that fails or does not answer leaves the list empty and says so: the chapter still runs, on the shipped model.
   */
  async function load() {
    await readSaved();
    const last = await getActiveId().catch(() => undefined);
    return last && state.saved.some((m) => m.id === last) ? last : 'shipped';
  }

  return { activate, render, save, load };
}
