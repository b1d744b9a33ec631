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

/**
 * The theme switch: a segmented control of three buttons (as the system, light, dark), one pressed, kept
 * across visits. Icons with their names as labels, so that it stays one short row on a phone.
 */
export function themeSwitch() {
  const group = document.createElement('div');
  group.className = 'theme-switch segmented';
  group.id = 'theme';
  group.setAttribute('role', 'group');
  group.setAttribute('aria-label', 'Theme');
  const buttons = [['system', '◐', 'Theme as the system'], ['light', '☀', 'Light theme'], ['dark', '☾', 'Dark theme']].map(([value, icon, name]) => {
    const button = document.createElement('button');
    button.type = 'button';
    button.dataset.theme = value;
    button.textContent = icon;
    button.title = name;
    button.setAttribute('aria-label', name);
    button.addEventListener('click', () => window.attentionTheme?.choose(value));
    group.append(button);
    return button;
  });
  const show = () => {
    const choice = window.attentionTheme?.choice() ?? 'system';
    for (const b of buttons) b.setAttribute('aria-pressed', String(b.dataset.theme === choice));
  };
  show();
  document.addEventListener('themechange', show);
  // Choosing what is already applied fires no themechange (the page's colours did not change): show it anyway.
  group.addEventListener('click', show);
  return group;
}
