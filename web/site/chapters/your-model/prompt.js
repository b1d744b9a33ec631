// What chapter 9's model reads: the reader's plain text, or — when the model's tokenizer has a chat template — a
// conversation written as turns (system, user, assistant; added and removed), which the template turns into tokens
// with its special tokens (<|im_start|>, <start_of_turn>, …) as transformers' apply_chat_template does. The maps and
// Generate read the same ids: the template's rendering with the start of the assistant's turn when the last turn is
// not the assistant's (addGenerationPrompt), so the model's next token is its answer's first.
//
// The toy model's word tokenizer knows a small vocabulary: a word it never saw is read as the nearest it knows
// (language-model/unknown-word.js), and the page says which. A real model's tokenizer takes any text.
import { readAsKnown } from '../language-model/unknown-word.js';

const $ = (sel) => document.querySelector(sel);
const ROLES = ['system', 'user', 'assistant'];
/** The turns a chat starts with: the plain text as the user's question. */
const firstTurns = (text) => [{ role: 'user', content: text }];

/**
 * The text's controls (#text-form, #bring-text, #chat …). onChange() runs after every edit. Returns
 *   offer(info)   a model was loaded: turns are offered if its tokenizer has a chat template (else plain text)
 *   read(loaded)  the ids of what the reader wrote: { ids, replaced, cut, chat }, or { problem } for nothing to read
 *   mode()        'plain' or 'chat'
 */
export function promptInput(textArea, { onChange }) {
  let turns = firstTurns('');
  let chatOffered = false;
  const form = $('#text-form');
  const list = $('#chat-turns');

  const mode = () => (chatOffered && form.querySelector('input[value="chat"]').checked ? 'chat' : 'plain');

  function showMode() {
    const chat = mode() === 'chat';
    $('#chat').hidden = !chat;
    $('#plain-text').hidden = chat;
  }

  function drawTurns() {
    list.replaceChildren(...turns.map((turn, k) => {
      const item = document.createElement('li');
      item.className = 'chat-turn';
      const role = Object.assign(document.createElement('select'), { className: 'turn-role' });
      role.append(...ROLES.map((r) => new Option(r, r)));
      role.value = turn.role;
      role.addEventListener('change', () => {
        turns[k].role = role.value;
        onChange();
      });
      const content = Object.assign(document.createElement('textarea'), { rows: 2, cols: 50, value: turn.content, className: 'turn-text' });
      content.maxLength = textArea.maxLength;
      content.addEventListener('input', () => {
        turns[k].content = content.value;
        onChange();
      });
      const remove = Object.assign(document.createElement('button'), { type: 'button', textContent: 'Remove' });
      remove.setAttribute('aria-label', `Remove turn ${k + 1}`);
      remove.disabled = turns.length === 1;
      remove.addEventListener('click', () => {
        turns.splice(k, 1);
        drawTurns();
        list.querySelector('textarea')?.focus();
        onChange();
      });
      const field = (label, control, wide = false) => {
        const div = Object.assign(document.createElement('div'), { className: wide ? 'field wide' : 'field' });
        const l = document.createElement('label');
        l.append(`${label} `, control);
        div.append(l);
        return div;
      };
      const buttonField = Object.assign(document.createElement('div'), { className: 'field' });
      buttonField.append(remove);
      item.append(field(`Turn ${k + 1}`, role), field(`Turn ${k + 1}'s text`, content, true), buttonField);
      return item;
    }));
  }

  $('#add-turn').addEventListener('click', () => {
    // A conversation alternates: the turn after a user's is the assistant's, and the other way round.
    const last = turns.at(-1)?.role;
    turns.push({ role: last === 'user' ? 'assistant' : 'user', content: '' });
    drawTurns();
    list.querySelector('li:last-child textarea').focus();
    onChange();
  });
  for (const radio of form.querySelectorAll('input')) {
    radio.addEventListener('change', () => {
      // Chat turns start from the plain text, so that switching loses nothing the reader wrote.
      if (mode() === 'chat' && turns.every((t) => t.content === '')) turns = firstTurns(textArea.value);
      drawTurns();
      showMode();
      onChange();
    });
  }

  function offer(info) {
    chatOffered = info.hasChatTemplate;
    form.hidden = !chatOffered;
    if (!chatOffered) form.querySelector('input[value="plain"]').checked = true;
    drawTurns();
    showMode();
  }

  /** The ids of the text or the turns, cut to the model's last blockSize tokens. */
  async function read({ tokenizer, info }) {
    let ids;
    let replaced = [];
    const chat = mode() === 'chat';
    if (chat) {
      if (turns.every((t) => t.content.trim() === '')) return { problem: 'Write at least one turn: the maps need at least two tokens.' };
      const messages = turns.map(({ role, content }) => ({ role, content }));
      ids = await tokenizer.applyChatTemplate(messages, { addGenerationPrompt: messages.at(-1).role !== 'assistant' });
    } else {
      const text = textArea.value;
      if (text.trim() === '') return { problem: 'Type some text: the maps need at least two tokens.' };
      if (info.tokenizer === 'bpe') {
        ids = await tokenizer.encode(text);
      } else {
        // The toy's words: what it never saw is read as the nearest it knows; the rest is the tokenizer's own.
        ({ ids, replaced } = readAsKnown(text, { kind: info.tokenizer, pieces: info.pieces }));
        if (replaced.length === 0) ids = await tokenizer.encode(text);
      }
    }
    ids = Array.from(ids);
    const cut = Math.max(0, ids.length - info.blockSize);
    if (ids.length - cut < 2) return { problem: 'The maps need at least two tokens: write a little more.' };
    return { ids: ids.slice(cut), replaced: replaced.filter((r) => r.at >= cut).map((r) => ({ ...r, at: r.at - cut })), cut, chat };
  }

  return { offer, read, mode };
}
