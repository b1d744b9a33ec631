// A figure's one menu, shown while the figure is pointed at or focused (style.css): a link to this figure, and
// downloads: the picture as SVG
// (self-contained: every style it is drawn with is written on its elements, so
// the file looks the same anywhere) and as PNG at twice its size, and its
// numbers as JSON and CSV. The drawing components (heatmap, bars, head view,
// scatter, line chart) add the menu; a page never has to. A figure drawn on a
// canvas hands in its own SVG (the same drawing, painted as SVG elements).

import { copyButton } from './copy-button.js';

const SVG_NS = 'http://www.w3.org/2000/svg';
// What the site's style sheet sets on SVG elements, copied onto each element of an exported SVG.
const STYLE_PROPERTIES = ['fill', 'fill-opacity', 'stroke', 'stroke-width', 'stroke-opacity', 'stroke-dasharray',
  'opacity', 'font-family', 'font-size', 'font-weight', 'font-style', 'text-anchor', 'dominant-baseline', 'text-decoration',
  'visibility']; // a file shows what the page shows: numbers on demand stay hidden unless the reader shows them

/** The SVG element as a file: computed styles inline, the page's background behind it. */
function selfContainedSvg(svg) {
  const clone = svg.cloneNode(true);
  const from = [svg, ...svg.querySelectorAll('*')];
  const to = [clone, ...clone.querySelectorAll('*')];
  from.forEach((el, k) => {
    const style = getComputedStyle(el);
    to[k].setAttribute('style', STYLE_PROPERTIES.map((p) => `${p}:${style.getPropertyValue(p)}`).join(';'));
    for (const attr of ['tabindex', 'role', 'aria-pressed']) to[k].removeAttribute(attr);
  });
  clone.setAttribute('xmlns', SVG_NS);
  const background = document.createElementNS(SVG_NS, 'rect');
  background.setAttribute('width', '100%');
  background.setAttribute('height', '100%');
  background.setAttribute('fill', getComputedStyle(document.documentElement).backgroundColor);
  clone.insertBefore(background, clone.firstChild);
  return `<?xml version="1.0" encoding="UTF-8"?>\n${new XMLSerializer().serializeToString(clone)}\n`;
}

/** A picture (an SVG's text or a canvas) as PNG at `scale` times its size. */
async function png(source, width, height, scale = 2) {
  const canvas = document.createElement('canvas');
  canvas.width = Math.round(width * scale);
  canvas.height = Math.round(height * scale);
  const ctx = canvas.getContext('2d');
  if (source instanceof HTMLCanvasElement) {
    // The page's background behind the drawing, as a self-contained SVG has it.
    ctx.fillStyle = getComputedStyle(document.documentElement).backgroundColor;
    ctx.fillRect(0, 0, canvas.width, canvas.height);
    ctx.imageSmoothingEnabled = false; // the map's cells stay sharp squares
    ctx.drawImage(source, 0, 0, canvas.width, canvas.height);
  } else {
    const url = URL.createObjectURL(new Blob([source], { type: 'image/svg+xml' }));
    try {
      const image = new Image();
      image.src = url;
      await image.decode();
      ctx.drawImage(image, 0, 0, canvas.width, canvas.height);
    } finally {
      URL.revokeObjectURL(url);
    }
  }
  return new Promise((resolve) => canvas.toBlob(resolve, 'image/png'));
}

// JSON has no Infinity or NaN: they are written as the strings "-Infinity", "Infinity", "NaN". A missing value
// (null: a step without an evaluation on the loss chart) stays null in JSON and is empty in CSV.
const jsonNumber = (v) => (v === null || Number.isFinite(v) ? v : String(v));
const csvNumber = (v) => (v === null ? '' : String(v));
const csvField = (s) => (/[",\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s);

/**
 * numbers: {title, rowLabels, colLabels, values (rows · cols), rows, cols}; a bar chart is one row. A figure of
 * several matrices (the pipeline) gives a list of them: a JSON array, and CSV tables one after another, each
 * under its title. Returns the JSON and CSV texts.
 */
function numbersAsFiles(numbers) {
  if (Array.isArray(numbers)) {
    const files = numbers.map(numbersAsFiles);
    return {
      json: `[\n${files.map((f) => f.json.trim()).join(',\n')}\n]\n`,
      csv: numbers.map((n, k) => `${csvField(n.title)}\r\n${files[k].csv}`).join('\r\n'),
    };
  }
  const { title, rowLabels, colLabels, values, rows, cols } = numbers;
  const row = (i) => Array.from(values.slice(i * cols, (i + 1) * cols));
  const rowName = (i) => rowLabels?.[i] ?? String(i);
  const colName = (j) => colLabels?.[j] ?? String(j);
  const json = JSON.stringify({
    title,
    rows: Array.from({ length: rows }, (_, i) => rowName(i)),
    columns: Array.from({ length: cols }, (_, j) => colName(j)),
    values: Array.from({ length: rows }, (_, i) => row(i).map(jsonNumber)),
  }, null, 1);
  const lines = [['', ...Array.from({ length: cols }, (_, j) => colName(j))].map(csvField).join(',')];
  for (let i = 0; i < rows; i++) lines.push([csvField(rowName(i)), ...row(i).map(csvNumber)].join(','));
  return { json: `${json}\n`, csv: `${lines.join('\r\n')}\r\n` };
}

function save(blob, filename) {
  const a = document.createElement('a');
  a.href = URL.createObjectURL(blob);
  a.download = filename;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(a.href), 1000);
}

const slug = (s) => s.toLowerCase().normalize('NFKD').replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '').slice(0, 60) || 'figure';

/**
 * Adds the download menu to `container` for its picture (an <svg> or <canvas>) and, when given,
 * its numbers ({title, rowLabels, colLabels, values, rows, cols}). A canvas has an SVG download
 * when `svg` gives the text of its SVG file.
 */
export function exportMenu(container, picture, numbers, title, { svg } = {}) {
  const name = slug(title ?? container.dataset.figure ?? 'figure');
  const menu = document.createElement('details');
  menu.className = 'figure-export';
  const summary = document.createElement('summary');
  summary.textContent = 'Link and download';
  menu.append(summary);
  // The link: this view's address (its settings, link-state.js) and the figure's id, which the page scrolls to.
  const figure = container.closest('[data-figure]') ?? container;
  figure.id ||= `figure-${slug(figure.dataset.figure ?? name)}`;
  const { button: linkButton, status } = copyButton({
    label: 'Copy link to this figure',
    text: () => `${location.href.split('#')[0]}#${figure.id}`,
    copied: () => 'Link copied.',
    refused: (href) => `Copy it from here: ${href}`,
  });
  linkButton.dataset.format = 'link';
  menu.append(linkButton, status);
  const formats = [];
  const isSvg = picture instanceof SVGSVGElement;
  const svgText = isSvg ? () => selfContainedSvg(picture) : svg;
  if (svgText) formats.push(['SVG', () => new Blob([svgText()], { type: 'image/svg+xml' }), 'svg']);
  formats.push(['PNG (2×)', () => (isSvg
    ? png(selfContainedSvg(picture), picture.width.baseVal.value, picture.height.baseVal.value)
    : png(picture, picture.width, picture.height)), 'png']);
  if (numbers) {
    formats.push(['JSON', () => new Blob([numbersAsFiles(numbers).json], { type: 'application/json' }), 'json']);
    formats.push(['CSV', () => new Blob([numbersAsFiles(numbers).csv], { type: 'text/csv' }), 'csv']);
  }
  for (const [label, make, extension] of formats) {
    const button = document.createElement('button');
    button.type = 'button';
    button.textContent = label;
    button.dataset.format = extension;
    button.addEventListener('click', async () => save(await make(), `${name}.${extension}`));
    menu.append(button);
  }
  container.append(menu);
}
