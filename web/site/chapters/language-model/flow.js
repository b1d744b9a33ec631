// Chapter 8's hero: the reader's text flowing through the active model, bottom to top as the architecture
// diagram reads. The tokens enter as embeddings; in each block, every head of the last token reaches back to
// the tokens it reads (one curve per head and token, as thick as the weight); at the top, the last token's
// vector becomes the next-token bars. Its stepper shows one stage at a time. Numbers come from the same
// forward pass as the maps below it (attention-view.js calls update); this file only draws.
import * as d3 from 'd3';

import { exportMenu } from '../../components/figure-export.js';
import { availableWidth } from '../../components/heatmap.js';
import { headColor } from '../../components/head-view.js';
import { stepper } from '../../components/stepper.js';
import { headName, quote, shown } from './state.js';

const ROW = 86; // between the token rows of two stages
const BARS = 200; // room on the right for the next-token bars
const CHIP = 22; // a token chip's height
const SHOWN_WEIGHT = 0.05; // curves for smaller weights would be hairlines: left out

/** figure: the hero's <figure>. Returns { update({ pieces, layers: [(H, T) last rows], next: [{piece, p}], off }) }. */
export function tokenFlow(figure) {
  let data = null;
  const caption = document.createElement('figcaption');
  caption.className = 'heatmap-title';
  caption.textContent = 'Your text through the model: embeddings, every block\'s heads reading back from the last token, the next token';
  const steps = stepper({
    count: () => (data ? data.layers.length + 2 : 1),
    onStep: (n) => draw(n),
    describe: (k) => describe(k),
    done: 'Step back to follow the last token up through the blocks.',
  });
  const picture = document.createElement('div');
  picture.className = 'flow-picture';
  figure.replaceChildren(caption, steps.element, steps.text, picture);

  /** What stage k shows, in a sentence, with this text's numbers. */
  function describe(k) {
    const { pieces, layers, next } = data;
    const last = quote(pieces.at(-1));
    if (k === 0) return `Embeddings: each of the ${pieces.length} tokens becomes a vector, its token's embedding plus its position's.`;
    if (k > layers.length) {
      return `The next token: the last vector, through a LayerNorm and the projection to the vocabulary, then a softmax: ` +
        `${next.slice(0, 3).map((t) => `${quote(t.piece)} ${(100 * t.p).toFixed(1)}%`).join(', ')}.`;
    }
    const l = k - 1;
    const looks = layers[l].map((row, h) => {
      const j = row.indexOf(Math.max(...row));
      return `head ${h + 1} ${quote(pieces[j])} ${row[j].toFixed(2)}${data.off.has(`${l}.${h}`) ? ' (switched off)' : ''}`;
    });
    return `Block ${k}: from ${last}, ${looks.join(', ')}; then the feed-forward layer, and both add to the stream.`;
  }

  function draw(n) {
    if (!data) return;
    const { pieces, layers, next } = data;
    const T = pieces.length;
    const L = layers.length;
    const width = Math.max(280, availableWidth(figure) - 34); // inside the figure's padding and border
    // Wide: stage names on the left, the bars on the right of the top row. Narrow (a phone): names above their
    // rows and the bars above the top row, so that the tokens get the whole width.
    const narrow = width < 560;
    const left = narrow ? 0 : 70;
    const tokensWidth = narrow ? width : Math.max(120, width - left - BARS - 16);
    const x = d3.scalePoint().domain(d3.range(T)).range([left + 20, left + tokensWidth - 20]).padding(0.3);
    const barsHeight = narrow ? next.slice(0, 5).length * 24 + 40 : 0;
    const height = (L + 1) * ROW + 40 + barsHeight;
    const y = (stage) => height - 24 - stage * ROW; // stage 0 (embeddings) at the bottom
    const svg = d3.create('svg').attr('class', 'flow-svg').attr('width', width).attr('height', height)
      .attr('viewBox', `0 0 ${width} ${height}`).attr('role', 'img')
      .attr('aria-label', `${caption.textContent}. ${d3.range(L + 2).map(describe).join(' ')}`);
    const stageClass = (k) => `stage${k >= n ? ' pending' : ''}`;

    for (let k = 0; k <= L; k++) {
      const g = svg.append('g').attr('class', stageClass(k)).attr('data-stage', k);
      g.append('text').attr('class', 'stage-name').attr('x', 0).attr('y', narrow ? y(k) - CHIP / 2 - 5 : y(k)).attr('dy', narrow ? 0 : '0.35em')
        .text(k === 0 ? 'embed' : `block ${k}`);
      // A step of the residual stream between stages: the column every token's vector rises in.
      if (k > 0) {
        g.append('g').attr('class', 'stream').selectAll('line').data(d3.range(T)).join('line')
          .attr('x1', (j) => x(j)).attr('x2', (j) => x(j)).attr('y1', y(k - 1) - CHIP / 2).attr('y2', y(k) + CHIP / 2);
        // The heads of the last token in this block, reading back from the row below (a switched-off head's weights
        // are multiplied by 0, so it draws nothing).
        const curves = g.append('g').attr('class', 'reads');
        layers[k - 1].forEach((row, h) => {
          row.forEach((w, j) => {
            if (w < SHOWN_WEIGHT) return;
            const [x0, y0, x1, y1] = [x(T - 1), y(k) + CHIP / 2, x(j), y(k - 1) - CHIP / 2];
            curves.append('path')
              .attr('class', 'read')
              .attr('d', `M${x0},${y0} C${x0},${(y0 + y1) / 2} ${x1},${(y0 + y1) / 2} ${x1},${y1}`)
              .attr('stroke', headColor((k - 1) * layers[k - 1].length + h))
              .attr('stroke-width', 1 + 7 * w)
              .attr('data-weight', w)
              .append('title').text(`${headName(k - 1, h)}: ${quote(pieces[T - 1])} reads ${quote(pieces[j])} with weight ${w.toFixed(3)}`);
          });
        });
      }
      const chips = g.append('g').selectAll('g').data(d3.range(T)).join('g').attr('class', (j) => `chip${j === T - 1 ? ' last' : ''}`)
        .attr('transform', (j) => `translate(${x(j)}, ${y(k)})`);
      chips.append('rect').attr('x', -Math.min(36, x.step() / 2 - 2)).attr('y', -CHIP / 2).attr('width', 2 * Math.min(36, x.step() / 2 - 2))
        .attr('height', CHIP).attr('rx', 4);
      // The token each column carries; above the embeddings it is that token's vector, mixed with what it read.
      chips.append('text').attr('class', k === 0 ? 'token' : 'token carried').attr('text-anchor', 'middle').attr('dy', '0.35em')
        .text((j) => clip(shown(pieces[j]).trim() || '␣', x.step()));
    }
    // The next-token bars, to the right of the top row, reached from the last token.
    const top = svg.append('g').attr('class', stageClass(L + 1)).attr('data-stage', L + 1);
    const bx = narrow ? Math.max(0, Math.min(x(T - 1) - 60, width - BARS)) : left + tokensWidth + 12;
    const by = narrow ? 30 : y(L) - 60;
    top.append('path').attr('class', 'to-bars').attr('d', narrow
      ? `M${x(T - 1)},${y(L) - CHIP / 2} L${x(T - 1)},${by + next.slice(0, 5).length * 24}`
      : `M${x(T - 1) + 20},${y(L)} L${bx - 4},${y(L)}`);
    top.append('text').attr('class', 'stage-name').attr('x', bx).attr('y', by - 8).text('next token');
    const bw = d3.scaleLinear().domain([0, 1]).range([0, BARS - 90]);
    const bars = top.append('g').selectAll('g').data(next.slice(0, 5)).join('g').attr('class', 'next-bar')
      .attr('transform', (_, i) => `translate(${bx}, ${by + i * 24})`);
    bars.append('text').attr('class', 'bar-label').attr('x', 52).attr('y', 10).attr('text-anchor', 'end').text((t) => clip(shown(t.piece).trim() || '␣', 110));
    bars.append('rect').attr('x', 56).attr('width', (t) => Math.max(1, bw(t.p))).attr('height', 14);
    bars.append('text').attr('class', 'bar-value').attr('x', (t) => 60 + bw(t.p)).attr('y', 11).text((t) => `${(100 * t.p).toFixed(1)}%`);
    picture.replaceChildren(svg.node(), headLegend(layers));
    figure.querySelector(':scope > details.figure-export')?.remove();
    exportMenu(figure, svg.node(), null, 'your text through the model');
  }

  return {
    update(next) {
      data = next;
      steps.update();
    },
  };
}

/** The curves' key: one swatch per head, in the colour it wears in every view of the chapter (head-view.js). */
function headLegend(layers) {
  const list = document.createElement('ul');
  list.className = 'head-legend';
  list.setAttribute('aria-label', 'Heads');
  layers.forEach((heads, l) => heads.forEach((_, h) => {
    const item = document.createElement('li');
    const swatch = document.createElement('span');
    swatch.className = 'swatch';
    swatch.setAttribute('aria-hidden', 'true');
    swatch.style.background = headColor(l * heads.length + h);
    item.append(swatch, headName(l, h));
    list.append(item);
  }));
  return list;
}

/** A label cut to what fits in `room` pixels of 11 px text. */
function clip(text, room) {
  const fits = Math.max(2, Math.floor((room - 8) / 6.5));
  return text.length <= fits ? text : `${text.slice(0, fits - 1)}…`;
}
