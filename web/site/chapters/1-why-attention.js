// Chapter 1: the bottleneck and Bahdanau's fix. The reader scores the five
// encoder states for one decoder step; the library's softmax turns the scores
// into weights, drawn as the opacity of the diagram's attention lines.
import { bars } from '../components/bars.js';
import { chapter, perFrame, report } from '../components/page.js';

const WORDS = ['Your', 'journey', 'starts', 'with', 'one step'];

chapter(async (attn) => {
  const holder = document.querySelector('#bahdanau-scores');
  const inputs = WORDS.map((w, i) => {
    const label = document.createElement('label');
    label.textContent = `h${i + 1} (${w}) `;
    const input = document.createElement('input');
    input.type = 'number';
    input.step = '0.5';
    input.value = String([0.5, 2, 1, 0, -1][i]);
    label.appendChild(input);
    holder.appendChild(label);
    return input;
  });
  const draw = perFrame(() => {
    const scores = inputs.map((el) => el.valueAsNumber);
    inputs.forEach((el, i) => el.setAttribute('aria-invalid', String(!Number.isFinite(scores[i]))));
    if (!scores.every(Number.isFinite)) return;
    try {
      const weights = attn.softmax(scores).data;
      document.querySelectorAll('.attention-lines path').forEach((path) => {
        path.setAttribute('stroke-opacity', String(0.1 + 0.9 * weights[Number(path.dataset.state)]));
        path.setAttribute('stroke-width', String(1 + 5 * weights[Number(path.dataset.state)]));
      });
      bars(document.querySelector('[data-figure="bahdanau-weights"]'), weights, { title: 'α = softmax(scores)', labels: WORDS, domain: [0, 1] });
      report(null);
    } catch (error) {
      report(error);
    }
  });
  inputs.forEach((el) => el.addEventListener('input', draw));
  draw();
  await new Promise(requestAnimationFrame);
});
