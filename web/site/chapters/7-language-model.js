// Chapter 8: the tiny language model. The reader picks the active model (the
// shipped one, or one of theirs kept in this browser), generates from it, sees
// the attention of every layer and head on their text, measures what it
// learned in a worker, and trains new models in another worker. Every claim on
// the page about a head is computed from the active model.
//
// Its parts live in language-model/, one per section of the page, and share
// one small object (language-model/state.js); this file puts them together.
import { chapter } from '../components/chapter.js';
import { controls } from '../components/controls.js';
import { adoptLegacyModel } from '../components/model-store.js';
import shippedModelUrl from '../../lib/models/agreement.safetensors?url';
import { wordComplete } from '../components/word-complete.js';
import { attentionView } from './language-model/attention-view.js';
import { generation } from './language-model/generation.js';
import { headSwitches } from './language-model/heads.js';
import { chapterLink } from './language-model/link.js';
import { describeBytes, modelList } from './language-model/models.js';
import { probe } from './language-model/probe.js';
import { chapterState } from './language-model/state.js';
import { training } from './language-model/training.js';
import { GENERATION, INPUT, TRAINING } from './settings.js';

chapter(async (attn) => {
  const state = chapterState(attn, await attn.loadDefaultModel({ url: shippedModelUrl }));
  const settings = { input: controls(INPUT), generation: controls(GENERATION), training: controls(TRAINING) };
  // In the order a new model reaches them ('model'): its switches, its maps, its measurement, its curve.
  const heads = headSwitches(state);
  const view = attentionView(state);
  probe(state);
  const models = modelList(state);
  generation(state, settings.generation);
  training(state, settings.training, models);
  // The text and the prompt complete words from the active model's vocabulary (word-level models only).
  const vocabulary = () => (state.current().tokenizer.kind === 'word' ? state.current().tokenizer.pieces : null);
  for (const field of ['#probe', '#prompt']) wordComplete(document.querySelector(field), vocabulary);

  // Start: the saved models, then the link's model (without one, the model that was active at the last
  // visit) and the rest of its settings.
  await adoptLegacyModel((bytes) => describeBytes(attn, bytes)).catch(() => null);
  const last = await models.load();
  state.link = chapterLink(state, { models, heads, view }, settings, last);
  await state.link.ready;
  await new Promise(requestAnimationFrame);
});
