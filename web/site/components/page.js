// What every page shares: the navigation between chapters, typeset formulas,
// and a visible message (never a silent failure) when something goes wrong.
// Chapters, which compute, start through chapter.js; this file never loads
// the WASM module, so the landing page does not either.
import 'katex/dist/katex.min.css';
import '../style.css';

import { renderMath } from './math.js';
import { numbersSwitch } from './numbers-switch.js';
import { themeSwitch } from './theme.js';

// Each chapter with what a reader can do after it (the landing page lists them). A chapter's number is its place
// in this list; the files keep the names they were published under (links to them stay valid), so a chapter
// added later is named for its subject and the numbers in the older names need not be its number.
export const CHAPTERS = [
  { file: '1-why-attention.html', title: 'Why attention',
    lesson: 'Score six encoder states yourself and see why one fixed vector was a bottleneck that attention removes.' },
  { file: '2-self-attention.html', title: 'Self-attention, no weights',
    lesson: 'Compute a word\'s attention weights by hand: dot products, softmax, and the context vector they mix.' },
  { file: '3-trainable-weights.html', title: 'Trainable weights',
    lesson: 'Read queries, keys and values as points, and trace any weight from q · k to the output.' },
  { file: '4-scaling.html', title: 'Why scale by √d_k',
    lesson: 'Watch a softmax turn into a step, and its gradient vanish, as scores grow with the width.' },
  { file: '5-masking.html', title: 'Masking',
    lesson: 'Hide the future or the padding, cell by cell, and see each row renormalise.' },
  { file: '6-multi-head.html', title: 'Multi-head attention',
    lesson: 'Cut one projection into heads, let each attend on its own, and join them back.' },
  { file: 'positions.html', title: 'Where order comes from',
    lesson: 'Reorder a sentence and watch attention not notice; then turn queries and keys by position, and see a score depend on distance alone.' },
  { file: '7-language-model.html', title: 'A tiny language model',
    lesson: 'Generate from a trained model, switch its heads off, and train your own in the browser.' },
  { file: '8-your-model.html', title: 'A model you bring',
    lesson: 'Load GPT-2, SmolLM2, Qwen2.5 or Gemma 3 in one click, and find what each of its heads does on your text or a chat.' },
  { file: 'at-scale.html', title: 'Attention at scale',
    lesson: 'Step through a KV cache, size the caches of today\'s models, slide a window, and compute a softmax without its whole row.' },
  { file: '9-induction-heads.html', title: 'How attention copies',
    lesson: 'Watch two heads compose into an induction head, break it, and see it form suddenly while a model trains.' },
];

function renderNav() {
  const nav = document.querySelector('nav.chapters');
  if (!nav) return;
  const here = location.pathname.split('/').pop();
  const inChapters = document.body.dataset.root === '..';
  const href = (file) => (inChapters ? `./${file}` : `./chapters/${file}`);
  const list = document.createElement('ol');
  // Wide screens show the chapters as numbered steps, the current one with its title (every title is the
  // link's name and tooltip); the phone's menu shows every title.
  CHAPTERS.forEach((c, k) => {
    const li = document.createElement('li');
    const a = document.createElement('a');
    a.href = href(c.file);
    const number = document.createElement('span');
    number.className = 'number';
    number.textContent = String(k + 1);
    number.setAttribute('aria-hidden', 'true');
    const title = document.createElement('span');
    title.className = 'title';
    title.textContent = c.title;
    a.append(number, title);
    a.title = `${k + 1}. ${c.title}`;
    if (c.file === here) a.setAttribute('aria-current', 'page');
    li.appendChild(a);
    list.appendChild(li);
  });
  const home = document.createElement('a');
  home.href = inChapters ? '../index.html' : './index.html';
  home.textContent = 'Attention, step by step';
  home.className = 'home';
  // On a phone the list folds into one line ("Chapter 3 of 8"), so that the page starts under a short header;
  // wider screens show it open, its summary hidden.
  const menu = document.createElement('details');
  menu.className = 'chapter-menu';
  const summary = document.createElement('summary');
  const index = CHAPTERS.findIndex((c) => c.file === here);
  summary.textContent = index >= 0 ? `Chapter ${index + 1} of ${CHAPTERS.length}` : `${CHAPTERS.length} chapters`;
  menu.append(summary, list);
  const narrow = window.matchMedia('(max-width: 600px)');
  const fold = () => (menu.open = !narrow.matches);
  fold();
  narrow.addEventListener('change', fold);
  nav.replaceChildren(home, menu, numbersSwitch(), themeSwitch());
  // The chapters' sticky controls stop under the sticky navigation, however tall it wraps.
  new ResizeObserver(() => document.documentElement.style.setProperty('--nav-height', `${nav.offsetHeight}px`)).observe(nav);
  // A skip link past the navigation, the first thing the keyboard reaches.
  const main = document.querySelector('main');
  main.id ||= 'content';
  main.tabIndex = -1;
  const skip = document.createElement('a');
  skip.className = 'skip-link';
  skip.href = `#${main.id}`;
  skip.textContent = 'Skip to the content';
  document.body.prepend(skip);
  if (inChapters && index >= 0) main.after(pager(index));
}

/**
 * Previous and Next at the end of chapter `index` (0-based), by number and title: a reader who finished a chapter
 * had only the navigation at the top to go on (chapters 8 and 9 ended in a dead end). The first chapter's
 * Previous and the last one's Next are the contents.
 */
function pager(index) {
  const nav = document.createElement('nav');
  nav.className = 'pager';
  nav.setAttribute('aria-label', 'Previous and next chapter');
  const link = (rel, file, text) => {
    const a = document.createElement('a');
    a.rel = rel;
    a.href = file;
    a.className = `pager-${rel}`;
    a.textContent = text;
    return a;
  };
  const chapter = (k) => `${k + 1}. ${CHAPTERS[k].title}`;
  nav.append(
    index > 0 ? link('prev', `./${CHAPTERS[index - 1].file}`, `← ${chapter(index - 1)}`) : link('prev', '../index.html', '← All chapters'),
    index < CHAPTERS.length - 1 ? link('next', `./${CHAPTERS[index + 1].file}`, `${chapter(index + 1)} →`) : link('next', '../index.html', 'All chapters →'),
  );
  return nav;
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
  const register = () => navigator.serviceWorker.register(`${document.body.dataset.root}/sw.js`).then(isolateOnce).catch(() => {});
  if ('requestIdleCallback' in window) requestIdleCallback(register, { timeout: 2000 });
  else setTimeout(register, 0);
}

// Whether the reader has begun (a key, a click, an edit) since the page opened: a reload would lose work.
let touched = false;
for (const type of ['keydown', 'pointerdown', 'input']) addEventListener(type, () => (touched = true), { capture: true, once: true });

// The service worker gives the pages it serves the headers of cross-origin isolation (service-worker.js),
// which lets the site's workers compute on every core. A page it did not serve (a first visit) is reloaded
// once it is in control, unless the reader has begun: then the next page they open is isolated. One reload
// a session at most: a browser that stays unisolated (no support, or a private window) just runs on one thread.
function isolateOnce(registration) {
  const key = 'attention-step-by-step:isolation-reload';
  if (window.crossOriginIsolated || sessionStorage.getItem(key)) return;
  const reload = () => {
    if (touched) return;
    sessionStorage.setItem(key, '1');
    location.reload();
  };
  // A worker still installing (a first visit, or a new build) serves the page once it takes control.
  if (navigator.serviceWorker.controller && !registration.installing && !registration.waiting) reload();
  else navigator.serviceWorker.addEventListener('controllerchange', reload, { once: true });
}

/**
 * Runs a page: navigation, math, then setup() draws its figures. This file
 * loads no WASM; chapters pass the module in through chapter.js.
 */
export async function page(setup) {
  renderNav();
  renderMath(document);
  try {
    await setup();
    // Figures draw in animation frames (perFrame), some over several: ready once none is left to draw.
    do await new Promise((resolve) => requestAnimationFrame(resolve));
    while (drawing > 0);
    ready();
  } catch (error) {
    failed(error);
  }
}

/**
 * The page's figures are drawn: tells the tests (data-ready), records when
 * (the browser tests log "first-figure" from the performance timeline), and
 * starts precaching.
 */
function ready() {
  performance.mark('first-figure');
  document.body.dataset.ready = 'true';
  // A link to one figure (its menu's "Copy link to this figure") ends in its id: the browser looked for it before
  // the figures were drawn, at their empty height, so the page goes there once they are.
  if (location.hash.length > 1) document.getElementById(decodeURIComponent(location.hash.slice(1)))?.scrollIntoView({ block: 'start' });
  registerServiceWorker();
}

/** The page could not be set up: says so on the page. */
function failed(error) {
  report(error);
  document.body.dataset.ready = 'error';
  throw error;
}

// Redraws requested and not yet finished, of all the page's figures: while there is one, <body> has
// data-drawing (what the browser tests wait on before reading a figure drawn in a later frame).
let drawing = 0;
function countDrawing(delta) {
  drawing += delta;
  if (drawing > 0) document.body.dataset.drawing = '';
  else delete document.body.dataset.drawing;
}

/**
 * Calls fn at most once per animation frame, with the latest arguments. fn may return more drawing to do, as
 * an array of functions: each runs in a frame of its own after fn's, so that a redraw of many figures spreads
 * over frames instead of blocking the page in one long task (a task over 50 ms is felt;
 * tests/browser/responsiveness.test.js). A newer call drops what an older one had left to draw, since it draws
 * everything again. The latest redraw, from the first request to its last step, is kept in the performance
 * timeline as a 'redraw' measure (what the browser tests log as edit latency).
 *
 * `minInterval` (ms) spaces redraws out further, for a figure fed by a stream (a training run's progress): the
 * main thread's drawing then leaves the cores to the computation it shows.
 */
export function perFrame(fn, { minInterval = 0 } = {}) {
  let pending = null;
  let lastDrawn = -Infinity;
  let latestRun = 0;
  let busy = false; // a request of this figure is not drawn yet
  const step = (draw) => {
    try {
      return draw();
    } catch (error) {
      report(error);
      return undefined;
    }
  };
  const finish = (start) => {
    performance.clearMeasures('redraw'); // the latest only: a long session would keep every one
    performance.measure('redraw', { start, end: performance.now() });
    if (busy && !pending) {
      busy = false;
      countDrawing(-1);
    }
  };
  /** The steps left, one per frame, unless a newer redraw has begun. */
  const drawSteps = (steps, start, run) => {
    if (steps.length === 0) {
      finish(start);
      return;
    }
    requestAnimationFrame(() => {
      if (run !== latestRun) return;
      step(steps[0]);
      drawSteps(steps.slice(1), start, run);
    });
  };
  return (...args) => {
    if (!busy) {
      busy = true;
      countDrawing(+1);
    }
    if (pending) {
      pending.args = args;
      return;
    }
    pending = { args, start: performance.now() };
    const draw = () => {
      const { args: latest, start } = pending;
      pending = null;
      lastDrawn = performance.now();
      const run = ++latestRun;
      const later = step(() => fn(...latest));
      drawSteps(Array.isArray(later) ? later : [], start, run);
    };
    const wait = lastDrawn + minInterval - performance.now();
    if (wait > 0) setTimeout(() => requestAnimationFrame(draw), wait);
    else requestAnimationFrame(draw);
  };
}
