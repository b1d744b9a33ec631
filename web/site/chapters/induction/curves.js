// Chapter 11's two charts of a training run, for the shipped model's snapshots and for a live run alike: the
// loss on the first and the second copy of a repeat, and each head's score (layer 1's previous-token scores,
// layer 2's prefix-matching scores), by step. A curve is {x, first, second, previous: [per layer-1 head],
// prefix: [per layer-2 head]}; `mark` draws the step on display as a point of its own.
import { headColor } from '../../components/head-view.js';
import { lineChart } from '../../components/line-chart.js';

/** An empty curve for heads per layer. */
export const emptyCurve = (nHead) => ({ x: [], first: [], second: [], previous: Array.from({ length: nHead }, () => []),
  prefix: Array.from({ length: nHead }, () => []) });

/** Adds one measurement (attn.headScores' answer, for a 2-layer model) at `step`. */
export function addScores(curve, step, s) {
  const H = s.prefixMatching.shape[1];
  curve.x.push(step);
  curve.first.push(s.firstRepeatLoss);
  curve.second.push(s.secondRepeatLoss);
  for (let h = 0; h < H; h++) {
    curve.previous[h].push(s.previousToken.data[h]);
    curve.prefix[h].push(s.prefixMatching.data[H + h]);
  }
}

/**
 * Both charts of a curve. `step`: the step whose maps the page shows (the replay's slider), marked on both charts,
 * as is the phase change (phaseChange) once the curve has one.
 */
export function drawCurves(lossFigure, scoreFigure, curve, { what, empty, step = null }) {
  const phase = phaseChange(curve);
  const marks = [
    ...(phase === null ? [] : [{ x: phase, label: `phase change, step ${phase}`, kind: 'phase' }]),
    ...(step === null ? [] : [{ x: step, label: `shown: step ${step}`, kind: 'step' }]),
  ];
  lineChart(lossFigure, {
    marks,
    title: `Loss on the two copies of a repeat, ${what}`,
    x: curve.x,
    series: [{ label: 'first copy', values: curve.first, color: 'var(--values)', points: true },
      { label: 'second copy', values: curve.second, color: 'var(--accent)', points: true, emphasis: true }],
    xLabel: 'training step',
    yLabel: 'cross-entropy (nats)',
    description: `Loss chart, ${what}: x axis training step, y axis cross-entropy in nats; the first copy's loss and the second copy's`,
    empty,
  });
  const H = curve.prefix.length;
  lineChart(scoreFigure, {
    marks,
    title: `Each head's score, ${what}`,
    x: curve.x,
    series: [...curve.previous.map((values, h) => ({ label: `L1 h${h + 1} previous`, values, color: headColor(h), dash: true })),
      ...curve.prefix.map((values, h) => ({ label: `L2 h${h + 1} prefix`, values, color: headColor(H + h), points: true }))],
    xLabel: 'training step',
    yLabel: 'share of attention',
    yDomain: [0, 1],
    description: `Scores chart, ${what}: x axis training step, y axis share of attention; layer 1's previous-token scores dashed ` +
      "(L1 h1: layer 1, head 1), layer 2's prefix-matching scores",
    empty,
  });
}

/** The first step at which the second copy's loss fell below `below` nats, or null. */
export function phaseChange(curve, below = 2) {
  const k = curve.second.findIndex((v) => v < below);
  return k < 0 ? null : curve.x[k];
}
