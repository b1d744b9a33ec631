// A page's accessibility and contrast, measured on the page as it is drawn: axe-core finds nothing critical,
// serious or moderate, and every number on a heatmap cell and every other text of a figure has contrast ≥ 4.5.
// The views a reader opens are checked too: a traced number and the PyTorch script. site.test.js runs it on
// every page it loads at each width and theme, so each of those states is drawn once for both checks.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

import { heroCell, measured } from './harness.js';

const AXE = readFileSync(fileURLToPath(new URL('../../node_modules/axe-core/axe.min.js', import.meta.url)), 'utf8');

/** Opens what a reader opens on the page at `path` (it changes the page), then measures it; `label` names the view in failures. */
export async function assertAccessible(page, path, label) {
  if (path.endsWith('7-language-model')) await measured(page);
  if (['3-trainable-weights', '5-masking', '6-multi-head'].includes(path.split('/').pop())) {
    await page.click(heroCell('weights', 1, 0));
    await page.waitForSelector('[data-score-panel][data-score]');
    await page.mouse.move(0, 0); // the hero's cells as drawn, not faded around the one pointed at
  }
  if (await page.$('[data-pytorch] summary')) await page.click('[data-pytorch] summary');
  await page.evaluate(AXE);
  const violations = await page.evaluate(async () => (await window.axe.run(document, { resultTypes: ['violations'] })).violations
    .filter((v) => ['critical', 'serious', 'moderate'].includes(v.impact))
    .map((v) => `${v.impact} ${v.id}: ${v.nodes.slice(0, 3).map((n) => n.target.join(' ')).join(' | ')}`));
  assert.deepEqual(violations, [], label);
  const low = await page.evaluate(() => {
    const lum = (color) => {
      const [r, g, b] = color.match(/\d+(\.\d+)?/g).slice(0, 3).map(Number).map((c) => (c /= 255) <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4);
      return 0.2126 * r + 0.7152 * g + 0.0722 * b;
    };
    const contrast = (x, y) => {
      const [a, b] = [lum(x), lum(y)].sort((p, q) => q - p);
      return (a + 0.05) / (b + 0.05);
    };
    const out = [];
    for (const cell of document.querySelectorAll('svg.heatmap g.cell, svg.pipeline-svg g.cell')) {
      const text = cell.querySelector('text');
      if (!text) continue;
      const fill = cell.querySelector('rect').getAttribute('fill');
      if (fill.startsWith('url(')) continue; // hatched masked cells: black on light grey
      const ratio = contrast(getComputedStyle(cell.querySelector('rect')).fill, getComputedStyle(text).fill);
      if (ratio < 4.5) out.push(`${text.textContent}: ${ratio.toFixed(2)}`);
    }
    // Every other text of a figure (labels, axes, legends, values above bars) stands on the page.
    const page = getComputedStyle(document.documentElement).backgroundColor;
    for (const text of document.querySelectorAll('main svg text')) {
      if (text.closest('svg.heatmap g.cell, svg.pipeline-svg g.cell, .diagram g.box, .diagram .add') || !text.textContent.trim()) continue;
      const fill = getComputedStyle(text).fill;
      if (!fill.startsWith('rgb')) continue;
      const ratio = contrast(fill, page);
      if (ratio < 4.5) out.push(`“${text.textContent}” on the page: ${ratio.toFixed(2)}`);
    }
    return out;
  });
  assert.deepEqual(low, [], `${label}: low-contrast text in figures`);
}
