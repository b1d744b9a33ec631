// A text the model's tokenizer refused, said to a reader: which word or character it does not know, and the known
// pieces nearest it. Chapter 8's prompt for generation and its attention probe both use it.

/** Levenshtein distance, for suggesting the known words nearest a word the model cannot read. */
function editDistance(a, b) {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) row[j] = Math.min(previous[j] + 1, row[j - 1] + 1, previous[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    previous = row;
  }
  return previous[b.length];
}

/**
 * One plain sentence for a text the tokenizer refused (its Error names the piece: "word ' dog' at position 1 is not
 * in the vocabulary of 168 words"), with the three known pieces nearest it; null for any other error.
 */
export function unknownWordSentence(error, vocabulary) {
  const found = /(word|character) '([^]*)' (?:\([^)]*\) )?at position \d+ is not in the vocabulary of (\d+)/.exec(error.message);
  if (!found) return null;
  const [, unit, piece, size] = found;
  const plain = piece.trim() || piece;
  // A word carries the space before it, so the first word of a text is a piece of its own: "the" there is not
  // " the", which the model knows. The nearest it knew was then “the”, the very word refused.
  if (unit === 'word' && piece === plain && vocabulary.includes(` ${plain}`)) {
    const capital = plain[0].toUpperCase() + plain.slice(1);
    return `This model knows “${plain}” only after a space: each word carries the space before it, and the first ` +
      `word of a text has none, so the model must have seen it there. ` +
      (vocabulary.includes(capital) ? `Begin with “${capital}”, as its sentences do.` : 'Begin with a word its sentences begin with.');
  }
  const word = /[\p{L}\p{N}]/u.test(plain);
  const nearest = [...vocabulary]
    .filter((known) => !word || /[\p{L}\p{N}]/u.test(known)) // a word's neighbours are words, not marks or spaces
    .map((known) => ({ known, d: editDistance(plain.toLowerCase(), known.trim().toLowerCase()) }))
    .sort((a, b) => a.d - b.d || a.known.localeCompare(b.known))
    .slice(0, 3)
    .map(({ known }) => `“${known.trim() || known}”`);
  return `This model does not know the ${unit} “${plain}”: it reads only the ${size} ${unit}s and marks of its corpus ` +
    `(listed under “What this model can read” above). Nearest it knows: ${nearest.join(', ')}.`;
}

