// A learner's sentence is never refused for a word the toy model does not know. Its word (or character) tokenizer
// knows only the pieces of its corpus, and encode() throws on any other; here each piece it never saw is read as the
// known piece nearest it, and the learner is told which. Chapters 8 and 9 both read text through readAsKnown.
//
// The pieces are cut exactly as the library's tokenizer cuts them (for_each_piece in cpp/src/tokenizer.cpp, which
// tests/js/site-logic.test.js holds this copy to): a word is a run of letters and digits with the one space before
// it (" cats"), a space before a mark goes with the mark (" ,"), and anything else is a character of its own.

/** Levenshtein distance. */
export function editDistance(a, b) {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) row[j] = Math.min(previous[j] + 1, row[j - 1] + 1, previous[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    previous = row;
  }
  return previous[b.length];
}

const isSpace = (c) => c === ' ' || c === '\n' || c === '\t' || c === '\r' || c === '\v' || c === '\f';

/** is_word_char of cpp/src/tokenizer.cpp: letters and digits; outside ASCII, every character from U+00C0 but symbols. */
function isWordChar(c) {
  let code = c.codePointAt(0);
  if (code >= 0xd800 && code <= 0xdfff) code = 0xfffd; // a lone surrogate reaches the library as U+FFFD
  if (code < 0x80) return /[0-9A-Za-z]/.test(c);
  if (code < 0xc0 || code === 0xd7 || code === 0xf7) return false;
  return !(code >= 0x2000 && code <= 0x2bff) && !(code >= 0x3000 && code <= 0x303f);
}

/** The text's pieces as a word ('word') or character ('char') tokenizer cuts it. */
export function splitPieces(kind, text) {
  const chars = Array.from(text);
  if (kind === 'char') return chars;
  const pieces = [];
  for (let i = 0; i < chars.length;) {
    let piece = chars[i++];
    let c = piece;
    if (c === ' ' && i < chars.length && !isSpace(chars[i])) {
      c = chars[i++]; // the space belongs to the word (or mark) after it
      piece += c;
    }
    if (isWordChar(c)) while (i < chars.length && isWordChar(chars[i])) piece += chars[i++];
    pieces.push(piece);
  }
  return pieces;
}

const isWord = (piece) => Array.from(piece).some(isWordChar);
const bare = (piece) => (piece.length > 1 && piece[0] === ' ' ? piece.slice(1) : piece);

/**
 * The known piece nearest `piece`: of its own kind (a word for a word, a mark for a mark), the fewest letters
 * changed, then the fewest changed in case, then the same space before it (" The" reads as " the", not "The").
 */
export function nearestKnown(piece, known) {
  const word = isWord(piece);
  const own = bare(piece);
  let best = null;
  let bestCost = Infinity;
  for (const candidate of known) {
    if (isWord(candidate) !== word) continue;
    const other = bare(candidate);
    const cost = 4 * editDistance(own.toLowerCase(), other.toLowerCase()) + editDistance(own, other) +
      2 * Number((own !== piece) !== (other !== candidate));
    if (cost < bestCost) [best, bestCost] = [candidate, cost];
  }
  return best ?? known[0];
}

const positions = new WeakMap(); // pieces -> Map(piece -> id)
function idOf(pieces, piece) {
  if (!positions.has(pieces)) positions.set(pieces, new Map(pieces.map((p, id) => [p, id])));
  return positions.get(pieces).get(piece);
}

/**
 * The text as a word or character model reads it, each piece it never saw read as the nearest known one: { ids,
 * replaced: [{ at, from, to }] } (at: the token's index). A word tokenizer's ids are its sorted pieces' indices
 * (`pieces`, in id order). With nothing replaced, callers take the tokenizer's own encode(), which gives the same ids.
 */
export function readAsKnown(text, { kind, pieces }) {
  const replaced = [];
  const ids = splitPieces(kind, text).map((piece, at) => {
    const id = idOf(pieces, piece);
    if (id !== undefined) return id;
    const to = nearestKnown(piece, pieces);
    replaced.push({ at, from: piece, to });
    return idOf(pieces, to);
  });
  return { ids, replaced };
}

/**
 * A piece as chapter 8 quotes the model's pieces: with the space it carries (“ cats”), a newline as ↵, a lone space
 * as ␣. The space is part of what the model knows: it has seen “The” and “ the”, never “ The”.
 */
const quoted = (piece) => `“${piece.replace(/\n/g, '↵').replace(/^ $/, '␣')}”`;

const SHOWN = 8; // replacements named; the rest counted

/** What the learner is told of the replacements ('' for none): which words the model read as which. */
export function replacedSentence(replaced, kind = 'word') {
  if (replaced.length === 0) return '';
  const unit = kind === 'char' ? 'Characters' : 'Words';
  // Each replacement once, however often the text repeats the word.
  const pairs = [...new Set(replaced.map(({ from, to }) => `${quoted(from)} → ${quoted(to)}`))];
  const named = pairs.slice(0, SHOWN).join(', ');
  const more = pairs.length > SHOWN ? `, and ${pairs.length - SHOWN} more` : '';
  const spaces = kind === 'char' ? '' : ' (each word with the space before it)';
  return `${unit} this model never saw are read as the nearest it knows${spaces}: ${named}${more}.`;
}

/** readAsKnown for a tokenizer on this thread (chapter 8), its own encode() taking the text when nothing is replaced. */
export function readNow(text, tokenizer) {
  const read = readAsKnown(text, tokenizer);
  return read.replaced.length > 0 ? read : { ids: tokenizer.encode(text), replaced: [] };
}
