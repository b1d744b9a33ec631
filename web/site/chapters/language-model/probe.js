// What the active model learned, measured on 200 held-out agreement sentences
// in a worker (probe-worker.js, attn.probeAgreement) with the switched-off
// heads off: the agreement and, per head, how often it looks hardest at the
// subject. Measures again on 'model' and 'heads'; emits 'measured'.
import { bars } from '../../components/bars.js';
import { headMask, switchedOffText } from './heads.js';
import { percent } from './state.js';

const $ = (sel) => document.querySelector(sel);
/** Held-out sentences per measurement of the active model. */
export const SENTENCES = 200;

export function probe(state) {
  const worker = new Worker(new URL('./probe-worker.js', import.meta.url), { type: 'module' });
  let request = 0;

  function measure() {
    const summary = $('#probe-summary');
    summary.textContent = `Measuring on ${SENTENCES} held-out sentences…`;
    delete summary.dataset.best;
    delete summary.dataset.accuracy;
    worker.postMessage({ id: ++request, bytes: state.active ? state.active.bytes.slice() : null, sentences: SENTENCES, headMask: headMask(state) });
  }

  worker.onmessage = ({ data }) => {
    if (data.id !== request) return; // the model changed since; a newer answer is coming
    const summary = $('#probe-summary');
    const figure = $('[data-figure="subject-attention"]');
    if (data.error) {
      summary.textContent = `This model cannot be measured on the agreement corpus: ${data.error}`;
      figure.replaceChildren();
      state.probeReport = { error: data.error };
      state.emit('measured');
      return;
    }
    const r = (state.probeReport = data.report);
    const H = state.current().model.config.nHead;
    const without = state.switchedOff.size ? `With ${switchedOffText(state)} switched off, it` : 'It';
    summary.textContent = `${without} prefers the agreeing verb form in ${percent(r.accuracy)} of ${r.sentences} sentences; ` +
      `layer ${r.bestLayer + 1}, head ${r.bestHead + 1} looks hardest at the subject, in ${percent(r.bestSubjectAttention)} of them.`;
    summary.dataset.accuracy = String(r.accuracy);
    summary.dataset.best = String(r.bestSubjectAttention);
    summary.dataset.bestHead = `${r.bestLayer},${r.bestHead}`;
    bars(figure, r.subjectAttention, {
      title: 'Share of sentences where the head looks hardest at the subject',
      labels: Array.from(r.subjectAttention, (_, i) => `L${Math.floor(i / H) + 1} H${(i % H) + 1}`),
      digits: 2,
      domain: [0, 1],
    });
    state.emit('measured');
  };

  state.on('model', measure);
  state.on('heads', measure);
  return { measure };
}
