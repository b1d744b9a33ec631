// The colour theme as the pages see it (public/theme.js decides it before the
// page is drawn): the switch in the navigation, the colours a figure drawn by
// script takes from the style sheet, and redrawing when the theme changes.
// Figures coloured by CSS classes follow the theme by themselves; those that
// set colours in script (canvas, three.js, line colours) redraw.

/** 'light' or 'dark': the theme the page is drawn in. */
const currentTheme = () => (document.documentElement.dataset.theme === 'dark' ? 'dark' : 'light');

/** A colour of the style sheet's palette (a custom property of :root, e.g. '--ink'), as the current theme sets it. */
const cssColor = (name) => getComputedStyle(document.documentElement).getPropertyValue(name).trim();

/** A colour as a canvas or three.js needs it: 'var(--keys)' resolved in the current theme, any other colour as it is. */
export function resolveColor(color) {
  const name = /^var\((--[\w-]+)\)$/.exec(color)?.[1];
  return name ? cssColor(name) : color;
}

/** Calls fn after every change of theme (the reader's switch, the system's setting, another tab). */
export function onThemeChange(fn) {
  document.addEventListener('themechange', () => fn(currentTheme()));
}

/** The theme switch: a labelled select of the system's theme, light and dark, kept across visits. */
export function themeSwitch() {
  const label = document.createElement('label');
  label.className = 'theme-switch';
  const text = document.createElement('span');
  text.className = 'theme-label';
  text.textContent = 'Theme ';
  label.append(text);
  const select = document.createElement('select');
  select.id = 'theme';
  for (const [value, text] of [['system', 'as the system'], ['light', 'light'], ['dark', 'dark']]) select.add(new Option(text, value));
  select.value = window.attentionTheme?.choice() ?? 'system';
  select.addEventListener('change', () => window.attentionTheme?.choose(select.value));
  document.addEventListener('themechange', () => (select.value = window.attentionTheme?.choice() ?? 'system'));
  label.append(select);
  return label;
}
