// "Generate": the active model continues the reader's prompt, streamed a token
// at a time (GPT.stream), with the settings of chapters/settings.js's GENERATION;
// and, above it, sampling made visible: the next word's probabilities as the
// model gives them and as the temperature and top-k leave them
// (attn.samplingDistribution, what generate() draws from), the word drawn marked.
import { bars } from '../../components/bars.js';
import { markStale, showProblem } from '../../components/inputs.js';
import { perFrame, report } from '../../components/page.js';
import { unknownWordSentence } from './unknown-word.js';

const SHOWN = 10; // the likeliest next words drawn as bars

const $ = (sel) => document.querySelector(sel);
const nextTurn = () => new Promise((resolve) => setTimeout(resolve, 0));

/** The prompt as the model's ids (its last blockSize − 1), or null with the problem said beside the field. */
function promptIds(model, tokenizer, prompt) {
  try {
    const ids = tokenizer.encode(prompt).slice(-(model.config.blockSize - 1));
    showProblem($('#prompt'), ids.length === 0 ? 'Type a prompt first.' : '');
    return ids.length ? ids : null;
  } catch (error) {
    // A word the model does not know, said as a sentence; it showed the tokenizer's own message.
    showProblem($('#prompt'), unknownWordSentence(error, tokenizer.pieces) ?? error.message);
    return null;
  }
}

/** settings: controls() of GENERATION. */
export function generation(state, settings) {
  let stop = false;
  let shown = []; // the token ids of the sampling figure's bars, likeliest first

  const drawSampling = perFrame(() => {
    const { model, tokenizer } = state.current();
    const figure = $('[data-figure="sampling"]');
    const temperature = settings.read('temperature');
    const topK = settings.read('top_k', { max: model.config.vocabSize });
    const ids = promptIds(model, tokenizer, settings.read('prompt'));
    const ok = ids !== null && temperature !== null && topK !== null;
    markStale([figure, $('#sampling-drawn')], !ok);
    if (!ok) return;
    const { logits } = model.forward([ids]);
    const V = model.config.vocabSize;
    const last = { data: logits.data.subarray((ids.length - 1) * V, ids.length * V), shape: [V] };
    const own = state.attn.samplingDistribution(last).data;
    const after = state.attn.samplingDistribution(last, { temperature, topK }).data;
    shown = Array.from(own.keys()).sort((a, b) => own[b] - own[a]).slice(0, SHOWN);
    bars(figure, shown.map((id) => after[id]), {
      title: `The next token, temperature ${temperature}, top-k ${topK === 0 ? 'all' : topK}: the bars are what Generate ` +
        'draws from; the outlines, the model\'s own probabilities (temperature 1, every token)',
      labels: shown.map((id) => tokenizer.pieces[id].trim() || '␣'),
      domain: [0, Math.max(...shown.map((id) => Math.max(own[id], after[id])))], // the axis reaches the tallest bar
      digits: 3,
      ghost: shown.map((id) => own[id]),
      ghostLabel: 'temperature 1, every token',
    });
    figure.dataset.temperature = String(temperature);
    $('#sampling-drawn').textContent = '';
  });
  for (const name of ['prompt', 'temperature', 'top_k']) settings.element(name).addEventListener('input', drawSampling);
  state.on('model', drawSampling);
  drawSampling();

  /** The first token Generate drew, marked among the bars (or said to be outside them). */
  function markDrawn(id, piece) {
    const k = shown.indexOf(id);
    for (const bar of document.querySelectorAll('[data-figure="sampling"] g.bar.drawn')) bar.classList.remove('drawn');
    document.querySelector(`[data-figure="sampling"] g.bar[data-index="${k}"]`)?.classList.add('drawn');
    $('#sampling-drawn').dataset.drawn = String(id);
    $('#sampling-drawn').textContent = `Drawn: “${piece.trim() || piece}”${k < 0 ? ` (not among the ${SHOWN} shown)` : ''}.`;
  }

  $('#generate').addEventListener('click', async () => {
    const { model, tokenizer } = state.current();
    const out = $('#generated');
    const temperature = settings.read('temperature');
    const topK = settings.read('top_k', { max: model.config.vocabSize });
    const maxNewTokens = settings.read('max_new_tokens');
    const ids = promptIds(model, tokenizer, settings.read('prompt'));
    if (ids === null || temperature === null || topK === null || maxNewTokens === null) return;
    out.textContent = tokenizer.decode(ids);
    out.dataset.state = 'streaming';
    stop = false;
    $('#generate').disabled = true;
    $('#stop-generate').disabled = false;
    try {
      let first = true;
      for (const [id] of model.stream(ids, { maxNewTokens, temperature, topK })) {
        out.textContent += tokenizer.decode([id]);
        if (first) markDrawn(id, tokenizer.pieces[id]);
        first = false;
        if (stop) break;
        await nextTurn();
      }
    } catch (error) {
      report(error);
    } finally {
      out.dataset.state = 'done';
      $('#generate').disabled = false;
      $('#stop-generate').disabled = true;
    }
  });
  $('#stop-generate').addEventListener('click', () => {
    stop = true;
  });
}
