// Typesets every element with a data-tex attribute using KaTeX. KaTeX builds
// DOM nodes (not HTML strings), so the site's Content-Security-Policy needs no
// inline styles.
//
// A display formula made of parts separated by \qquad is typeset as one
// display per part, side by side where they fit and one under the other on a
// narrow screen: a long formula wraps instead of being cut off or shrunk.
import katex from 'katex';

const OPTIONS = { throwOnError: false, output: 'htmlAndMathml' };

export function renderMath(root) {
  for (const el of root.querySelectorAll('[data-tex]')) {
    const display = el.tagName === 'DIV';
    const parts = display ? el.dataset.tex.split(/\s*\\qquad\s*/) : [el.dataset.tex];
    if (parts.length === 1) {
      katex.render(parts[0], el, { ...OPTIONS, displayMode: display });
      continue;
    }
    el.classList.add('formula-row');
    el.replaceChildren(...parts.map((part) => {
      const piece = document.createElement('div');
      piece.className = 'formula-part';
      katex.render(part.replace(/,\s*$/, ''), piece, { ...OPTIONS, displayMode: true });
      return piece;
    }));
  }
}

export function tex(el, source, displayMode = false) {
  katex.render(source, el, { ...OPTIONS, displayMode });
}
