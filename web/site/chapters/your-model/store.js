// The reader's model folder kept in this browser (IndexedDB, through idb-keyval), so that a reload does not ask
// for its files again: the files themselves as Blobs (the browser keeps large ones on disk), with what the page
// showed about the model. One folder at a time; "Remove" deletes it. Nothing is sent anywhere.
// Reads and the removal have the site's storage deadline; keeping the files has none (a large model's files may
// rightly take long to write, and the chapter draws without waiting for it) but fails at once after storage has
// been found not to answer.
import { createStore, del, get, set } from 'idb-keyval';
import { answered } from '../../components/storage-deadline.js';

const store = createStore('attention-step-by-step-pretrained', 'folders');
const KEY = 'folder';

/** {files: File[], name, model, saved} of the kept folder, or null. */
export async function keptFolder() {
  const kept = await answered(get(KEY, store), 'return the model folder kept');
  if (!kept) return null;
  return { ...kept, files: kept.files.map(({ name, blob }) => new File([blob], name)) };
}

/** Keeps the folder's files (replacing the one kept before). */
export async function keepFolder(files, { name, model }) {
  const folder = { files: files.map((f) => ({ name: f.name, blob: f })), name, model, saved: Date.now() };
  await answered(set(KEY, folder, store), 'keep the model files', { deadlineMs: Infinity });
}

export const forgetFolder = () => answered(del(KEY, store), 'remove the model folder kept');
