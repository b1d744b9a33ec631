// The real models chapter 9 loads in one click from the Hugging Face Hub, stated once: their ids, parameters and
// what a first load downloads (config.json, the tokenizer's files and the weights as the Hub keeps them). The chapter,
// chapter 10 and their tests read them from here. Each fits the library's limit of 1.25 GiB of weights
// (docs/pretrained.md); the parameters are those the models' cards give.
export const HUB_MODELS = [
  { id: 'openai-community/gpt2', name: 'GPT-2 small', parameters: 124e6, download: 550e6,
    about: 'OpenAI, 2019: the model of chapter 8, larger (12 layers of 12 heads)' },
  { id: 'HuggingFaceTB/SmolLM2-135M-Instruct', name: 'SmolLM2-135M', parameters: 135e6, download: 270e6,
    about: 'Hugging Face, 2024: 30 layers, tuned to chat' },
  { id: 'HuggingFaceTB/SmolLM2-360M-Instruct', name: 'SmolLM2-360M', parameters: 362e6, download: 725e6,
    about: 'Hugging Face, 2024: 32 layers, tuned to chat' },
  { id: 'Qwen/Qwen2.5-0.5B-Instruct', name: 'Qwen2.5-0.5B', parameters: 494e6, download: 990e6,
    about: 'Alibaba, 2024: 24 layers, tuned to chat' },
  // google/gemma-3-270m-it asks every reader to accept its licence first; unsloth's copy holds the same files.
  { id: 'unsloth/gemma-3-270m-it', name: 'Gemma-3-270M', parameters: 268e6, download: 570e6,
    about: 'Google, 2025: 18 layers, most of them reading a window of 512 tokens; its tokenizer alone is 33 MB' },
];

/** A download's size as the page says it: "550 MB" (decimal megabytes, as downloads are counted). */
export const megabytes = (bytes) => `${bytes >= 10e6 ? Math.round(bytes / 1e6).toLocaleString('en') : (bytes / 1e6).toFixed(1)} MB`;

/** Parameters as the page says them: "124 M". */
export const millions = (count) => `${Math.round(count / 1e6).toLocaleString('en')} M`;

/**
 * Whether a cached model's entry (attn.cachedModels()) holds a whole model, not what a cancelled download left:
 * config.json, a tokenizer, and the weights (model.safetensors, or every shard its "-of-N" names count).
 */
export function keptWhole({ files }) {
  const has = (name) => files.includes(name);
  const tokenizer = has('tokenizer.json') || (has('vocab.json') && has('merges.txt'));
  const shards = files.map((f) => /^model-\d+-of-(\d+)\.safetensors$/.exec(f)).filter(Boolean);
  const weights = has('model.safetensors') || (shards.length > 0 && shards.length === Number(shards[0][1]));
  return has('config.json') && tokenizer && weights;
}
