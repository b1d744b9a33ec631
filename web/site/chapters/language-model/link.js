// Chapter 8's state in its address (components/link-state.js): the model, the
// switched-off heads, the text, the traced number, the head shown in full, the head view, and the
// generation and training settings (chapters/settings.js). A link names its
// model; one that is not saved in this browser falls back to the shipped one.
import { kinds, linkState } from '../../components/link-state.js';
import { headName } from './state.js';

const $ = (sel) => document.querySelector(sel);

/**
 * parts: { models, heads, view } (models.js, heads.js, attention-view.js); settings: { input, generation,
 * training }, controls() of INPUT, GENERATION and TRAINING; lastModel: the model active at the last visit,
 * the link's default.
 */
export function chapterLink(state, { models, heads, view }, { input, generation, training }, lastModel) {
  const config = () => state.current().model.config;
  /** How many tokens of `text` the maps show (0 if the model cannot read it). */
  const tokensIn = (text) => {
    try {
      return Math.min(config().blockSize, state.current().tokenizer.encode(text).length);
    } catch {
      return 0;
    }
  };
  let started = false;
  return linkState({
    model: {
      ...kinds.text({ maxLength: 64 }),
      default: lastModel,
      always: true, // a link names its model, so that it opens the same one wherever the reader's last model was
      get: () => state.active?.meta.id ?? 'shipped',
      set: async (id, note) => {
        if (started && id === (state.active?.meta.id ?? 'shipped')) return;
        started = true;
        if (id !== 'shipped' && !state.saved.some((m) => m.id === id)) {
          note(`Its model “${id}” is not saved in this browser (it was deleted, or trained or uploaded in another browser), so the shipped model is shown.`);
          id = 'shipped';
        }
        await models.activate(id);
      },
    },
    off: {
      ...kinds.tuples({ size: 2, max: [64, 64], count: 64 * 64 }),
      default: [],
      get: () => heads.off(),
      set: (list, note) => {
        const { nLayer, nHead } = config();
        const absent = list.filter(([l, h]) => l >= nLayer || h >= nHead);
        if (absent.length) note(`This model has no ${absent.map(([l, h]) => headName(l, h)).join(' or ')} to switch off.`);
        if (heads.switchOff(list.filter((lh) => !absent.includes(lh)))) state.emit('heads');
      },
    },
    ...input.fields,
    trace: {
      ...kinds.tuple({ size: 4, max: [64, 64, 4096, 4096] }),
      default: null,
      get: () => state.traced,
      set: (at, note) => {
        const T = tokensIn($('#probe').value);
        const inside = at === null || (at[0] < config().nLayer && at[1] < config().nHead && at[2] < T && at[3] < T);
        if (!inside) note(`Its traced number (${headName(at[0], at[1])}, query ${at[2] + 1}, key ${at[3] + 1}) is outside the maps of this model and text.`);
        state.traced = inside ? at : null;
      },
    },
    map: {
      // the head shown in full under the grid, when the reader chose it (else the measured subject head)
      ...kinds.tuple({ size: 2, max: [64, 64] }),
      default: null,
      get: () => (state.mapChosen ? state.mapHead : null),
      set: (at, note) => {
        if (at && (at[0] >= config().nLayer || at[1] >= config().nHead)) {
          note(`Its map shows ${headName(at[0], at[1])}, which this model does not have.`);
          at = null;
        }
        state.mapChosen = at !== null;
        const r = state.probeReport;
        if (at) state.mapHead = at;
        else if (r && !r.error) state.mapHead = [r.bestLayer, r.bestHead];
      },
    },
    head_view: {
      // "layer:head,head" (1-based); nothing while the head view shows the subject head
      parse: (text) => {
        const [, layer, list] = /^(\d{1,2}):(\d{1,2}(?:,\d{1,2})*)$/.exec(text) ?? [];
        if (!layer || Number(layer) < 1 || list.split(',').some((h) => Number(h) < 1)) throw new Error('must be a layer and its heads, like 2:4 or 2:1,4');
        return { layer: Number(layer) - 1, heads: list.split(',').map((h) => Number(h) - 1) };
      },
      format: (shown) => (shown ? `${shown.layer + 1}:${shown.heads.map((h) => h + 1).join(',')}` : ''),
      default: null,
      get: () => (state.headView.chosen ? { layer: Number($('#head-view-layer').value), heads: [...state.headView.heads].sort((a, b) => a - b) } : null),
      set: (shown, note) => {
        const { nLayer, nHead } = config();
        if (shown && (shown.layer >= nLayer || shown.heads.some((h) => h >= nHead))) {
          note(`Its head view shows heads this model does not have (layer ${shown.layer + 1}, heads ${shown.heads.map((h) => h + 1).join(', ')}).`);
          shown = null;
        }
        state.headView.chosen = shown !== null;
        const r = state.probeReport;
        if (shown) view.showInHeadView(shown.layer, shown.heads);
        else if (r && !r.error) view.showInHeadView(r.bestLayer, [r.bestHead]);
      },
    },
    ...generation.fields,
    ...training.fields,
  }, { restore: () => state.emit('redraw') });
}
