// Chapter 1 is prose and a diagram; it still loads the library so that every
// chapter proves the WASM module works where the reader is.
import { chapter } from '../components/page.js';

chapter(async () => {});
