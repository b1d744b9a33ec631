// Chapter 9's table of what each head does (the worker's summarizeHeads): one row per head, sortable by any
// statistic, each row opening its head and switching it on or off; and the same rows as CSV.
import { formatNumber } from '../../components/heatmap.js';

export const STATS = ['previousToken', 'firstToken', 'meanDistance', 'entropy', 'prefixMatching'];

/** The heads as rows {l, h, index, ...stats}, sorted by sortBy {key, descending} (ties in layer-head order). */
export function headRows(stats, { nLayer, nHead }, sortBy) {
  const list = [];
  for (let l = 0; l < nLayer; l++) {
    for (let h = 0; h < nHead; h++) {
      const k = l * nHead + h;
      list.push({ l, h, index: k, ...Object.fromEntries(STATS.map((s) => [s, stats[s][k]])) });
    }
  }
  const sign = sortBy.descending ? -1 : 1;
  // NaN (prefix matching of a one-layer model) sorts below every number.
  const key = (r) => (Number.isNaN(r[sortBy.key]) ? -Infinity : r[sortBy.key]);
  return list.sort((a, b) => sign * (key(a) - key(b)) || a.index - b.index);
}

const SVG = 'http://www.w3.org/2000/svg';

/**
 * A head's distance profile as a row of small bars, the nearest key first: its mean weight on the key 0, 1, 2, …
 * tokens back (summarizeHeads' distanceProfile), each bar as tall as its weight on a 0-1 scale.
 */
export function profileCell(weights) {
  const td = document.createElement('td');
  const w = 4;
  const svg = document.createElementNS(SVG, 'svg');
  svg.setAttribute('class', 'profile');
  svg.setAttribute('width', String(weights.length * w));
  svg.setAttribute('height', '16');
  svg.setAttribute('role', 'img');
  const top = Array.from(weights.keys()).sort((a, b) => weights[b] - weights[a]).slice(0, 2);
  svg.setAttribute('aria-label', `weight by distance, most at ${top.map((d) => `${d} back (${formatNumber(weights[d], 2)})`).join(', then ')}`);
  weights.forEach((v, d) => {
    const bar = document.createElementNS(SVG, 'rect');
    const h = Math.max(0.5, 16 * Math.min(1, Math.max(0, v)));
    bar.setAttribute('x', String(d * w));
    bar.setAttribute('y', String(16 - h));
    bar.setAttribute('width', String(w - 1));
    bar.setAttribute('height', String(h));
    bar.dataset.distance = String(d);
    bar.dataset.value = String(v);
    svg.append(bar);
  });
  td.append(svg);
  return td;
}

/** The rows into the table's body, with its sort state on the headers. */
export function drawHeadTable(table, rows, { sortBy, selected, headsOff, onChoose, onToggle, profile }) {
  table.tBodies[0].replaceChildren(...rows.map((r) => {
    const tr = document.createElement('tr');
    if (selected[0] === r.l && selected[1] === r.h) tr.className = 'selected';
    const open = Object.assign(document.createElement('button'), { type: 'button', textContent: `L${r.l + 1} · h${r.h + 1}` });
    open.setAttribute('aria-label', `Open layer ${r.l + 1}, head ${r.h + 1}`);
    open.addEventListener('click', () => onChoose(r.l, r.h));
    const first = Object.assign(document.createElement('th'), { scope: 'row' });
    first.append(open);
    tr.append(first);
    // A head switched off has no weights to describe: its row says "off" (it said "Entropy 0.00", as if the head
    // looked at one token with certainty).
    const off = headsOff.has(`${r.l}.${r.h}`);
    if (off) tr.classList.add('off');
    for (const s of STATS) {
      tr.append(Object.assign(document.createElement('td'), {
        textContent: off ? 'off' : Number.isNaN(r[s]) ? '—' : formatNumber(r[s], s === 'meanDistance' || s === 'entropy' ? 2 : 3),
      }));
      // The profile beside the two statistics it spreads out: after entropy, before prefix matching.
      if (s === 'entropy') {
        const P = profile.shape[2];
        tr.append(off ? Object.assign(document.createElement('td'), { textContent: 'off' })
          : profileCell(profile.data.subarray(r.index * P, (r.index + 1) * P)));
      }
    }
    const box = Object.assign(document.createElement('input'), { type: 'checkbox', checked: !off });
    box.setAttribute('aria-label', `Layer ${r.l + 1}, head ${r.h + 1} in use`);
    box.addEventListener('change', () => onToggle(r.l, r.h, box.checked));
    const use = document.createElement('td');
    use.append(box);
    tr.append(use);
    return tr;
  }));
  for (const button of table.querySelectorAll('[data-sort]')) {
    button.closest('th').setAttribute('aria-sort', button.dataset.sort === sortBy.key ? (sortBy.descending ? 'descending' : 'ascending') : 'none');
  }
}

/**
 * The rows as a CSV file's text. A file leaves the page, so it numbers layers and heads as the API and attn-train's
 * --ablate do, from 0, and its column names say so (the page shows "layer 1" for layer_index 0).
 */
export function headsCsv(rows, headsOff) {
  return ['layer_index,head_index,previous_token,first_token,mean_distance,entropy,prefix_matching,in_use',
    ...rows.map((r) => [r.l, r.h, ...STATS.map((s) => r[s]), !headsOff.has(`${r.l}.${r.h}`)].join(','))].join('\n') + '\n';
}
