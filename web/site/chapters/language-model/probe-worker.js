// Chapter 8's measurement, off the main thread: what a model learned on the
// agreement corpus (attn.probeAgreement) — the shipped model, or the reader's
// from its checkpoint bytes.
// In: {id, bytes: Uint8Array | null, sentences, headMask | null}. Out: {id, report} or {id, error}.
import { createAttention } from '../../../lib/index.js';
import shippedModelUrl from '../../../lib/models/agreement.safetensors?url';

const ready = createAttention();
let shipped = null;

onmessage = async ({ data: { id, bytes, sentences, headMask } }) => {
  let own = null;
  try {
    const attn = await ready;
    shipped ??= await attn.loadDefaultModel({ url: shippedModelUrl });
    if (bytes) own = attn.loadCheckpoint(bytes);
    const { model, tokenizer } = own ?? shipped;
    postMessage({ id, report: attn.probeAgreement(model, tokenizer, { sentences, headMask }) });
  } catch (error) {
    postMessage({ id, error: error.message });
  } finally {
    own?.model.dispose();
    own?.tokenizer.dispose();
  }
};
