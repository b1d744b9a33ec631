// Chapter 4: notebook 004's scaling experiment with the library's softmax and
// scaled dot-product attention.
import { bars } from '../components/bars.js';
import { chapter } from '../components/chapter.js';
import { controls } from '../components/controls.js';
import { kinds, linkState } from '../components/link-state.js';
import { perFrame, report } from '../components/page.js';
import { pytorchPanel } from '../components/pytorch-panel.js';
import { chapter4 } from './pytorch.js';
import { CHAPTER_4 as SETTINGS } from './settings.js';

const std = (xs) => {
  const m = xs.reduce((a, b) => a + b, 0) / xs.length;
  return Math.sqrt(xs.reduce((a, b) => a + (b - m) ** 2, 0) / xs.length);
};

const SWEEP_MS = 4000;

/**
 * The chapter's idea moving: the factor slider swept from its left end to its right, so that the bars turn into a
 * step while the reader watches. Smooth, or in six jumps when the reader asked for reduced motion; a second press
 * (or touching the slider) stops it where it is.
 */
function sweep(slider, button, done) {
  let frame = null;
  const label = button.textContent;
  const stop = () => {
    cancelAnimationFrame(frame);
    clearTimeout(frame);
    frame = null;
    button.textContent = label;
    done();
  };
  const set = (v) => {
    slider.value = String(v);
    slider.dispatchEvent(new Event('input', { bubbles: true }));
  };
  button.addEventListener('click', () => {
    if (frame !== null) return stop();
    const [lo, hi] = [Number(slider.min), Number(slider.max)];
    button.textContent = 'Stop';
    if (window.matchMedia('(prefers-reduced-motion: reduce)').matches) {
      let k = 0;
      const jump = () => {
        set(lo + ((hi - lo) * k) / 5);
        frame = ++k > 5 ? (stop(), null) : setTimeout(jump, 700);
      };
      jump();
      return;
    }
    const start = performance.now();
    const tick = (now) => {
      const t = Math.min(1, (now - start) / SWEEP_MS);
      set((lo + (hi - lo) * t).toFixed(2));
      if (t < 1) frame = requestAnimationFrame(tick);
      else stop();
    };
    frame = requestAnimationFrame(tick);
  });
  slider.addEventListener('pointerdown', () => frame !== null && stop());
}

chapter(async (attn) => {
  const fig = (id) => document.querySelector(`[data-figure="${id}"]`);
  const $ = (sel) => document.querySelector(sel);
  const labels = Array.from({ length: 8 }, (_, i) => `k${i + 1}`);
  attn.manualSeed(4);
  const scores = attn.randn(8); // notebook 004: np.random.randn(8)
  const gentle = attn.softmax(scores).data;
  const pytorch = pytorchPanel($('[data-pytorch]'));
  const settings = controls(SETTINGS);

  const draw = perFrame(() => {
    try {
      const factor = 10 ** Number($('#factor').value);
      $('#factor-value').textContent = factor.toPrecision(3);
      $('#factor').setAttribute('aria-valuetext', `× ${factor.toPrecision(3)}`); // the factor, not the exponent
      const scaled = { data: scores.data.map((s) => s * factor), shape: [8] };
      const w = attn.softmax(scaled).data;
      // The scores at × 1 drawn behind, on one axis: multiplied bars are seen to grow (or shrink).
      bars(fig('raw-scores'), scaled.data, { title: `scores × ${factor.toPrecision(3)}`, labels, digits: factor >= 10 ? 0 : 1,
        ghost: scores.data, ghostLabel: 'scores × 1' });
      bars(fig('scaled-softmax'), w, { title: 'softmax', labels, domain: [0, 1], digits: 2, ghost: gentle, ghostLabel: 'softmax at × 1' });
      $('#factor-readout').textContent = `Largest weight ${Math.max(...w).toFixed(3)} (at × 1: ${Math.max(...gentle).toFixed(3)}).`;
      // The softmax's own derivative, ∂p_i/∂ω_i = p_i (1 − p_i): what a gradient through it is multiplied by.
      const slope = (p) => Array.from(p, (pi) => pi * (1 - pi));
      const [now, before] = [slope(w), slope(gentle)];
      bars(fig('softmax-gradient'), now, { title: '∂p_i / ∂ω_i = p_i (1 − p_i)', labels, domain: [0, 0.25], digits: 3,
        ghost: before, ghostLabel: 'at × 1' });
      $('#gradient-readout').textContent = `Largest ∂p_i/∂ω_i ${Math.max(...now).toExponential(2)} ` +
        `(at × 1: ${Math.max(...before).toFixed(3)}; the most it can be is 0.25).`;

      const dk = 2 ** Number($('#dk').value);
      $('#dk-value').textContent = String(dk);
      $('#dk').setAttribute('aria-valuetext', String(dk)); // d_k, not the power of two the slider holds
      attn.manualSeed(7);
      const q = attn.randn(1, dk);
      const k = attn.randn(8, dk);
      const v = attn.randn(8, 1);
      const plain = attn.scaledDotProductAttention(q, k, v, { scale: 1 });
      const scaledAttn = attn.scaledDotProductAttention(q, k, v);
      bars(fig('unscaled-weights'), plain.weights.data, { title: 'softmax(q · k)', labels, domain: [0, 1], digits: 2 });
      bars(fig('scaled-weights'), scaledAttn.weights.data, { title: `softmax(q · k / √${dk})`, labels, domain: [0, 1], digits: 2 });
      $('#dk-readout').textContent =
        `Scores' standard deviation ${std(Array.from(plain.scores.data)).toFixed(2)} (√d_k = ${Math.sqrt(dk).toFixed(2)}); ` +
        `after scaling ${std(Array.from(scaledAttn.scaledScores.data)).toFixed(2)}. Largest weight ` +
        `${Math.max(...plain.weights.data).toFixed(3)} unscaled, ${Math.max(...scaledAttn.weights.data).toFixed(3)} scaled.`;
      pytorch.update(chapter4({ factor, dk }));
      report(null);
    } catch (error) {
      report(error);
    }
  });
  for (const name of Object.keys(SETTINGS)) settings.element(name).addEventListener('input', draw);
  sweep($('#factor'), $('#sweep'), () => link.record());
  // The sliders move in powers of ten (the factor) and of two (d_k); the link names the exponent and d_k itself.
  const link = linkState({
    log10_factor: settings.fields.log10_factor,
    d_k: {
      ...kinds.oneOf(Array.from({ length: SETTINGS.d_k_exponent.max + 1 }, (_, k) => String(2 ** k))),
      default: String(2 ** SETTINGS.d_k_exponent.default),
      get: () => String(2 ** Number($('#dk').value)),
      set: (dk) => ($('#dk').value = String(Math.log2(Number(dk)))),
    },
  }, { restore: draw });
  await link.ready;
  draw();
  await new Promise(requestAnimationFrame);
});
