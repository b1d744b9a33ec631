// Attention sinks in a real model: one the reader loaded in chapter 9 and this browser keeps (a Hub model in the
// package's Cache API, or a folder's files), read from the browser — nothing downloaded — in the package's worker
// (createAttention({ worker: true })), and each head's weight on the text's first token drawn as a layers × heads
// map: summarizeHeads' firstToken, the mean over the queries after the first. Where the model begins every text with
// a token of its own (<bos>, <|begin_of_text|>), that token is the first.
import { createAttention } from '../../../lib/index.js';
import { heatmap, WEIGHTS_DOMAIN } from '../../components/heatmap.js';
import { HUB_MODELS, keptWhole } from '../your-model/hub-models.js';
import { computeFailure, loadFailure } from '../your-model/sentences.js';
import { keptFolder } from '../your-model/store.js';

const $ = (sel) => document.querySelector(sel);
const FOLDER = 'folder'; // the choice that names the kept folder
/** A head parks on the first token when it gives it more than this share of its weight. */
const PARKED = 0.5;

/**
 * Offers the models `attn` (the chapter's own API, whose cachedModels() reads this browser's Cache API) finds kept,
 * and shows one's sinks on `text` when asked. Resolves once the offer is drawn.
 */
export async function keptSinks(attn, text) {
  const hub = (await attn.cachedModels().catch(() => [])).filter(keptWhole);
  const select = $('#sinks-model');
  const offered = () => {
    $('#sinks-kept').hidden = select.options.length === 0;
    $('#sinks-none').hidden = select.options.length > 0;
  };
  select.replaceChildren(...hub.map((m) => new Option(HUB_MODELS.find((t) => t.id === m.id)?.name ?? m.id, m.id)));
  offered();
  // The folder is asked of IndexedDB without waiting for it: a storage that never answers must not hold the page.
  let folder = null;
  keptFolder().then((kept) => {
    folder = kept;
    if (kept) select.append(new Option(`your folder (${kept.name})`, FOLDER));
    offered();
  }, () => {});
  let remote = null; // the package's API in its worker, started on the first click

  $('#sinks-load').addEventListener('click', async () => {
    const choice = select.value;
    const name = select.selectedOptions[0]?.textContent ?? choice;
    const status = $('#sinks-kept-status');
    const button = $('#sinks-load');
    button.disabled = true;
    status.textContent = `Reading ${name} from this browser…`;
    let loaded = null;
    try {
      remote ??= await createAttention({ worker: true });
      const entry = hub.find((m) => m.id === choice);
      loaded = choice === FOLDER ? await remote.loadPretrained(folder.files)
        : await remote.loadPretrained(choice, { revision: entry.revision });
      const { model, tokenizer } = loaded;
      const ids = await tokenizer.encode(text);
      const [{ firstToken }, config, first] = await Promise.all([remote.summarizeHeads(model, ids, { thumbnailSize: 0 }), model.config,
        tokenizer.decode([ids[0]])]);
      draw(name, firstToken, config, first, text);
      status.textContent = '';
    } catch (error) {
      status.textContent = error?.code === 'ERR_ATTN_INVALID_ARGUMENT' && /encode|token/.test(error.message) ? computeFailure(error)
        : loadFailure(error, { id: choice === FOLDER ? null : choice });
    } finally {
      await Promise.all([loaded?.model.dispose(), loaded?.tokenizer.dispose()]);
      button.disabled = false;
    }
  });
}

/** The layers × heads map of the weight on the first token, and a sentence about it. */
function draw(name, firstToken, { nLayer: L, nHead: H }, first, text) {
  const shown = first.replace(/\n/g, '↵').trim() || '␣';
  heatmap($('[data-figure="sinks-kept"]'), firstToken, {
    title: `${name}: each head's weight on the first token, “${shown}”, reading “${text}”`,
    rowLabels: Array.from({ length: L }, (_, l) => `layer ${l + 1}`), colLabels: Array.from({ length: H }, (_, h) => `h${h + 1}`),
    rowAxis: 'layer', colAxis: 'head', domain: WEIGHTS_DOMAIN, digits: 2, cellSize: 30,
  });
  const w = firstToken.data;
  const top = w.indexOf(Math.max(...w));
  const parked = w.filter((v) => v > PARKED).length;
  const readout = $('#sinks-kept-readout');
  readout.dataset.head = `L${Math.floor(top / H) + 1}.h${(top % H) + 1}`;
  readout.textContent = `In ${name}, ${parked} of its ${L * H} heads put more than half their weight on the first token, “${shown}”; ` +
    `layer ${Math.floor(top / H) + 1}, head ${(top % H) + 1} puts ${Math.round(100 * w[top])} % there, on average over the queries after it.`;
}
