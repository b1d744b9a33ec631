// Word completion from a model's vocabulary, under a text field: as the reader types a word, the words the model
// knows that start with it appear as buttons (Tab reaches them; a click or Enter puts the word in), so that a
// word-level model is never fed a word it cannot read by accident. Nothing shows for a character-level model,
// which reads every character of its corpus.
const MOST = 8;

/** words(): the vocabulary's words now (or null when completion does not apply, e.g. characters). */
export function wordComplete(input, words) {
  const box = document.createElement('div');
  box.className = 'word-complete';
  box.setAttribute('role', 'group');
  box.hidden = true;
  (input.closest('.field') ?? input).after(box);

  const partial = () => /[\p{L}\p{N}']*$/u.exec(input.value.slice(0, input.selectionEnd ?? input.value.length))[0];
  function update() {
    const known = words();
    const typed = partial();
    if (!known || !typed) {
      box.hidden = true;
      return;
    }
    const lower = typed.toLowerCase();
    const matches = [...new Set(known.map((w) => w.trim()))]
      .filter((w) => w.toLowerCase().startsWith(lower) && w !== typed)
      .sort((a, b) => a.length - b.length || a.localeCompare(b))
      .slice(0, MOST);
    box.hidden = matches.length === 0;
    box.setAttribute('aria-label', `Words this model knows that start with “${typed}”`);
    box.replaceChildren(...matches.map((w) => {
      const b = document.createElement('button');
      b.type = 'button';
      b.className = 'completion';
      b.textContent = w;
      b.addEventListener('click', () => {
        const end = input.selectionEnd ?? input.value.length;
        const start = end - partial().length;
        input.value = input.value.slice(0, start) + w + input.value.slice(end);
        input.setSelectionRange(start + w.length, start + w.length);
        input.focus();
        input.dispatchEvent(new Event('input', { bubbles: true }));
      });
      return b;
    }));
  }
  input.addEventListener('input', update);
  input.addEventListener('keydown', (e) => {
    if (e.key === 'Escape') box.hidden = true;
  });
  return { update };
}
