// Node, as an ES module: notebook 000's attention weights, then the model the
// package ships choosing a verb that agrees with a subject seven words back.
import { createAttention } from 'attention-step-by-step';

const attn = await createAttention();

// "Your journey starts with one step", three numbers per word (notebook 000).
const inputs = attn.tensor([[0.43, 0.15, 0.89], [0.55, 0.87, 0.66], [0.57, 0.85, 0.64],
                            [0.22, 0.58, 0.33], [0.77, 0.25, 0.10], [0.05, 0.80, 0.55]]);
const weights = attn.softmax(attn.attentionScoresForQuery(inputs, 1)); // how "journey" attends
console.log(attn.format(weights));

const { model, tokenizer } = await attn.loadDefaultModel();
const prompt = tokenizer.encode('The cats, which slept near the dog,');
const ids = model.generate([prompt], { maxNewTokens: 1, temperature: 0 });
console.log(JSON.stringify(tokenizer.decode(Array.from(ids.data).slice(prompt.length))));
model.dispose();
