// Calls the API refuses at run time; types.test.js expects each to be a type error.
import { createAttention } from 'attention-step-by-step';

const attn = await createAttention();
attn.softmax(['1', '2']);
attn.softmax({ data: [1, 2] });
