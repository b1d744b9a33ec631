// Entry point of the tutorial site: load the WASM library once, hand it to
// each chapter.
import { createAttention } from '../lib/index.js';
import { journeyChapter } from './chapters/journey.js';

const attn = await createAttention();
journeyChapter(document.querySelector('#journey'), attn);
document.body.dataset.ready = 'true';
