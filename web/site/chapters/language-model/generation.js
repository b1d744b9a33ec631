// "Generate": the active model continues the reader's prompt, streamed a token
// at a time (GPT.stream), with the settings of chapters/settings.js's GENERATION;
// and, above it, sampling made visible: the next word's probabilities as the
// model gives them and as the temperature and top-k leave them
// (attn.samplingDistribution, what generate() draws from), the word drawn marked.
import { markStale, showProblem } from '../../components/inputs.js';
import { perFrame, report } from '../../components/page.js';
import { markDrawn, samplingBars } from '../../components/sampling-bars.js';
import { readNow, replacedSentence } from './unknown-word.js';

const SHOWN = 10; // the likeliest next words drawn as bars

const $ = (sel) => document.querySelector(sel);
const nextTurn = () => new Promise((resolve) => setTimeout(resolve, 0));

/**
 * The prompt as the model's ids (its last blockSize − 1), words it never saw read as the nearest it knows (said under
 * the field), or null with the problem said beside the field.
 */
function promptIds(model, tokenizer, prompt) {
  const { ids, replaced } = readNow(prompt, tokenizer);
  $('#prompt-replaced').textContent = replacedSentence(replaced, tokenizer.kind);
  showProblem($('#prompt'), ids.length === 0 ? 'Type a prompt first.' : '');
  return ids.length ? ids.slice(-(model.config.blockSize - 1)) : null;
}

/** settings: controls() of GENERATION. */
export function generation(state, settings) {
  let stop = false;
  let shown = null; // the sampling figure's candidates {ids, pieces, own, after}, likeliest first

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
    const top = Array.from(own.keys()).sort((a, b) => own[b] - own[a]).slice(0, SHOWN);
    shown = { ids: top, pieces: top.map((id) => tokenizer.pieces[id]), own: top.map((id) => own[id]), after: top.map((id) => after[id]) };
    samplingBars(figure, shown, { temperature, topK });
    $('#sampling-drawn').textContent = '';
  });
  for (const name of ['prompt', 'temperature', 'top_k']) settings.element(name).addEventListener('input', drawSampling);
  // The number of tokens is checked as it is typed, as the other fields are: its message goes once the value is right.
  settings.element('max_new_tokens').addEventListener('input', () => settings.read('max_new_tokens'));
  state.on('model', drawSampling);
  drawSampling();

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
        if (first) markDrawn($('[data-figure="sampling"]'), $('#sampling-drawn'), shown, id, tokenizer.pieces[id]);
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
