import { createAttention } from 'attention-step-by-step';
import modelUrl from 'attention-step-by-step/model?url'; // the model, shipped because it is imported

// Listen at once and load in the background: a message that arrives while the
// module is loading waits for it instead of being lost.
const ready = (async () => {
  const attn = await createAttention();
  const { model, tokenizer } = await attn.loadDefaultModel({ url: modelUrl });
  return { attn, model, tokenizer };
})();

self.addEventListener('message', async ({ data }) => {
  try {
    const { attn, model, tokenizer } = await ready;
    const inputs = attn.tensor([[0.43, 0.15, 0.89], [0.55, 0.87, 0.66], [0.57, 0.85, 0.64],
                                [0.22, 0.58, 0.33], [0.77, 0.25, 0.10], [0.05, 0.80, 0.55]]);
    const weights = attn.format(attn.softmax(attn.attentionScoresForQuery(inputs, 1)));
    const prompt = tokenizer.encode(data.prompt);
    const ids = model.generate([prompt], { maxNewTokens: 1, temperature: 0 });
    self.postMessage({ weights, nextWord: tokenizer.decode(Array.from(ids.data).slice(prompt.length)) });
  } catch (e) {
    self.postMessage({ error: e.message }); // e.g. a word the model does not know
  }
});
