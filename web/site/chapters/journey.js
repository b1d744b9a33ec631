// Notebook 000's running example, shared by the chapters that use it.
import { kinds } from '../components/link-state.js';

export const TOKENS = ['Your', 'journey', 'starts', 'with', 'one', 'step'];

// notebook 000 §2.1
export const NOTEBOOK_INPUTS = [
  [0.43, 0.15, 0.89],
  [0.55, 0.87, 0.66],
  [0.57, 0.85, 0.64],
  [0.22, 0.58, 0.33],
  [0.77, 0.25, 0.1],
  [0.05, 0.8, 0.55],
];

export const dims = (n, prefix) => Array.from({ length: n }, (_, j) => `${prefix}${j + 1}`);

/**
 * The link field (components/link-state.js) of an editable copy of NOTEBOOK_INPUTS:
 * get() gives the editor's tensor (or undefined while a cell is not a number),
 * assign(tensor) takes the (6, 3) inputs read from a link, which are also put in the editor.
 */
export function inputsLinkField(attn, editor, { get, assign }) {
  return {
    ...kinds.float32s({ count: TOKENS.length * 3 }),
    default: Float32Array.from(NOTEBOOK_INPUTS.flat()),
    get: () => get()?.data ?? undefined,
    set: (values) => {
      assign(attn.tensor(values, [TOKENS.length, 3]));
      editor.set(values);
    },
  };
}
