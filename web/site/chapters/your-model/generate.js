// Chapter 9's generation: the model continues what the reader wrote (the chat's next turn, with a chat template),
// streamed a token at a time from the package's worker (GPT.stream, each token a Promise; Stop aborts it), and
// above it, sampling made visible: the next token's probabilities as the model gives them and as the temperature,
// top-k and top-p leave them (attn.samplingDistribution, what generate draws from). The settings start from the
// model's own (its generation_config.json, model.generationConfig) unless the reader or a link set them; the model
// stops at its own stop tokens. A generation may run past the model's context: the library keeps its last
// blockSize tokens, as nanoGPT does.
import { markStale } from '../../components/inputs.js';
import { markDrawn, samplingBars } from '../../components/sampling-bars.js';
import { latestOnly, SKIPPED } from './latest.js';
import { computeFailure } from './sentences.js';

const $ = (sel) => document.querySelector(sel);
const SHOWN = 10;
/** The settings a model's generation_config.json gives: [setting here, the library's name, as the page says it]. */
const FROM_MODEL = [['temperature', 'temperature', 'temperature'], ['top_k', 'topK', 'top-k'], ['top_p', 'topP', 'top-p']];

/** settings: controls() of YOUR_MODEL; views: modelViews() (whose latest analysis holds the next token's logits). */
export function generation(session, views, settings) {
  const run = latestOnly();
  let sampled = null; // the sampling figure's candidates {ids, pieces, own, after}, likeliest first
  let stop = null; // the AbortController of the generation running
  const setByReader = new Set(); // settings the reader (or a link) chose: a model's own do not replace them

  const read = () => {
    const m = session.loaded()?.info;
    return { temperature: settings.read('temperature'), topK: settings.read('top_k', { max: m?.vocabSize }), topP: settings.read('top_p'),
      maxNewTokens: settings.read('max_new_tokens') };
  };

  async function drawSampling() {
    const { temperature, topK, topP } = read();
    const analysis = views.latest();
    const figure = $('[data-figure="your-sampling"]');
    const ok = analysis !== null && temperature !== null && topK !== null && topP !== null;
    markStale([figure], !ok);
    if (!ok) return;
    try {
      const answer = await run('sampling', async () => {
        const { remote } = session;
        const own = (await remote.samplingDistribution(analysis.nextLogits)).data;
        const after = (await remote.samplingDistribution(analysis.nextLogits, { temperature, topK, topP })).data;
        return { own, after };
      });
      if (answer === SKIPPED || views.latest() !== analysis) return;
      const ids = analysis.next.map((t) => t.id).slice(0, SHOWN);
      sampled = { ids, pieces: ids.map(session.pieceOf), own: ids.map((id) => answer.own[id]), after: ids.map((id) => answer.after[id]) };
      samplingBars(figure, sampled, { temperature, topK, topP });
    } catch (error) {
      $('#your-sampling-drawn').textContent = computeFailure(error);
    }
  }
  for (const name of ['temperature', 'top_k', 'top_p']) {
    settings.element(name).addEventListener('input', () => {
      setByReader.add(name);
      drawSampling();
    });
  }
  settings.element('max_new_tokens').addEventListener('input', () => setByReader.add('max_new_tokens'));

  /** A model was loaded: its own sampling settings fill those the reader has not chosen, and the figure says so. */
  function adopt(info) {
    const own = info.generation;
    const taken = [];
    for (const [name, key, said] of FROM_MODEL) {
      if (setByReader.has(name)) continue;
      settings.element(name).value = String(own[key]);
      taken.push(`${said} ${key === 'topK' && own[key] === 0 ? '0 (every token)' : own[key]}`);
    }
    $('#generation-defaults').textContent = taken.length
      ? `This model's own settings (its generation_config.json, or the library's where it has none): ${taken.join(', ')}.` : '';
  }

  $('#bring-generate').addEventListener('click', async () => {
    const loaded = session.loaded();
    const analysis = views.latest();
    const { temperature, topK, topP, maxNewTokens } = read();
    if (!loaded || !analysis || analysis.loaded !== loaded || [temperature, topK, topP, maxNewTokens].includes(null)) return;
    const out = $('#bring-generated');
    out.textContent = '';
    out.dataset.state = 'streaming';
    $('#bring-generate').disabled = true;
    $('#bring-stop').disabled = false;
    stop = new AbortController();
    const generated = [];
    try {
      const stream = loaded.model.stream([analysis.ids], {
        temperature, topK, topP, maxNewTokens, seed: Date.now() % 2 ** 31, signal: stop.signal,
      });
      for await (const [token] of stream) {
        if (generated.length === 0) markDrawn($('[data-figure="your-sampling"]'), $('#your-sampling-drawn'), sampled, token, session.pieceOf(token));
        generated.push(token);
        // Decoded as a whole, so that a character split over two tokens shows once it is complete.
        out.textContent = (await loaded.tokenizer.decode(generated)).replace(/\uFFFD+$/, '');
      }
    } catch (error) {
      if (error?.name !== 'AbortError') out.textContent += `\n[${computeFailure(error)}]`;
    } finally {
      stop = null;
      out.dataset.state = 'done';
      $('#bring-generate').disabled = false;
      $('#bring-stop').disabled = true;
    }
  });
  $('#bring-stop').addEventListener('click', () => stop?.abort());

  return { drawSampling, adopt, chosen: (name) => setByReader.add(name) };
}
