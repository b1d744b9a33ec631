// Sampling made visible (chapters 8 and 9): the next token's likeliest candidates as bars, at the reader's
// temperature, top-k and top-p (what Generate draws from, attn.samplingDistribution), over outlines of the model's own
// probabilities; and the token Generate drew, marked among them.
import { bars } from './bars.js';

/** The figure for candidates {ids, pieces, own, after} (likeliest first) at `temperature`, `topK` and (chapter 9) `topP`. */
export function samplingBars(figure, candidates, { temperature, topK, topP }) {
  const { pieces, own, after } = candidates;
  bars(figure, after, {
    title: `The next token, temperature ${temperature}, top-k ${topK === 0 ? 'all' : topK}${topP === undefined ? '' : `, top-p ${topP}`}: the bars are what Generate ` +
      'draws from; the outlines, the model\'s own probabilities (temperature 1, every token)',
    labels: pieces.map((piece) => piece.trim() || '␣'),
    domain: [0, Math.max(...own, ...after)], // the axis reaches the tallest bar
    digits: 3,
    ghost: own,
    ghostLabel: 'temperature 1, every token',
  });
  figure.dataset.temperature = String(temperature);
}

/** Marks token `id` (its piece `piece`) among the figure's candidates, and says so in `note`. */
export function markDrawn(figure, note, candidates, id, piece) {
  const k = candidates?.ids.indexOf(id) ?? -1;
  for (const bar of figure.querySelectorAll('g.bar.drawn')) bar.classList.remove('drawn');
  figure.querySelector(`g.bar[data-index="${k}"]`)?.classList.add('drawn');
  note.dataset.drawn = String(id);
  note.textContent = `Drawn: “${piece.trim() || piece}”${k < 0 ? ` (not among the ${candidates?.ids.length ?? 0} shown)` : ''}.`;
}
