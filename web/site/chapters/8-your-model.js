// Chapter 9: a model the reader brings — a real one from the Hugging Face Hub in one click (GPT-2, SmolLM2, Qwen2.5,
// Gemma 3) or by its id, a folder's files, or the site's own (chapter 8's). The model lives in the package's own
// worker (createAttention({ worker: true }), your-model/session.js); the page draws what it answers. Its parts, one
// per file of your-model/: where the model comes from (choose.js), what it reads (prompt.js: plain text, or chat
// turns through its chat template), the views of its heads (views.js) and generation (generate.js). This file holds
// the page's state and its link, and wires them: the link keeps everything but the model's files, and names a Hub
// model by its id (loaded from this browser when it keeps it; else it waits for a click).
import { controls } from '../components/controls.js';
import { kinds, linkState } from '../components/link-state.js';
import { page } from '../components/page.js';
import { chooseModel } from './your-model/choose.js';
import { generation } from './your-model/generate.js';
import { HUB_MODELS, megabytes } from './your-model/hub-models.js';
import { promptInput } from './your-model/prompt.js';
import { modelSession } from './your-model/session.js';
import { modelViews } from './your-model/views.js';
import { INPUT, YOUR_MODEL } from './settings.js';

const $ = (sel) => document.querySelector(sel);
const FILES = 'config.json, model.safetensors (or its shards with model.safetensors.index.json), and tokenizer.json (or vocab.json with merges.txt)';
const GENERATION_SETTINGS = ['temperature', 'top_k', 'top_p', 'max_new_tokens'];

page(async () => {
  const openedFromLink = location.search !== ''; // before the link state rewrites the address
  const settings = controls(YOUR_MODEL);
  const session = await modelSession();
  // The page's choices, shared with the views: heads switched off ("layer.head"), the head shown in full, the table's sort.
  const state = { headsOff: new Set(), selected: [0, 0], sortBy: { key: 'index', descending: false }, link: null, onAnalysed: null };
  let linkedHeadsOff = null; // the heads a link switched off, applied to the first model loaded
  let linkedModel = ''; // the Hub id a link names

  const prompt = promptInput(settings.element('text'), { onChange: () => views.analyse() });
  const views = modelViews(session, prompt, state);
  const generate = generation(session, views, settings);
  state.onAnalysed = () => generate.drawSampling();

  /** A link's heads were read before any model was loaded: those outside the first model loaded are dropped. */
  function applyLink(info) {
    const inside = ([l, h]) => l < info.nLayer && h < info.nHead;
    if (linkedHeadsOff) state.headsOff = new Set([...linkedHeadsOff].filter((k) => inside(k.split('.').map(Number))));
    else state.headsOff.clear();
    linkedHeadsOff = null;
  }

  /** A model is in use: every view starts over on it. */
  function adopt(loaded) {
    // The site's own model reads chapter 8's sentences (a word it never saw is read as the nearest it knows).
    if (loaded.source.shipped) settings.element('text').value = INPUT.text.default;
    applyLink(loaded.info);
    views.reset(loaded.info);
    prompt.offer(loaded.info);
    generate.adopt(loaded.info);
    $('#model-views').hidden = false;
    views.analyse();
  }
  const chooser = chooseModel(session, { onLoaded: adopt, onGone: () => ($('#model-views').hidden = true) });
  settings.element('text').addEventListener('input', () => views.analyse());

  // ---- the link: everything but the model's files ------------------------------------------------------------

  const link = linkState({
    ...settings.fields,
    model: {
      ...kinds.text({ maxLength: 200 }),
      default: '',
      get: () => session.loaded()?.source.hub ?? '',
      set: (id) => {
        linkedModel = id;
      },
    },
    head: {
      ...kinds.tuple({ size: 2, max: [1024, 4096] }),
      default: [0, 0],
      get: () => state.selected,
      set: (at) => {
        state.selected = at;
      },
    },
    off: {
      ...kinds.tuples({ size: 2, max: [1024, 4096], count: 4096 }),
      default: [],
      get: () => [...state.headsOff].map((k) => k.split('.').map(Number)),
      set: (list) => {
        state.headsOff = new Set(list.map(([l, h]) => `${l}.${h}`));
        linkedHeadsOff = state.headsOff;
      },
    },
  }, { restore: () => views.analyse() });
  await link.ready;
  state.link = link;
  // Generation settings a link gives are the reader's: a model's own do not replace them.
  for (const name of GENERATION_SETTINGS) if (settings.element(name).value !== String(YOUR_MODEL[name].default)) generate.chosen(name);

  // ---- the start: the Hub models this browser keeps, then the link's model or the folder kept -------------------

  await chooser.refresh();
  if (linkedModel) {
    const id = chooser.idFromTyped(linkedModel);
    if (id && chooser.isKept(id)) {
      await chooser.loadHub(id);
    } else if (id) {
      // Nothing is downloaded before the reader asks: the link's model waits for a click.
      $('#hub-id').value = id;
      const size = HUB_MODELS.find((m) => m.id === id)?.download;
      $('#load-status').textContent = `This link shows the heads of ${id}, which this browser does not keep: press “Load it” to download it` +
        `${size ? ` (${megabytes(size)})` : ''}.`;
    }
  } else if (!(await chooser.loadKeptFolder()) && openedFromLink) {
    $('#load-status').textContent = `This link shows a model's heads; choose that model's files to see them: ${FILES}.`;
  }
});
