// Typesets every element with a data-tex attribute using KaTeX. KaTeX builds
// DOM nodes (not HTML strings), so the site's Content-Security-Policy needs no
// inline styles.
import katex from 'katex';

export function renderMath(root) {
  for (const el of root.querySelectorAll('[data-tex]')) {
    katex.render(el.dataset.tex, el, { displayMode: el.tagName === 'DIV', throwOnError: false, output: 'htmlAndMathml' });
  }
}

export function tex(el, source, displayMode = false) {
  katex.render(source, el, { displayMode, throwOnError: false, output: 'htmlAndMathml' });
}
