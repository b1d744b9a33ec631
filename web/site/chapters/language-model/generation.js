// "Generate": the active model continues the reader's prompt, streamed a token
// at a time (GPT.stream), with the settings of chapters/settings.js's GENERATION.
import { showProblem } from '../../components/inputs.js';
import { report } from '../../components/page.js';
import { unknownWordSentence } from './unknown-word.js';

const $ = (sel) => document.querySelector(sel);
const nextTurn = () => new Promise((resolve) => setTimeout(resolve, 0));

/** settings: controls() of GENERATION. */
export function generation(state, settings) {
  let stop = false;
  $('#generate').addEventListener('click', async () => {
    const { model, tokenizer } = state.current();
    const out = $('#generated');
    const temperature = settings.read('temperature');
    const topK = settings.read('top_k', { max: model.config.vocabSize });
    const maxNewTokens = settings.read('max_new_tokens');
    let ids = null;
    try {
      ids = tokenizer.encode(settings.read('prompt')).slice(-(model.config.blockSize - 1));
      showProblem($('#prompt'), ids.length === 0 ? 'Type a prompt first.' : '');
    } catch (error) {
      // A word the model does not know, said as a sentence; it showed the tokenizer's own message.
      showProblem($('#prompt'), unknownWordSentence(error, tokenizer.pieces) ?? error.message);
    }
    if (!ids?.length || temperature === null || topK === null || maxNewTokens === null) return;
    out.textContent = tokenizer.decode(ids);
    out.dataset.state = 'streaming';
    stop = false;
    $('#generate').disabled = true;
    $('#stop-generate').disabled = false;
    try {
      for (const [id] of model.stream(ids, { maxNewTokens, temperature, topK })) {
        out.textContent += tokenizer.decode([id]);
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
