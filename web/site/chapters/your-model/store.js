// The reader's model folder kept in this browser (IndexedDB, through idb-keyval), so that a reload does not ask
// for its files again: the files themselves as Blobs (the browser keeps large ones on disk), with what the page
// showed about the model. One folder at a time; "Remove" deletes it. Nothing is sent anywhere.
import { createStore, del, get, set } from 'idb-keyval';

const store = createStore('attention-step-by-step-pretrained', 'folders');
const KEY = 'folder';

/** {files: File[], name, model, saved} of the kept folder, or null. */
export async function keptFolder() {
  const kept = await get(KEY, store);
  if (!kept) return null;
  return { ...kept, files: kept.files.map(({ name, blob }) => new File([blob], name)) };
}

/** Keeps the folder's files (replacing the one kept before). */
export async function keepFolder(files, { name, model }) {
  await set(KEY, { files: files.map((f) => ({ name: f.name, blob: f })), name, model, saved: Date.now() }, store);
}

export const forgetFolder = () => del(KEY, store);
