// "Trace one number": the panel that takes one cell (i, j) of an attention map
// apart, from attn.explainScore (every number here is a field of its answer).
// It reads first as a short worked sum, q · k → ÷ √d_k → softmax → z, with
// row i of the weights as bars (this key marked); the full tables — q_i and k_j
// side by side with their products, and the value rows the weights mix into
// z_i — are behind a disclosure.
import { bars } from './bars.js';
import { formatNumber } from './heatmap.js';

// Keys a traced row lists one by one (a row of more is cut to its largest weights).
const MOST_KEYS = 16;

const cell = (tag, text, className) => {
  const el = document.createElement(tag);
  el.textContent = text;
  if (className) el.className = className;
  return el;
};

/** A table with a header row and body rows of texts; the last row can be a total. */
function table(caption, head, rows, { total } = {}) {
  const t = document.createElement('table');
  t.className = 'trace-table';
  t.append(cell('caption', caption));
  const thead = t.createTHead().insertRow();
  for (const h of head) thead.append(cell('th', h));
  const addRow = (section, texts) => {
    const tr = section.insertRow();
    texts.forEach((text, k) => {
      const c = cell(k === 0 ? 'th' : 'td', text);
      if (k === 0) c.scope = 'row';
      tr.append(c);
    });
  };
  const body = t.createTBody();
  for (const r of rows) addRow(body, r);
  if (total) addRow(t.createTFoot(), total);
  return t;
}

/**
 * Head h of batch row 0 of a multi-head trace (queries, keys, values (1, H, T, d), weights
 * (1, H, T, T): a MultiHeadAttention's, or one layer of a GPT's), as explainScore takes it.
 */
export function oneHead({ queries, keys, values, weights }, h) {
  const slice = (x) => {
    const [, , T, d] = x.shape;
    return { data: x.data.subarray(h * T * d, (h + 1) * T * d), shape: [T, d] };
  };
  return { queries: slice(queries), keys: slice(keys), values: slice(values), weights: slice(weights) };
}

/**
 * The panel inside `container`: show(explanation, labels) draws one cell's
 * trace, clear() goes back to the hint. level: its heading's (3 under a section's <h2>; 2 where it follows a
 * chapter's hero, before any section).
 */
export function scorePanel(container, { hint, level = 3 }) {
  container.classList.add('score-panel');
  container.setAttribute('aria-live', 'polite');
  container.tabIndex = 0; // its tables scroll sideways on a narrow screen, by keyboard too
  let shown = null; // the cell on display, so that only a newly chosen one brings the panel into view
  const clear = () => {
    shown = null;
    container.replaceChildren(cell('p', hint, 'note-text'));
    for (const key of ['query', 'key', 'score', 'scaledScore']) delete container.dataset[key];
  };
  clear();
  return {
    clear,
    /**
     * e: attn.explainScore's answer for query i and key j; queryLabel and keyLabels name the
     * tokens; context says which map when a page has several ("head 2").
     */
    show(e, { i, j, queryLabel, keyLabels, context = '' }) {
      const d = e.query.data.length;
      const dv = e.output.data.length;
      const f = (v) => formatNumber(v, 4);
      container.dataset.query = String(i);
      container.dataset.key = String(j);
      container.dataset.score = String(e.score);
      container.dataset.scaledScore = String(e.scaledScore);
      const heading = cell(`h${level}`, `One number traced: query “${queryLabel}”, key “${keyLabels[j]}”${context ? `, ${context}` : ''}`);
      const products = table(
        `1. The score is the dot product q · k: ${d} products, summed`,
        ['dimension', `q (“${queryLabel}”)`, `k (“${keyLabels[j]}”)`, 'q × k'],
        Array.from({ length: d }, (_, c) => [`d${c + 1}`, f(e.query.data[c]), f(e.key.data[c]), f(e.products.data[c])]),
        { total: ['sum', '', '', f(e.score)] },
      );
      products.dataset.part = 'products';
      // Gemma 3 divides by √query_pre_attn_scalar, which need not be d_k.
      const square = Math.round(e.divisor ** 2);
      const root = square === d ? `√d_k = √${d}` : `√${square} (this model's query_pre_attn_scalar, not √d_k)`;
      const scaling = cell('p', `2. Divided by ${root} = ${f(e.divisor)}: ${f(e.score)} / ${f(e.divisor)} = ${f(e.scaledScore)}, ` +
        'the scaled score (a masked key’s score is replaced before the softmax).');
      scaling.dataset.part = 'scaling';
      // A long row (a real model's text) shows its MOST_KEYS largest weights, the traced key among them, in
      // text order; the other keys' share and contribution are summed into one row.
      const all = keyLabels.map((_, k) => k);
      const keys = all.length <= MOST_KEYS + 8 ? all
        : [...new Set([j, ...[...all].sort((a, b) => e.weights.data[b] - e.weights.data[a]).slice(0, MOST_KEYS)])].sort((a, b) => a - b);
      const rest = keyLabels.length - keys.length;
      const row = document.createElement('figure');
      row.dataset.part = 'row';
      bars(row, keys.map((k) => e.weights.data[k]), {
        title: `3. The softmax of row “${queryLabel}”: its weights, “${keyLabels[j]}” marked (the row sums to 1)` +
          (rest ? `; the ${keys.length} largest of its ${keyLabels.length} keys` : ''),
        labels: keys.map((k) => keyLabels[k]),
        domain: [0, 1],
        digits: 3,
      });
      row.querySelector(`g.bar[data-index="${keys.indexOf(j)}"]`)?.classList.add('traced');
      const others = [];
      if (rest) {
        const sum = (c) => all.filter((k) => !keys.includes(k)).reduce((acc, k) => acc + e.mixed.data[k * dv + c], 0);
        const share = 1 - keys.reduce((acc, k) => acc + e.weights.data[k], 0);
        others.push([`the other ${rest} keys`, f(share), ...Array.from({ length: dv }, (_, c) => f(sum(c)))]);
      }
      const mixing = table(
        `4. The output z for “${queryLabel}” mixes the value rows v by these weights: z = Σ w · v`,
        ['key', 'weight w', ...Array.from({ length: dv }, (_, c) => `w × v, dim ${c + 1}`)],
        [...keys.map((k) => [keyLabels[k], f(e.weights.data[k]), ...Array.from(e.mixed.data.subarray(k * dv, (k + 1) * dv), f)]), ...others],
        { total: ['z', '', ...Array.from(e.output.data, f)] },
      );
      mixing.dataset.part = 'mixing';
      mixing.querySelectorAll('tbody tr')[keys.indexOf(j)]?.classList.add('traced');
      // The worked sum: the products written out when they are few, the first three and a count when not.
      const terms = Array.from({ length: d <= 4 ? d : 3 }, (_, c) => `${f(e.query.data[c])} × ${f(e.key.data[c])}`);
      const sum = cell('p', `q · k = ${terms.join(' + ')}${d > 4 ? ` + … (${d} products)` : ''} = ${f(e.score)};  ` +
        `÷ ${f(e.divisor)} = ${f(e.scaledScore)};  the softmax of the row gives “${keyLabels[j]}” ${f(e.weights.data[j])};  ` +
        `z = Σ w · v = (${Array.from(e.output.data.subarray(0, Math.min(dv, 4)), f).join(', ')}${dv > 4 ? `, … ${dv} numbers` : ''}).`, 'worked-sum');
      sum.dataset.part = 'sum';
      const full = document.createElement('details');
      full.className = 'trace-tables';
      full.append(cell('summary', `The full tables: the ${d} products, and the ${keys.length} value rows mixed`), products, scaling, mixing);
      container.replaceChildren(heading, sum, row, full);
      // A cell the reader just chose (not a redraw, not a link being opened) brings its answer into view: the panel
      // sits below the maps, often a screen away from the cell.
      const key = `${context}|${i}|${j}`;
      if (key !== shown && document.body.dataset.ready === 'true') {
        const box = heading.getBoundingClientRect();
        if (box.top < 0 || box.bottom > window.innerHeight) {
          const reduce = window.matchMedia?.('(prefers-reduced-motion: reduce)').matches;
          heading.scrollIntoView({ block: 'start', behavior: reduce ? 'auto' : 'smooth' });
        }
      }
      shown = key;
    },
  };
}
