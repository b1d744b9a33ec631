// The reader's models, kept in this browser (IndexedDB, through idb-keyval):
// a small named list, each model with its checkpoint bytes and what was seen
// while it trained (its loss curve and samples). The page asks before it
// replaces or deletes one; nothing here ever overwrites a model silently.
//
// Each model is two records, so that listing the models never reads their bytes:
//   meta:<id>   {id, name, source, created, updated, iter, layers, tokenizer, curve, samples}
//   bytes:<id>  Uint8Array (a safetensors checkpoint)
import { createStore, del, get, getMany, keys, set } from 'idb-keyval';

const store = createStore('attention-step-by-step', 'models');
// Before the list, one slot in idb-keyval's default store held the last trained model.
const LEGACY_KEY = 'attention-step-by-step/trained-checkpoint';

const newId = () => `${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`;

/** Every saved model's metadata, oldest first. */
export async function listModels() {
  const ids = (await keys(store)).filter((k) => String(k).startsWith('meta:'));
  const metas = await getMany(ids, store);
  return metas.filter(Boolean).sort((a, b) => a.created - b.created);
}

export async function modelBytes(id) {
  return get(`bytes:${id}`, store);
}

/** Saves a new model (returns its metadata) or, with meta.id, updates that model. */
export async function saveModel(meta, bytes) {
  const now = Date.now();
  const record = { curve: { x: [], loss: [], val: [] }, samples: [], ...meta, id: meta.id ?? newId(), updated: now };
  record.created ??= now;
  if (bytes) await set(`bytes:${record.id}`, bytes, store);
  await set(`meta:${record.id}`, record, store);
  return record;
}

/** The model the reader chose last ('shipped' or an id), kept across reloads. */
export const getActiveId = () => get('active', store);
export const setActiveId = (id) => set('active', id, store);

export async function deleteModel(id) {
  await del(`bytes:${id}`, store);
  await del(`meta:${id}`, store);
}

/**
 * Moves the model of the old single slot into the list (once); returns its bytes' new id, if any.
 * Removed in 0.3.0 (CHANGELOG, Deprecated): by then every browser that ran 0.1 has opened chapter 7 since.
 */
export async function adoptLegacyModel(describe) {
  const bytes = await get(LEGACY_KEY).catch(() => undefined);
  if (!(bytes instanceof Uint8Array)) return null;
  const meta = await saveModel({ name: 'Saved before models had names', source: 'saved in this browser', ...describe(bytes) }, bytes);
  await del(LEGACY_KEY);
  return meta.id;
}
