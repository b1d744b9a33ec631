// Every head of a model at a glance: a layers × heads grid of small attention maps (layers down, heads across,
// as the model view of bertviz lays them out), one SVG for any model from chapter 8's 2 × 4 to GPT-2's 12 × 12.
// Each map is a picture (one pixel a cell, painted on a canvas and placed as an <image>), so that a 1,024-token
// map costs one element, not a million. The grid is one tab stop: arrow keys move between heads, Enter or a
// click chooses one (the page then shows it in full); pointing or focusing tells `onPoint`, for a read-out.
import * as d3 from 'd3';

import { exportMenu } from './figure-export.js';
import { availableWidth } from './heatmap.js';
import { resolveColor } from './theme.js';

// viridis as 256 RGB triples: the site's colour scale for weights in [0, 1]
const VIRIDIS = Array.from({ length: 256 }, (_, i) => {
  const { r, g, b } = d3.rgb(d3.interpolateViridis(i / 255));
  return [r, g, b];
});

/**
 * A (rows, cols) block of weights in [0, 1], from `offset` of `data`, painted one pixel a cell onto a 2-D context.
 * In a causal model the cells above the diagonal (a key after its query, or a block of such keys in a thumbnail) are
 * masked: painted in the masked colour (the style sheet's --masked-fill), not as weights of 0.
 */
export function paintWeights(ctx, data, rows, cols, offset = 0, causal = true) {
  const { r: mr, g: mg, b: mb } = d3.rgb(resolveColor('var(--masked-fill)'));
  const image = ctx.createImageData(cols, rows);
  for (let k = 0; k < rows * cols; k++) {
    const masked = causal && k % cols > Math.floor(k / cols);
    const [r, g, b] = masked ? [mr, mg, mb] : VIRIDIS[Math.max(0, Math.min(255, Math.round(data[offset + k] * 255)))];
    image.data.set([r, g, b, 255], k * 4);
  }
  ctx.putImageData(image, 0, 0);
}

/** One head's map as a PNG data URL (what an <image> of the grid shows). */
function mapUrl(data, size, offset, causal) {
  const canvas = Object.assign(document.createElement('canvas'), { width: size, height: size });
  paintWeights(canvas.getContext('2d'), data, size, size, offset, causal);
  return canvas.toDataURL();
}

// Every head's picture, per maps array, theme (the masked colour is the theme's) and causality: choosing a head redraws
// the grid (its frame moves), and 144 heads need not be painted and encoded again for that.
const pictures = new WeakMap();

/** The picture of each head (layer-major) of maps (nLayer, nHead, S, S). */
function picturesOf(maps, causal) {
  const key = `${document.documentElement.dataset.theme ?? 'light'}${causal ? '' : ', not causal'}`;
  const byKey = pictures.get(maps.data) ?? new Map();
  pictures.set(maps.data, byKey);
  if (!byKey.has(key)) {
    const [nLayer, nHead, S] = maps.shape;
    byKey.set(key, Array.from({ length: nLayer * nHead }, (_, k) => mapUrl(maps.data, S, k * S * S, causal)));
  }
  return byKey.get(key);
}

const AXIS = 28; // room for "L12" and "h12"
const GROUPS = 22; // room for the key/value groups' brackets above the heads
const WINDOW_MARK = 52; // room for a sliding layer's "w 4096"

/**
 * maps: {data, shape: [nLayer, nHead, S, S]} weights (a thumbnail or the full maps); selected: [layer, head];
 * off: a Set of "layer.head" (switched-off heads, drawn faded); onChoose(layer, head); onPoint(layer, head | null).
 * title names the figure (its download and its label); causal: whether keys after their query are masked (they
 * are in every language model; chapter 6's module may attend both ways). Today's families (chapter 9):
 * groupSize, the query heads that share one key/value head (GQA; 1: none share), drawn under one bracket named
 * for that head; layerWindow (nLayer), a layer's sliding window (0: none), written at the end of its row.
 */
export function headGrid(container, maps, { title, selected, off = new Set(), onChoose, onPoint = () => {}, maxThumb = 96, causal = true,
  groupSize = 1, layerWindow = [] }) {
  const [nLayer, nHead] = maps.shape;
  const urls = picturesOf(maps, causal);
  const width = availableWidth(container);
  const grouped = groupSize > 1 ? groupSize : 0; // MQA too: one bracket over every head
  const windows = layerWindow.some((w) => w > 0);
  const top = AXIS + (grouped ? GROUPS : 0);
  const right = windows ? WINDOW_MARK : 0;
  const gap = nHead > 8 ? 3 : 8;
  const thumb = Math.max(24, Math.min(maxThumb, Math.floor((width - AXIS - right - 8) / nHead) - gap));
  const step = thumb + gap;
  const described = [grouped && `query heads in groups of ${grouped}, one key/value head each`,
    windows && `layers with a sliding window marked w and its size`].filter(Boolean).join('; ');
  const svg = d3.create('svg')
    .attr('class', 'head-grid-svg')
    .attr('width', AXIS + nHead * step + right)
    .attr('height', top + nLayer * step)
    .attr('viewBox', `0 0 ${AXIS + nHead * step + right} ${top + nLayer * step}`)
    .attr('role', 'grid')
    .attr('aria-label', `${title}: ${nLayer} layers by ${nHead} heads${described ? ` (${described})` : ''}. Arrow keys move between heads, ` +
      'Enter shows one in full.');
  if (grouped) {
    const groups = svg.append('g').attr('class', 'kv-groups').selectAll('g').data(d3.range(nHead / grouped)).join('g')
      .attr('data-group', (g) => g);
    groups.append('path').attr('class', 'kv-bracket')
      .attr('d', (g) => `M${AXIS + g * grouped * step + 1},${GROUPS - 2} v-5 H${AXIS + (g + 1) * grouped * step - gap - 1} v5`);
    groups.append('text').attr('class', 'axis-label').attr('text-anchor', 'middle').attr('y', GROUPS - 10)
      .attr('x', (g) => AXIS + (g + 0.5) * grouped * step - gap / 2).text((g) => `kv${g + 1}`);
  }
  svg.append('g').selectAll('text').data(d3.range(nHead)).join('text')
    .attr('class', 'axis-label').attr('x', (h) => AXIS + h * step + thumb / 2).attr('y', top - 8)
    .attr('text-anchor', 'middle').text((h) => `h${h + 1}`);
  const rows = svg.append('g').selectAll('g').data(d3.range(nLayer)).join('g')
    .attr('role', 'row')
    .attr('transform', (l) => `translate(0, ${top + l * step})`);
  rows.append('text').attr('class', 'axis-label').attr('x', AXIS - 6).attr('y', thumb / 2).attr('dy', '0.35em')
    .attr('text-anchor', 'end').text((l) => `L${l + 1}`);
  if (windows) {
    rows.filter((l) => layerWindow[l] > 0).append('text').attr('class', 'axis-label window-mark')
      .attr('x', AXIS + nHead * step + 2).attr('y', thumb / 2).attr('dy', '0.35em').text((l) => `w ${layerWindow[l]}`);
  }
  const isSelected = (l, h) => selected?.[0] === l && selected?.[1] === h;
  const heads = rows.selectAll('g.thumb').data((l) => d3.range(nHead).map((h) => ({ l, h }))).join('g')
    .attr('class', (d) => `thumb${off.has(`${d.l}.${d.h}`) ? ' off' : ''}`)
    .attr('data-layer', (d) => d.l)
    .attr('data-head', (d) => d.h)
    .attr('role', 'gridcell')
    .attr('tabindex', (d) => ((selected ? isSelected(d.l, d.h) : d.l === 0 && d.h === 0) ? 0 : -1))
    .attr('aria-selected', (d) => String(isSelected(d.l, d.h)))
    .attr('aria-label', (d) => `Layer ${d.l + 1}, head ${d.h + 1}${off.has(`${d.l}.${d.h}`) ? ' (switched off)' : ''}`)
    .attr('transform', (d) => `translate(${AXIS + d.h * step}, 0)`);
  heads.append('image')
    .attr('width', thumb).attr('height', thumb)
    .attr('preserveAspectRatio', 'none')
    .attr('style', 'image-rendering: pixelated')
    .attr('href', (d) => urls[d.l * nHead + d.h]);
  heads.append('rect').attr('class', 'frame').attr('width', thumb).attr('height', thumb);
  heads.append('title').text((d) => `Layer ${d.l + 1}, head ${d.h + 1}`);

  const node = svg.node();
  const at = (el) => el.closest?.('g.thumb');
  const headOf = (el) => [Number(el.dataset.layer), Number(el.dataset.head)];
  node.addEventListener('click', (e) => {
    const el = at(e.target);
    if (el) onChoose(...headOf(el));
  });
  for (const type of ['pointerover', 'focusin']) {
    node.addEventListener(type, (e) => {
      const el = at(e.target);
      if (el) onPoint(...headOf(el));
    });
  }
  node.addEventListener('pointerleave', () => onPoint(null, null));
  node.addEventListener('keydown', (e) => {
    const el = at(e.target);
    if (!el) return;
    const [l, h] = headOf(el);
    if (e.key === 'Enter' || e.key === ' ') {
      e.preventDefault();
      onChoose(l, h);
      return;
    }
    const move = { ArrowUp: [-1, 0], ArrowDown: [1, 0], ArrowLeft: [0, -1], ArrowRight: [0, 1], Home: [0, -nHead], End: [0, nHead] }[e.key];
    if (!move) return;
    e.preventDefault();
    const next = node.querySelector(`g.thumb[data-layer="${Math.max(0, Math.min(nLayer - 1, l + move[0]))}"][data-head="${Math.max(0, Math.min(nHead - 1, h + move[1]))}"]`);
    el.setAttribute('tabindex', '-1');
    next.setAttribute('tabindex', '0');
    next.focus();
  });
  // A redraw (a new selection, a new analysis of the same text) keeps the keyboard on the head it was on.
  const focused = container.contains(document.activeElement) ? document.activeElement.closest?.('g.thumb') : null;
  container.replaceChildren(node);
  if (focused) {
    const same = node.querySelector(`g.thumb[data-layer="${focused.dataset.layer}"][data-head="${focused.dataset.head}"]`);
    node.querySelectorAll('g.thumb[tabindex="0"]').forEach((el) => el.setAttribute('tabindex', '-1'));
    same.setAttribute('tabindex', '0');
    same.focus();
  }
  exportMenu(container, node, null, title);
}
