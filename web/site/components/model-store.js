// The reader's models, kept in this browser (IndexedDB, through idb-keyval):
// a small named list, each model with its checkpoint bytes and what was seen
// while it trained (its loss curve and samples). The page asks before it
// replaces or deletes one; nothing here ever overwrites a model silently.
//
// Each model is two records, so that listing the models never reads their bytes:
//   meta:<id>   {id, name, source, created, updated, iter, layers, tokenizer, curve, samples}
//   bytes:<id>  Uint8Array (a safetensors checkpoint)
// and, apart from the list, induction:latest: chapter 11's latest live run.
// Both are written (and deleted) in one transaction, so a model is never half
// saved; a new model's name is made unique in that transaction too, so that
// two tabs saving at once never give two models one name.
import { createStore, del, delMany, get, getMany, keys, set } from 'idb-keyval';
import { answered } from './storage-deadline.js';

const store = createStore('attention-step-by-step', 'models');
// Before the list, one slot in idb-keyval's default store held the last trained model.
const LEGACY_KEY = 'attention-step-by-step/trained-checkpoint';

const newId = () => `${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`;

/** Every saved model's metadata, oldest first. */
export function listModels() {
  return answered((async () => {
    const ids = (await keys(store)).filter((k) => String(k).startsWith('meta:'));
    const metas = await getMany(ids, store);
    return metas.filter(Boolean).sort((a, b) => a.created - b.created);
  })(), 'return the list of saved models');
}

export async function modelBytes(id) {
  return get(`bytes:${id}`, store);
}

/** `name`, or "name (2)", "name (3)"… if another model has it. */
function uniqueName(name, taken) {
  if (!taken.has(name)) return name;
  let k = 2;
  while (taken.has(`${name} (${k})`)) k += 1;
  return `${name} (${k})`;
}

/**
 * Saves a new model (returns its metadata, with its name made unique among the saved models) or, with meta.id,
 * updates that model. The bytes and the metadata are written in one transaction.
 */
export async function saveModel(meta, bytes) {
  const now = Date.now();
  const record = { curve: { x: [], loss: [], val: [] }, samples: [], ...meta, id: meta.id ?? newId(), updated: now };
  record.created ??= now;
  return store('readwrite', (models) => new Promise((resolve, reject) => {
    const others = models.getAll(IDBKeyRange.bound('meta:', 'meta:\uffff'));
    others.onsuccess = () => {
      if (!meta.id) record.name = uniqueName(record.name, new Set(others.result.map((m) => m.name)));
      if (bytes) models.put(bytes, `bytes:${record.id}`);
      models.put(record, `meta:${record.id}`);
    };
    models.transaction.oncomplete = () => resolve(record);
    models.transaction.onabort = models.transaction.onerror = () => reject(models.transaction.error);
  }));
}

/**
 * Chapter 11's latest live run, in one slot of its own: {seed, iters, iter, curve, bytes, saved}. Not one of the
 * list's models, which chapter 8 opens: its tokens are letters, not chapter 8's words.
 */
export const getInductionRun = () => answered(get('induction:latest', store), 'return the kept training run');
export const saveInductionRun = (run) => set('induction:latest', run, store);

/** The model the reader chose last ('shipped' or an id), kept across reloads. */
export const getActiveId = () => answered(get('active', store), 'return the model chosen last');
export const setActiveId = (id) => answered(set('active', id, store), 'save the model chosen');

export async function deleteModel(id) {
  await delMany([`bytes:${id}`, `meta:${id}`], store);
}

/**
 * Moves the model of the old single slot into the list (once); returns its bytes' new id, if any.
 * Removed in 0.3.0 (CHANGELOG, Deprecated): by then every browser that ran 0.1 has opened chapter 8 since.
 */
export async function adoptLegacyModel(describe) {
  const bytes = await answered(get(LEGACY_KEY), 'return the model saved before models had names').catch(() => undefined);
  if (!(bytes instanceof Uint8Array)) return null;
  const meta = await saveModel({ name: 'Saved before models had names', source: 'saved in this browser', ...describe(bytes) }, bytes);
  await del(LEGACY_KEY);
  return meta.id;
}
