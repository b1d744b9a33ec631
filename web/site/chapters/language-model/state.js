// What chapter 8's parts share, in one small object: the module, the active
// model, the measurement of it, the switched-off heads, the head view's and
// the traced cell's choices, and the link. Each part (models.js, probe.js,
// generation.js, heads.js, attention-view.js, training.js, link.js) reads and
// changes it, and says what changed through `emit`, so that no part calls
// another's insides:
//   'model'    the active model changed (models.js)
//   'heads'    heads were switched on or off (heads.js)
//   'measured' the measurement of the active model arrived (probe.js)
//   'redraw'   the attention figures need drawing again
export function chapterState(attn, shipped) {
  const listeners = new Map();
  return {
    attn,
    shipped, // {model, tokenizer} the package ships
    saved: [], // metadata of the reader's models (components/model-store.js)
    storageProblem: null, // why the saved models could not be read (storage failed or did not answer), if so
    active: null, // {meta, model, tokenizer, bytes} of the reader's model in use, or null for the shipped one
    probeReport: null, // the active model's measurement ({error} if it cannot be measured), once it has arrived
    switchedOff: new Set(), // "layer.head", 0-based
    // The head view's heads (its layer is its select's value); chosen: by the reader or a link, not the measurement.
    headView: { heads: new Set([0]), chosen: false },
    traced: null, // [layer, head, query, key] of the traced number
    mapHead: [0, 0], // [layer, head] the model view shows in full (the measured subject head until the reader picks)
    mapChosen: false, // mapHead picked by the reader
    link: null, // the page's state in its address (link.js), once the page has started

    /** The model everything on the page is computed from. */
    current() {
      return this.active ?? this.shipped;
    },
    on(event, listener) {
      listeners.set(event, [...(listeners.get(event) ?? []), listener]);
    },
    emit(event) {
      for (const listener of listeners.get(event) ?? []) listener();
    },
  };
}

/** "layer 2, head 4", 0-based in, 1-based out. */
export const headName = (layer, head) => `layer ${layer + 1}, head ${head + 1}`;
export const percent = (x) => `${(100 * x).toFixed(0)}%`;
/** A token as the page shows it: a newline as ↵. */
export const shown = (piece) => piece.replace(/\n/g, '↵');
export const quote = (piece) => `“${shown(piece)}”`;
