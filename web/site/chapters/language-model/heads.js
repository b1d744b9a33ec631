// Chapter 8's switches that turn heads off: one checkbox per layer and head,
// and the head mask (n_layer, n_head) of the switched-off heads that every
// forward pass and the measurement use. Emits 'heads'; a new model starts with
// every head on.
import { headName } from './state.js';

const $ = (sel) => document.querySelector(sel);
const keyOf = (layer, head) => `${layer}.${head}`;
const parse = (key) => key.split('.').map(Number);

/** The head mask of the switches, or null when every head is on. */
export function headMask(state) {
  if (state.switchedOff.size === 0) return null;
  const { nLayer, nHead } = state.current().model.config;
  const data = new Float32Array(nLayer * nHead).fill(1);
  for (const key of state.switchedOff) {
    const [l, h] = parse(key);
    data[l * nHead + h] = 0;
  }
  return { data, shape: [nLayer, nHead] };
}

/** "layer 2, head 4 and layer 1, head 1", for sentences. */
export const switchedOffText = (state) => [...state.switchedOff].sort().map((key) => headName(...parse(key))).join(' and ');

export function headSwitches(state) {
  const fieldset = $('#head-switches');

  /** One switch per head of the active model, every head on. */
  function reset() {
    const { nLayer, nHead } = state.current().model.config;
    state.switchedOff.clear();
    delete fieldset.dataset.off;
    fieldset.replaceChildren(fieldset.querySelector('legend'), ...Array.from({ length: nLayer }, (_, l) => {
      const group = document.createElement('div');
      group.className = 'layer';
      for (let h = 0; h < nHead; h++) {
        const label = document.createElement('label');
        const box = Object.assign(document.createElement('input'), { type: 'checkbox', checked: true });
        box.dataset.layer = String(l);
        box.dataset.head = String(h);
        label.append(box, ` ${headName(l, h)}`);
        group.appendChild(label);
      }
      return group;
    }));
  }

  /** Switches off exactly these heads ([layer, head], 0-based), ticks the switches to match, and says whether anything changed. */
  function switchOff(heads) {
    const before = [...state.switchedOff].sort().join(',');
    state.switchedOff.clear();
    for (const [l, h] of heads) state.switchedOff.add(keyOf(l, h));
    for (const box of fieldset.querySelectorAll('input')) box.checked = !state.switchedOff.has(keyOf(box.dataset.layer, box.dataset.head));
    const after = [...state.switchedOff].sort().join(',');
    if (after) fieldset.dataset.off = after;
    else delete fieldset.dataset.off;
    return after !== before;
  }

  /** The switched-off heads as [layer, head] pairs, in order. */
  const off = () => [...state.switchedOff].map(parse).sort((a, b) => a[0] - b[0] || a[1] - b[1]);

  fieldset.addEventListener('change', ({ target }) => {
    const key = keyOf(target.dataset.layer, target.dataset.head);
    const rest = off().filter(([l, h]) => keyOf(l, h) !== key);
    switchOff(target.checked ? rest : [...rest, parse(key)]);
    state.emit('heads');
  });
  state.on('model', reset);
  return { reset, switchOff, off };
}
