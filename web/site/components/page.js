// What every page shares: the navigation between chapters, typeset formulas,
// the WASM library loaded once on the pages that compute, and a visible
// message (never a silent failure) when something goes wrong.
import 'katex/dist/katex.min.css';
import '../style.css';

import { renderMath } from './math.js';

export const CHAPTERS = [
  { file: '1-why-attention.html', title: 'Why attention' },
  { file: '2-self-attention.html', title: 'Self-attention, no weights' },
  { file: '3-trainable-weights.html', title: 'Trainable weights' },
  { file: '4-scaling.html', title: 'Why scale by √d_k' },
  { file: '5-masking.html', title: 'Masking' },
  { file: '6-multi-head.html', title: 'Multi-head attention' },
  { file: '7-language-model.html', title: 'A tiny language model' },
];

function renderNav() {
  const nav = document.querySelector('nav.chapters');
  if (!nav) return;
  const here = location.pathname.split('/').pop();
  const inChapters = document.body.dataset.root === '..';
  const href = (file) => (inChapters ? `./${file}` : `./chapters/${file}`);
  const list = document.createElement('ol');
  for (const c of CHAPTERS) {
    const li = document.createElement('li');
    const a = document.createElement('a');
    a.href = href(c.file);
    a.textContent = c.title;
    if (c.file === here) a.setAttribute('aria-current', 'page');
    li.appendChild(a);
    list.appendChild(li);
  }
  const home = document.createElement('a');
  home.href = inChapters ? '../index.html' : './index.html';
  home.textContent = 'Attention, step by step';
  home.className = 'home';
  nav.replaceChildren(home, list);
  // A skip link past the navigation, the first thing the keyboard reaches.
  const main = document.querySelector('main');
  main.id ||= 'content';
  main.tabIndex = -1;
  const skip = document.createElement('a');
  skip.className = 'skip-link';
  skip.href = `#${main.id}`;
  skip.textContent = 'Skip to the content';
  document.body.prepend(skip);
}

/**
 * Shows an error that belongs to no single control (the module failed to
 * load, a figure could not be drawn); errors in what the reader typed go
 * beside the control instead (inputs.js).
 */
export function report(error, where = document.querySelector('.status')) {
  if (!where) return;
  where.textContent = error ? `Could not compute: ${error.message}` : '';
  where.hidden = !error;
}

// Precache the site for offline use (the service worker sits at the site's
// root). Registered once the page has drawn its first figure, and then when the
// browser is idle, so that downloading the whole site never competes with the
// page the reader opened.
function registerServiceWorker() {
  if (!('serviceWorker' in navigator) || import.meta.env.DEV) return;
  const register = () => navigator.serviceWorker.register(`${document.body.dataset.root}/sw.js`).catch(() => {});
  if ('requestIdleCallback' in window) requestIdleCallback(register, { timeout: 2000 });
  else setTimeout(register, 0);
}

/**
 * Runs a page that computes nothing (the landing page): navigation, math, then
 * setup(). The WASM module is not loaded.
 */
export async function page(setup) {
  renderNav();
  renderMath(document);
  try {
    await setup();
    ready();
  } catch (error) {
    failed(error);
  }
}

/**
 * Runs a chapter: navigation, math, the WASM module (fetched by this page only,
 * on first use), then setup(attn).
 */
export async function chapter(setup) {
  renderNav();
  renderMath(document);
  try {
    const { createAttention } = await import('../../lib/index.js');
    const attn = await createAttention();
    await setup(attn);
    ready();
  } catch (error) {
    failed(error);
  }
}

// The first figures are drawn: tell the tests (data-ready), record when, for
// the browser tests' log ("first-figure" in the performance timeline), and
// start precaching.
function ready() {
  performance.mark('first-figure');
  document.body.dataset.ready = 'true';
  registerServiceWorker();
}

function failed(error) {
  report(error);
  document.body.dataset.ready = 'error';
  throw error;
}

/** Calls fn at most once per animation frame, with the latest arguments. */
export function perFrame(fn) {
  let pending = null;
  return (...args) => {
    if (pending) {
      pending.args = args;
      return;
    }
    pending = { args };
    requestAnimationFrame(() => {
      const { args: latest } = pending;
      pending = null;
      fn(...latest);
    });
  };
}
