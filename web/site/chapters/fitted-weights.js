// The weights chapters 3 and 6 open on: fitted by tools/fit_site_weights.py
// (its docstring has the recipe) so that what a query looks for, and that heads
// look for different things, shows at first sight. The notebooks' seeded
// weights stay one switch away (settings.js, `weights`).
import fitted from './fitted-weights.json';

/** Chapter 3: the word of its phrase each word was fitted to attend to (notebook 000's six tokens). */
export const PHRASE_PARTNERS = { Your: 'journey', journey: 'Your', starts: 'journey', with: 'step', one: 'step', step: 'one' };

/** Chapter 3: SelfAttentionV1's W_query and W_key (3, d_out) for d_out from 1 to 8, as nested arrays. */
export const chapter3Weights = (dOut) => fitted.chapter3[String(dOut)];

/** Chapter 6: what each of the four heads was fitted to attend to, in head order. */
export const HEAD_JOBS = ['the previous word', 'the first word', 'the word itself', 'the next word'];

/**
 * Chapter 6: the position embedding (16, 12) and MultiHeadAttention(12, 4)'s state dict (W_q.weight …
 * W_o.weight, each (12, 12) as nn.Linear stores it; W_v and W_o are the identity).
 */
export const chapter6Weights = () => fitted.chapter6;
