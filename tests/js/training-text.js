// What the training tests (training.test.js, attn-train.test.js) train on: four agreement sentences, 300 lines.
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const TEXT = Array.from({ length: 300 }, (_, i) =>
  ['The cat, which sat on the mat, purrs.', 'The cats, which sat on the mats, purr.', 'The dog barks.', 'The dogs bark.'][i % 4],
).join('\n');
