// The attention pipeline as one linked figure, a chapter's hero: each matrix of
// softmax(Q Kᵀ / √d_k + M) V drawn once, left to right, with the operation that
// leads to it on the arrow between. Point at (or move the keyboard to) any cell
// and the cells it is made from and the cells it feeds light up in every matrix
// while the rest fade; the exact numbers are read out under the figure. Its
// stepper shows the matrices one at a time, the way the notebooks compute
// them. The numbers are the chapter's own (attn.* results); this file only
// draws them.
//
// Stages say what their rows and columns are, which is all the linking needs:
//   kind 'x'     (T, d)  the embeddings, which are queries, keys and values at once (chapter 2)
//   kind 'q'     (T, d)  rows are queries;   kind 'k', 'v' (T, d) rows are keys
//   kind 'score' (T, T)  rows are queries, columns keys (scores, scaled scores, mask, weights)
//   kind 'z'     (T, d)  rows are queries: the context vectors
// A stage may belong to one head (`head`), and the columns of a (T, d) stage to heads (`groupEvery` = d_k):
// then only the matching head's cells link (chapter 6's split and concat).
//
// The hero is the one place a chapter draws these matrices (docs/site.md, "Numbers on demand"), so what a
// chapter does with one of its cells is done here: a stage's `onCellClick` runs when a cell is clicked or
// Enter is pressed on it (chapter 3 traces the number below, chapter 5 toggles the mask's cell), and its
// `cellPressed` marks the cells that action holds (aria-pressed).
import * as d3 from 'd3';

import { exportMenu } from './figure-export.js';
import { stepper } from './stepper.js';
import { colourScale } from './colour-scales.js';
import { availableWidth, formatNumber, textColorOn } from './heatmap.js';
import { onThemeChange, resolveColor } from './theme.js';

const TITLE = 34; // a stage's two title lines
const COL_LABELS = 16;
const GAP = 64; // between stages: room for the arrow and its operation
const ROW_GAP = 30;
const LEGEND = 26;
const MASKED_KEY = 18; // a stage with masked cells keys them under its colour bar
const CHAR = 6.5; // the width of one character of an 11 px label, near enough
const MIN_CELL = 34; // room for a value of two decimals
const MAX_CELL = 48;
const FRAME = 34; // the figure's padding and border (style.css: figure.pipeline), inside <main>'s width

/** Whether cell (r, c) of `target` is made from, or feeds, cell (i, j) of `source`. */
export function linked(source, i, j, target, r, c) {
  const headOf = (stage, col) => stage.head ?? (stage.groupEvery ? Math.floor(col / stage.groupEvery) : null);
  const a = headOf(source, j);
  const b = headOf(target, c);
  if (a !== null && b !== null && a !== b) return false;
  const from = source.kind;
  const to = target.kind;
  if (source === target) return r === i && c === j;
  // The query and key an (i, j) cell pairs, as the rows of the (T, d) stages.
  if (from === 'score') {
    // A softmax's output (i, j) divides by the sum of its whole input row i, and every score of that row feeds
    // every weight of it; between other score stages (÷ √d_k, + M) a cell is made from the same cell. Hovering a
    // weight once lit the one score of its own cell.
    if (to === 'score') return r === i && (c === j || source.op === 'softmax' || target.op === 'softmax');
    if (to === 'q' || to === 'z') return r === i;
    if (to === 'k' || to === 'v') return r === j;
    if (to === 'x') return r === i || r === j;
  }
  if (from === 'q') {
    if (to === 'k') return c === j; // q_i,c meets k_·,c in every score of row i
    if (to === 'score' || to === 'z') return r === i;
    if (to === 'q') return r === i;
  }
  if (from === 'k') {
    if (to === 'q') return c === j;
    if (to === 'score') return c === i;
    if (to === 'k' || to === 'v') return r === i;
  }
  if (from === 'v') {
    if (to === 'score') return c === i; // v_i,· is mixed in with the weights of key i
    if (to === 'z') return c === j;
    if (to === 'k' || to === 'v') return r === i;
  }
  if (from === 'z') {
    if (to === 'score' || to === 'q') return r === i;
    if (to === 'v') return c === j;
    if (to === 'z') return r === i;
    if (to === 'x') return r === i;
  }
  if (from === 'x') {
    if (to === 'score') return r === i || c === i;
    if (to === 'x' || to === 'z') return r === i;
  }
  return false;
}

/**
 * A pipeline figure in `container` (a <figure>), titled `title`; describe(stage, k) is the stepper's sentence
 * for a stage. Returns { update(stages) }, called with every redraw; which step is shown and which cell is
 * pinned survive redraws.
 *
 * stages: [{ id, name, title, op, kind, tensor: {data, shape: [rows, cols]}, rowLabels, colLabels, domain?,
 *            masked?(r, c), maskLabel?, attendLabel?, head?, groupEvery?, digits?,
 *            onCellClick?(r, c), cellPressed?(r, c), cellAction?, cellLabel?(r, c, text) }]
 *   id: what the stage is, for links and tests (data-id: 'weights', 'mask');
 *   name: the matrix's symbol in the read-out ('Q', 'A'); title: its formula, above it;
 *   attendLabel: a two-valued stage (a mask): its legend is two swatches, this label's and the masked one's;
 *   onCellClick: what a click or Enter on a cell does besides pinning it; cellAction says it ('traces it below');
 *   op: the operation on the arrow that leads to it ('softmax', '÷ √2'); none (or '') for a stage that is an
 *   input of its own (K beside Q), drawn next to the one before it without an arrow.
 */
export function pipeline(container, { title, describe = () => '' }) {
  let stages = [];
  let pinned = null; // {s, i, j}: the cell Enter or a click fixed
  let pointed = null; // the cell under the pointer or the keyboard's focus

  container.classList.add('pipeline');
  const heading = document.createElement('figcaption');
  heading.className = 'heatmap-title';
  heading.textContent = title;
  const steps = stepper({
    count: () => stages.length,
    onStep: (n) => draw(n),
    describe: (k) => `${stages[k].name}${stages[k].op ? ` (${stages[k].op})` : ''}. ${describe(stages[k], k)}`,
    done: 'Point at any cell to see what it is made of; Step back to take them one at a time.',
  });
  const picture = document.createElement('div');
  picture.className = 'pipeline-picture';
  const readout = document.createElement('p');
  readout.className = 'pipeline-readout readout';
  readout.setAttribute('aria-live', 'polite');
  // Which axis is which, as every attention map of the site says it (heatmap.js: ATTENTION_AXES, WEIGHTS_NOTE).
  const axes = document.createElement('p');
  axes.className = 'pipeline-axes note-text';
  container.replaceChildren(heading, steps.element, steps.text, picture, axes, readout);
  const shown = () => steps.shown();

  function draw(n) {
    // The cell the keyboard is on, if any: the redraw its own Enter causes (a toggle, a trace) must not drop it.
    const focused = picture.contains(document.activeElement) ? document.activeElement.closest?.('g.cell') : null;
    const keep = focused && {
      s: Number(focused.closest('g.stage').dataset.stage), i: Number(focused.dataset.row), j: Number(focused.dataset.col),
    };
    if (keep && (keep.s >= stages.length || keep.i >= stages[keep.s].tensor.shape[0] || keep.j >= stages[keep.s].tensor.shape[1])) keep.s = -1;
    const width = Math.max(280, availableWidth(container) - FRAME);
    // Cells as large as fit: the widest stage must fit the page on its own.
    const labelWidth = (s) => 8 + CHAR * Math.max(1, ...(s.rowLabels ?? []).map((l) => l.length));
    // Cells wide enough for their column labels (up to MAX_CELL), then as large as fit: the widest stage must fit
    // the page on its own. Labels still too long for their cell are cut (the full label is in the cell's title).
    const longest = Math.max(1, ...stages.flatMap((s) => (s.colLabels ?? []).map((l) => l.length)));
    const wanted = Math.min(MAX_CELL, Math.max(MIN_CELL, Math.ceil(CHAR * longest + 6)));
    const room = width - 12; // the svg's own margin, and rounding
    const cell = Math.max(14, Math.min(wanted, ...stages.map((s) => Math.floor((room - labelWidth(s)) / s.tensor.shape[1]))));
    const fits = Math.max(1, Math.floor((cell - 4) / CHAR));
    const colLabel = (s, c) => {
      const l = s.colLabels?.[c] ?? '';
      return l.length <= fits ? l : `${l.slice(0, Math.max(1, fits - 1))}…`;
    };
    const boxes = [];
    let x = 0, y = 0, rowHeight = 0;
    // Row labels only where a row of the figure starts, or where the rows change (all stages here are tokens).
    const sameRows = (a, b) => a && (a.rowLabels ?? []).join('\u0000') === (b.rowLabels ?? []).join('\u0000');
    stages.forEach((s, k) => {
      const [rows, cols] = s.tensor.shape;
      const size = (left) => Math.max(left + cols * cell, 7 * Math.max(s.title.length, s.name.length + 2) * 0.8);
      const gap = k === 0 ? 0 : s.op ? GAP : GAP / 3;
      let left = k > 0 && sameRows(stages[k - 1], s) ? 0 : labelWidth(s);
      const wraps = k > 0 && x + gap + size(left) > width;
      if (wraps) {
        x = 0;
        y += rowHeight + ROW_GAP;
        rowHeight = 0;
        left = labelWidth(s);
      }
      const w = size(left);
      const h = TITLE + COL_LABELS + rows * cell + LEGEND + (s.masked && !s.attendLabel ? MASKED_KEY : 0);
      const bx = k === 0 || wraps ? 0 : x + gap;
      boxes.push({ s, k, x: bx, y, w, h, left, cell, rows, cols, wrapped: wraps });
      x = bx + w;
      rowHeight = Math.max(rowHeight, h);
    });
    const height = y + rowHeight + 4;
    const total = Math.max(...boxes.map((b) => b.x + b.w)) + 4;

    const svg = d3.create('svg')
      .attr('class', 'pipeline-svg')
      .attr('viewBox', `0 0 ${total} ${height}`)
      .attr('width', total)
      .attr('height', height)
      .attr('role', 'group')
      .attr('aria-label', `${title}: ${stages.map((s) => s.name).join(' → ')}. Tab to a matrix, arrow keys move between its cells, ` +
        `Enter pins the cells that one is made of and feeds${stages.filter((s) => s.onCellClick).map((s) => `; in ${s.name} it also ${s.cellAction}`).join('')}.`);
    const defs = svg.append('defs');
    defs.append('marker').attr('id', 'pipeline-arrow').attr('viewBox', '0 0 10 10').attr('refX', 9).attr('refY', 5)
      .attr('markerWidth', 7).attr('markerHeight', 7).attr('orient', 'auto')
      .append('path').attr('d', 'M0,0 L10,5 L0,10 z').attr('class', 'arrowhead');
    // Masked cells wear the heatmaps' hatching (heatmap.js, style.css).
    const hatchId = `pipeline-hatch-${Math.random().toString(36).slice(2)}`;
    const hatch = defs.append('pattern').attr('id', hatchId).attr('width', 6).attr('height', 6)
      .attr('patternUnits', 'userSpaceOnUse').attr('patternTransform', 'rotate(45)');
    hatch.append('rect').attr('class', 'hatch-ground').attr('width', 6).attr('height', 6);
    hatch.append('line').attr('class', 'hatch-line').attr('x1', 0).attr('y1', 0).attr('x2', 0).attr('y2', 6).attr('stroke-width', 2);

    for (const b of boxes) {
      const { s, k } = b;
      const { color, domain: [lo, hi] } = colourScale(s.domain ?? domainOf(s));
      const g = svg.append('g')
        .attr('class', `stage${k >= n ? ' pending' : ''}${k === n - 1 && n < stages.length ? ' current' : ''}`)
        .attr('data-stage', k)
        .attr('data-id', s.id ?? null)
        .attr('transform', `translate(${b.x}, ${b.y})`);
      if (k > 0 && s.op) {
        const prev = boxes[k - 1];
        const arrow = svg.insert('g', () => g.node()).attr('class', `op${k >= n ? ' pending' : ''}`);
        if (b.wrapped) {
          // Down to the next row: the operation written at the start of the row.
          arrow.append('text').attr('class', 'op-label').attr('x', b.x).attr('y', b.y - 8).text(`↳ ${s.op}`);
        } else {
          const ay = b.y + TITLE + COL_LABELS + (Math.min(prev.rows, b.rows) * b.cell) / 2;
          arrow.append('line').attr('x1', prev.x + prev.w + 4).attr('x2', b.x - 4).attr('y1', ay).attr('y2', ay)
            .attr('marker-end', 'url(#pipeline-arrow)');
          arrow.append('text').attr('class', 'op-label').attr('x', (prev.x + prev.w + b.x) / 2).attr('y', ay - 7)
            .attr('text-anchor', 'middle').text(s.op);
        }
      }
      g.append('text').attr('class', 'stage-name').attr('x', 0).attr('y', 13).text(s.name);
      g.append('text').attr('class', 'stage-title').attr('x', 0).attr('y', 28).text(s.title);
      const top = TITLE + COL_LABELS;
      // Columns in heads whose labels do not fit their cells are labelled once per head instead ("h2").
      const perHead = s.groupEvery && (s.colLabels ?? []).some((l) => l.length > fits);
      const labelled = perHead ? d3.range(0, b.cols, s.groupEvery) : d3.range(b.cols);
      g.append('g').selectAll('text').data(labelled).join('text')
        .attr('class', 'col-label').attr('y', top - 4).attr('text-anchor', 'middle')
        .attr('x', (c) => b.left + (perHead ? (c + s.groupEvery / 2) : c + 0.5) * b.cell)
        .text((c) => (perHead ? `h${c / s.groupEvery + 1}` : colLabel(s, c)));
      if (b.left > 0) g.append('g').selectAll('text').data(d3.range(b.rows)).join('text')
        .attr('class', 'row-label').attr('x', b.left - 5).attr('y', (r) => top + r * b.cell + b.cell / 2)
        .attr('dy', '0.35em').attr('text-anchor', 'end').text((r) => s.rowLabels?.[r] ?? '');
      const digits = s.digits ?? 2;
      const showValues = b.cell >= 30;
      const shownText = (d) => (d.masked ? s.maskLabel ?? 'masked' : formatNumber(d.v, Math.abs(d.v) >= 100 ? 0 : digits));
      const cells = g.append('g').selectAll('g').data(d3.range(b.rows * b.cols).map((q) => {
        const r = Math.floor(q / b.cols), c = q % b.cols;
        return { r, c, v: s.tensor.data[q], masked: Boolean(s.masked?.(r, c)) };
      })).join('g')
        .attr('class', (d) => `cell${d.masked ? ' masked' : ''}${s.cellPressed?.(d.r, d.c) ? ' clicked' : ''}`)
        .attr('data-row', (d) => d.r)
        .attr('data-col', (d) => d.c)
        .attr('data-value', (d) => d.v)
        .attr('transform', (d) => `translate(${b.left + d.c * b.cell}, ${top + d.r * b.cell})`);
      const fill = (d) => (d.masked ? `url(#${hatchId})` : Number.isFinite(d.v) ? color(d.v) : 'var(--masked-fill)');
      cells.append('rect').attr('width', b.cell - 2).attr('height', b.cell - 2).attr('rx', 2).attr('fill', fill);
      if (showValues) {
        cells.append('text').attr('class', 'value').attr('x', (b.cell - 2) / 2).attr('y', (b.cell - 2) / 2).attr('dy', '0.35em')
          .attr('text-anchor', 'middle')
          .attr('fill', (d) => (d.masked ? null : textColorOn(Number.isFinite(d.v) ? color(d.v) : resolveColor('var(--masked-fill)')))) // masked: style.css
          .text(shownText);
      }
      cells.append('title').text((d) => `${s.name}[${s.rowLabels?.[d.r] ?? d.r}, ${s.colLabels?.[d.c] ?? d.c}] = ${d.masked ? 'masked' : d.v}`);
      // One tab stop per matrix (a roving tabindex): arrows move, Enter or Space pins. A redraw keeps the stop,
      // and the focus, on the cell the keyboard was on.
      const [fr, fc] = keep?.s === k ? [keep.i, keep.j] : [0, 0];
      cells.attr('tabindex', (d) => (d.r === fr && d.c === fc && k < n ? 0 : -1))
        .attr('role', 'button')
        // The name says what the cell shows (the exact number is read out under the figure when it has focus).
        .attr('aria-label', (d) => s.cellLabel?.(d.r, d.c, shownText(d)) ?? `${s.name}, ${s.rowLabels?.[d.r] ?? d.r}, ${s.colLabels?.[d.c] ?? d.c}: ${shownText(d)}`);
      if (s.onCellClick) cells.attr('aria-pressed', (d) => String(Boolean(s.cellPressed?.(d.r, d.c))));
      if (s.groupEvery && s.groupEvery < b.cols) {
        for (let c = s.groupEvery; c < b.cols; c += s.groupEvery) {
          g.append('line').attr('class', 'group-rule').attr('x1', b.left + c * b.cell - 1).attr('x2', b.left + c * b.cell - 1)
            .attr('y1', top - 2).attr('y2', top + b.rows * b.cell);
        }
      }
      if (s.attendLabel) twoValues(g, color(0), `url(#${hatchId})`, s.attendLabel, `masked (${s.maskLabel ?? '−∞'})`, b.left, top + b.rows * b.cell + 2);
      else {
        legend(g, color, lo, hi, b.left, top + b.rows * b.cell + 6, Math.max(40, b.cols * b.cell - 2), digits);
        if (s.masked) maskedKey(g, `url(#${hatchId})`, `masked (${s.maskLabel ?? '−∞'})`, b.left, top + b.rows * b.cell + LEGEND + 4);
      }
    }
    picture.replaceChildren(svg.node());
    wire(svg.node());
    if (keep) svg.node().querySelector(`g.stage[data-stage="${keep.s}"] g.cell[data-row="${keep.i}"][data-col="${keep.j}"]`)?.focus();
    highlight();
    container.querySelector(':scope > details.figure-export')?.remove();
    exportMenu(container, svg.node(), stages.map((s) => ({
      title: `${s.name}: ${s.title}`, rowLabels: s.rowLabels, colLabels: s.colLabels, values: Array.from(s.tensor.data),
      rows: s.tensor.shape[0], cols: s.tensor.shape[1],
    })), title);
  }

  function wire(svg) {
    const at = (el) => {
      const g = el.closest?.('g.cell');
      const stage = el.closest?.('g.stage');
      if (!g || !stage || stage.classList.contains('pending')) return null;
      return { s: Number(stage.dataset.stage), i: Number(g.dataset.row), j: Number(g.dataset.col) };
    };
    // The pointer and the keyboard's focus point the same way.
    for (const type of ['pointerover', 'focusin']) {
      svg.addEventListener(type, (e) => {
        pointed = at(e.target);
        highlight();
      });
    }
    for (const type of ['pointerleave', 'focusout']) {
      svg.addEventListener(type, () => {
        pointed = null;
        highlight();
      });
    }
    svg.addEventListener('click', (e) => {
      const cell = at(e.target);
      if (cell) act(cell);
    });
    svg.addEventListener('keydown', (e) => {
      const cell = at(e.target);
      if (!cell) return;
      if (e.key === 'Enter' || e.key === ' ') {
        e.preventDefault();
        act(cell);
        return;
      }
      if (e.key === 'Escape') {
        pinned = null;
        highlight();
        return;
      }
      const move = { ArrowUp: [-1, 0], ArrowDown: [1, 0], ArrowLeft: [0, -1], ArrowRight: [0, 1] }[e.key];
      if (!move) return;
      e.preventDefault();
      const [rows, cols] = stages[cell.s].tensor.shape;
      const i = Math.min(rows - 1, Math.max(0, cell.i + move[0]));
      const j = Math.min(cols - 1, Math.max(0, cell.j + move[1]));
      const stage = svg.querySelector(`g.stage[data-stage="${cell.s}"]`);
      const next = stage.querySelector(`g.cell[data-row="${i}"][data-col="${j}"]`);
      stage.querySelectorAll('g.cell[tabindex="0"]').forEach((el) => el.setAttribute('tabindex', '-1'));
      next.setAttribute('tabindex', '0');
      next.focus();
    });
  }

  /** A click or Enter: pins the cell (or unpins it), then does what its stage does with a cell. */
  function act(cell) {
    pinned = pinned && pinned.s === cell.s && pinned.i === cell.i && pinned.j === cell.j ? null : cell;
    highlight();
    stages[cell.s].onCellClick?.(cell.i, cell.j);
  }

  /** Lights up what the pointed (else the pinned) cell links to; reads its numbers out. */
  function highlight() {
    const svg = picture.querySelector('svg');
    if (!svg) return;
    const focus = pointed ?? pinned;
    svg.classList.toggle('linking', Boolean(focus));
    readout.textContent = focus ? readOut(focus) : 'Point at a cell, or Tab to a matrix and use the arrow keys; Enter pins it.';
    // Nothing to light, and nothing lit since the last drawing: every cell is as drawn (the common redraw).
    if (!focus && !svg.querySelector('g.cell.lit, g.cell.source, g.cell.pinned')) return;
    for (const stageEl of svg.querySelectorAll('g.stage')) {
      const target = stages[Number(stageEl.dataset.stage)];
      for (const el of stageEl.querySelectorAll('g.cell')) {
        const r = Number(el.dataset.row), c = Number(el.dataset.col);
        const on = Boolean(focus) && linked(stages[focus.s], focus.i, focus.j, target, r, c);
        el.classList.toggle('lit', on);
        el.classList.toggle('source', Boolean(focus) && focus.s === Number(stageEl.dataset.stage) && focus.i === r && focus.j === c);
        el.classList.toggle('pinned', Boolean(pinned) && pinned.s === Number(stageEl.dataset.stage) && pinned.i === r && pinned.j === c);
      }
    }
  }

  /** The focused cell's exact number, and the same (query, key) cell in every other (T, T) stage. */
  function readOut({ s, i, j }) {
    const stage = stages[s];
    const name = (st, r, c) => `${st.name}[${st.rowLabels?.[r] ?? r}, ${st.colLabels?.[c] ?? c}]`;
    const value = (st, r, c) => (st.masked?.(r, c) ? 'masked' : formatNumber(st.tensor.data[r * st.tensor.shape[1] + c], 4));
    const here = `${name(stage, i, j)} = ${value(stage, i, j)}`;
    if (stage.kind !== 'score') return `${here}. Lit up: the cells it is made from and the cells it feeds.`;
    const chain = stages.filter((t, k) => k < shown() && t.kind === 'score' && (t.head ?? null) === (stage.head ?? null))
      .map((t) => `${t.name} ${value(t, i, j)}`);
    return `${here}: query “${stage.rowLabels?.[i] ?? i}”, key “${stage.colLabels?.[j] ?? j}”. Along the pipeline: ${chain.join(' → ')}.`;
  }

  onThemeChange(() => stages.length && steps.update()); // a masked cell's text colour is resolved when drawn

  return {
    update(next) {
      stages = next;
      const maps = stages.filter((st) => st.kind === 'score').map((st) => st.name);
      axes.textContent = maps.length === 0 ? '' : `In ${maps.join(', ')}: rows are queries (the token attending), columns are keys ` +
        `(the token attended to)${maps.some((m) => m.startsWith('A')) ? '; each row of A sums to 1' : ''}.`;
      // A cell of the stages before (a longer sentence, more heads) may lie outside these: the pointed one too,
      // which a pointer left over the figure keeps. Read out, it was a number past the data ("Could not compute:
      // Cannot read properties of undefined", chapter 6 after a one-word sentence).
      const outside = (cell) => cell && (cell.s >= stages.length || cell.i >= stages[cell.s].tensor.shape[0] || cell.j >= stages[cell.s].tensor.shape[1]);
      if (outside(pinned)) pinned = null;
      if (outside(pointed)) pointed = null;
      steps.update();
    },
  };
}

function domainOf(stage) {
  const [rows, cols] = stage.tensor.shape;
  const finite = [];
  for (let k = 0; k < rows * cols; k++) {
    const v = stage.tensor.data[k];
    if (Number.isFinite(v) && !stage.masked?.(Math.floor(k / cols), k % cols)) finite.push(v);
  }
  return [d3.min(finite) ?? 0, d3.max(finite) ?? 1];
}

/** A two-valued stage's key: the attend swatch and the masked one, each with its label. */
function twoValues(g, attendFill, maskedFill, attendLabel, maskedLabel, x, y) {
  const l = g.append('g').attr('class', 'legend attend-key').attr('transform', `translate(${x}, ${y})`);
  l.append('rect').attr('class', 'hatch-key').attr('width', 11).attr('height', 11).attr('fill', attendFill);
  l.append('text').attr('x', 15).attr('y', 9).text(attendLabel);
  maskedKey(l, maskedFill, maskedLabel, 0, 13);
}

/** The masked cells' swatch and label, the heatmaps' key (heatmap.js). */
function maskedKey(g, fill, label, x, y) {
  const m = g.append('g').attr('class', 'legend masked-key').attr('transform', `translate(${x}, ${y})`);
  m.append('rect').attr('class', 'hatch-key').attr('width', 11).attr('height', 11).attr('fill', fill);
  m.append('text').attr('x', 15).attr('y', 9).text(label);
}

function legend(g, color, lo, hi, x, y, width, digits) {
  const id = `pipeline-scale-${Math.random().toString(36).slice(2)}`;
  const gradient = g.append('defs').append('linearGradient').attr('id', id);
  for (let k = 0; k <= 10; k++) gradient.append('stop').attr('offset', `${k * 10}%`).attr('stop-color', color(lo + ((hi - lo) * k) / 10));
  const l = g.append('g').attr('class', 'legend').attr('transform', `translate(${x}, ${y})`);
  l.append('rect').attr('width', width).attr('height', 5).attr('fill', `url(#${id})`);
  l.append('text').attr('y', 17).text(formatNumber(lo, digits));
  l.append('text').attr('x', width).attr('y', 17).attr('text-anchor', 'end').text(formatNumber(hi, digits));
  // A signed scale is centred on 0 (colour-scales.js): marked where there is room between its ends.
  if (lo < 0 && hi > 0 && width >= 100) l.append('text').attr('x', width / 2).attr('y', 17).attr('text-anchor', 'middle').text('0');
}
