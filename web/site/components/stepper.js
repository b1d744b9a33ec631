// Step through a figure on request: Back, Step, Play (Pause) and Show all, and one sentence saying which step
// is shown. The figure draws what `shown` says; the stepper only counts. A hero figure starts complete
// (every step shown, exact numbers); stepping is the reader's choice. Play waits longer between steps when
// the reader asked for reduced motion (the figures' transitions are off then too, in the style sheet).
const STEP_MS = 1400;

const reducedMotion = () => window.matchMedia('(prefers-reduced-motion: reduce)').matches;

/**
 * count(): how many steps there are now; onStep(shown, playing): draw steps 0 … shown − 1;
 * describe(k): the sentence for step k (0-based). Returns { element, text, shown(), stop() }: `element` holds
 * the buttons and `text` the sentence, for the figure to place.
 */
export function stepper({ count, onStep, describe, done = 'Step back to take them one at a time.' }) {
  let shown = Infinity;
  let timer = null;
  const element = document.createElement('div');
  element.className = 'controls stepper';
  const button = (label, onClick) => {
    const b = document.createElement('button');
    b.type = 'button';
    b.textContent = label;
    b.addEventListener('click', onClick);
    element.append(b);
    return b;
  };
  const now = () => Math.min(shown, count());
  const back = button('◀ Back', () => go(now() - 1));
  const step = button('Step ▶', () => go(now() + 1));
  const play = button('Play', () => (timer ? stop() : start()));
  const all = button('Show all', () => {
    stop();
    go(count());
  });
  const text = document.createElement('p');
  text.className = 'stepper-text';
  text.setAttribute('aria-live', 'polite');

  function go(n) {
    shown = Math.max(1, Math.min(count(), n));
    update();
  }
  function start() {
    if (now() >= count()) shown = 1;
    play.textContent = 'Pause';
    timer = setInterval(() => (now() >= count() ? stop() : go(now() + 1)), reducedMotion() ? STEP_MS * 1.5 : STEP_MS);
    update();
  }
  function stop() {
    if (!timer) return;
    clearInterval(timer);
    timer = null;
    play.textContent = 'Play';
    update();
  }
  /** Buttons and sentence for the current step, then the figure. */
  function update() {
    const n = now();
    const total = count();
    back.disabled = n <= 1;
    step.disabled = n >= total;
    all.disabled = n >= total && !timer;
    text.textContent = n >= total && !timer ? `All ${total} steps. ${done}` : `Step ${n} of ${total}: ${describe(n - 1)}`;
    onStep(n, Boolean(timer));
  }
  return { element, text, shown: now, update, stop };
}
