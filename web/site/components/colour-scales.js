// The site's colours for numbers, stated once (docs/site.md is the written form):
//   attention weights   viridis on 0 to 1, the same on every page (a weight means the same everywhere);
//   everything signed   (scores, projections, embeddings, outputs, weight matrices) a diverging scale centred
//                       on 0 and symmetric, blue below, red above, white at 0: the sign reads at a glance, and a
//                       matrix whose values all lie near one number looks flat, not like a strong pattern;
//   masked cells        one hatching, drawn by the heatmap with the theme's subdued colours (style.css).
// Figures that show matrices of one kind side by side pass them one domain (sharedDomain).
import * as d3 from 'd3';

/** Attention weights share one colour scale on every page. */
export const WEIGHTS_DOMAIN = [0, 1];

const isWeights = (domain) => domain?.[0] === WEIGHTS_DOMAIN[0] && domain?.[1] === WEIGHTS_DOMAIN[1];

/**
 * The colour of a value, and the domain its legend shows. `domain` is [lo, hi] (WEIGHTS_DOMAIN for weights);
 * without it, the finite `values` set it.
 * @returns {{ color: (v: number) => string, domain: [number, number], diverging: boolean }}
 */
export function colourScale(domain, values = []) {
  if (isWeights(domain)) return { color: d3.scaleSequential(d3.interpolateViridis).domain(WEIGHTS_DOMAIN), domain: WEIGHTS_DOMAIN, diverging: false };
  const [lo, hi] = domain ?? [d3.min(values) ?? 0, d3.max(values) ?? 0];
  const reach = Math.max(Math.abs(lo), Math.abs(hi)) || 1;
  // RdBu runs red to blue; reversed, negatives are blue and positives red.
  const color = d3.scaleDiverging((t) => d3.interpolateRdBu(1 - t)).domain([-reach, 0, reach]);
  return { color, domain: [-reach, reach], diverging: true };
}

/** One domain for matrices of one kind drawn side by side: [lo, hi] over all their finite values. */
export function sharedDomain(...tensors) {
  let lo = Infinity;
  let hi = -Infinity;
  for (const t of tensors) {
    for (const v of t.data) {
      if (!Number.isFinite(v)) continue;
      if (v < lo) lo = v;
      if (v > hi) hi = v;
    }
  }
  return lo <= hi ? [lo, hi] : [0, 0];
}
