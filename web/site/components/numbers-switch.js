// Numbers on demand: a matrix shows its colours, and a cell its number when the reader points at it, focuses
// it, or lights it from another figure; the switch in the navigation shows every number (kept in this browser,
// like the theme). Heatmaps and pipelines draw every number as always (their text, labels and exports are
// whole); style.css hides the ones not asked for, so that a chapter opens on pictures, not walls of digits.

const KEY = 'attention-step-by-step/numbers';

const stored = () => {
  try {
    return window.localStorage.getItem(KEY) === 'shown';
  } catch {
    return false; // storage refused (a private window, a policy)
  }
};

const apply = (shown) => {
  document.documentElement.dataset.numbers = shown ? 'shown' : 'on-demand';
};

/** The switch: one toggle button, pressed while every number is shown. Applies the kept choice at once. */
export function numbersSwitch() {
  apply(stored());
  const button = document.createElement('button');
  button.type = 'button';
  button.id = 'numbers';
  button.className = 'numbers-switch';
  // Its name is its text (a pressed "Numbers" button: every number shown); the title says the rest.
  button.textContent = 'Numbers';
  button.title = 'Show every number in the figures (otherwise a cell shows its number when you point at it)';
  const show = () => button.setAttribute('aria-pressed', String(document.documentElement.dataset.numbers === 'shown'));
  button.addEventListener('click', () => {
    const shown = document.documentElement.dataset.numbers !== 'shown';
    apply(shown);
    try {
      window.localStorage.setItem(KEY, shown ? 'shown' : 'on-demand');
    } catch {
      // kept for this page only
    }
    show();
  });
  show();
  return button;
}
