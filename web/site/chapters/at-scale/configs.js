// The attention settings of six models' published config.json files (Hugging Face Hub, each at the address
// given), the keys the library reads a config by: the sizes, the key/value heads, the sliding windows. The KV-cache
// calculator of "Attention at scale" reads them with attn.kvCacheNumbers, as it reads a folder's own config.json.
const llama = (fields) => ({ model_type: 'llama', hidden_act: 'silu', tie_word_embeddings: true, ...fields });

export const MODELS = [
  {
    name: 'GPT-2 small', source: 'https://huggingface.co/openai-community/gpt2/blob/main/config.json',
    config: { model_type: 'gpt2', vocab_size: 50257, n_embd: 768, n_layer: 12, n_head: 12, n_positions: 1024, n_ctx: 1024 },
  },
  {
    name: 'SmolLM2-135M', source: 'https://huggingface.co/HuggingFaceTB/SmolLM2-135M/blob/main/config.json',
    config: llama({ vocab_size: 49152, hidden_size: 576, intermediate_size: 1536, num_hidden_layers: 30, num_attention_heads: 9,
      num_key_value_heads: 3, max_position_embeddings: 8192, rope_theta: 100000, rms_norm_eps: 1e-5 }),
  },
  {
    name: 'SmolLM2-360M', source: 'https://huggingface.co/HuggingFaceTB/SmolLM2-360M/blob/main/config.json',
    config: llama({ vocab_size: 49152, hidden_size: 960, intermediate_size: 2560, num_hidden_layers: 32, num_attention_heads: 15,
      num_key_value_heads: 5, max_position_embeddings: 8192, rope_theta: 100000, rms_norm_eps: 1e-5 }),
  },
  {
    name: 'Qwen2.5-0.5B', source: 'https://huggingface.co/Qwen/Qwen2.5-0.5B/blob/main/config.json',
    config: { model_type: 'qwen2', hidden_act: 'silu', vocab_size: 151936, hidden_size: 896, intermediate_size: 4864, num_hidden_layers: 24,
      num_attention_heads: 14, num_key_value_heads: 2, max_position_embeddings: 32768, rope_theta: 1000000, rms_norm_eps: 1e-6,
      sliding_window: 32768, use_sliding_window: false, tie_word_embeddings: true },
  },
  {
    name: 'Gemma-3-270M', source: 'https://huggingface.co/google/gemma-3-270m/blob/main/config.json',
    config: { model_type: 'gemma3_text', hidden_activation: 'gelu_pytorch_tanh', vocab_size: 262144, hidden_size: 640, intermediate_size: 2048,
      num_hidden_layers: 18, num_attention_heads: 4, num_key_value_heads: 1, head_dim: 256, max_position_embeddings: 32768,
      query_pre_attn_scalar: 256, rope_theta: 1000000, rope_local_base_freq: 10000, sliding_window: 512, rms_norm_eps: 1e-6,
      layer_types: Array.from({ length: 18 }, (_, l) => ((l + 1) % 6 === 0 ? 'full_attention' : 'sliding_attention')) },
  },
  {
    name: 'Llama-3.2-1B', source: 'https://huggingface.co/meta-llama/Llama-3.2-1B/blob/main/config.json',
    config: llama({ vocab_size: 128256, hidden_size: 2048, intermediate_size: 8192, num_hidden_layers: 16, num_attention_heads: 32,
      num_key_value_heads: 8, head_dim: 64, max_position_embeddings: 131072, rope_theta: 500000, rms_norm_eps: 1e-5,
      rope_scaling: { rope_type: 'llama3', factor: 32, low_freq_factor: 1, high_freq_factor: 4, original_max_position_embeddings: 8192 } }),
  },
];

/** The context lengths the calculator shows. */
export const LENGTHS = [1024, 8192, 32768];

/** A config's query heads and key/value heads (GPT-2 names them n_head; its keys and values have as many). */
export const headsOf = (c) => {
  const queries = c.num_attention_heads ?? c.n_head;
  return { queries, keyValues: c.num_key_value_heads ?? queries };
};
