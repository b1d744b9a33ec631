// Writes cpp/src/unicode_classes.cpp: the code point ranges of the three classes GPT-2's pre-tokenizer pattern
// uses (\p{L}, \p{N}, \s) and every code point's general category (what a tokenizer.json's own pattern may ask
// for, \p{Lu} or \p{M}), read from this Node's own regular expressions, so the C++ tokenizers split text as
// JavaScript's `u` regexes do (js-tiktoken and @huggingface/tokenizers run their patterns as ones).
// Run: node tools/make_unicode_classes.mjs
import { writeFileSync } from 'node:fs';

const classes = { letter: /^\p{L}$/u, number: /^\p{N}$/u, space: /^\s$/u, whiteSpace: /^\p{White_Space}$/u };
const ranges = Object.fromEntries(Object.keys(classes).map((name) => [name, []]));
for (let cp = 0; cp <= 0x10ffff; cp++) {
  if (cp >= 0xd800 && cp <= 0xdfff) continue;  // surrogates never reach C++ (text crosses as UTF-8)
  const ch = String.fromCodePoint(cp);
  for (const [name, re] of Object.entries(classes)) {
    if (!re.test(ch)) continue;
    const list = ranges[name];
    const last = list[list.length - 1];
    if (last && last[1] === cp - 1) last[1] = cp;
    else list.push([cp, cp]);
  }
}
// The general categories, in the order of unicode::Category; Cn (unassigned) is what no other one matches.
const CATEGORIES = ['Lu', 'Ll', 'Lt', 'Lm', 'Lo', 'Mn', 'Mc', 'Me', 'Nd', 'Nl', 'No', 'Pc', 'Pd', 'Ps', 'Pe', 'Pi', 'Pf', 'Po',
  'Sm', 'Sc', 'Sk', 'So', 'Zs', 'Zl', 'Zp', 'Cc', 'Cf', 'Cs', 'Co', 'Cn'];
const tests = CATEGORIES.slice(0, -1).map((c) => new RegExp(`^\\p{gc=${c}}$`, 'u'));
const categories = []; // [first, last, index]
for (let cp = 0; cp <= 0x10ffff; cp++) {
  const ch = String.fromCodePoint(cp);
  let index = cp >= 0xd800 && cp <= 0xdfff ? CATEGORIES.indexOf('Cs') : tests.findIndex((re) => re.test(ch));
  if (index < 0) index = CATEGORIES.length - 1;
  const last = categories[categories.length - 1];
  if (last && last[2] === index && last[1] === cp - 1) last[1] = cp;
  else categories.push([cp, cp, index]);
}

// Canonical normalization (NFC, which Qwen's tokenizer.json files ask for), from this Node's String.normalize:
// - the canonical decomposition of every code point that has one (Hangul syllables aside: they are algorithmic);
// - the combining classes, as ranks: a mark X has a non-zero class iff it moves past U+0345 (class 240) or U+0334
//   (class 1) in NFD, and X sorts before Y iff NFD("a" + Y + X) puts X first; equal classes share a rank, and only
//   the order of classes matters to normalization;
// - the primary composites: the code points NFC keeps whose NFD differs, each as the pair it composes from (the
//   NFC of its decomposition but the last mark, and that mark).
const nfd = (x) => x.normalize('NFD');
const hangul = (cp) => cp >= 0xac00 && cp <= 0xd7a3;
const decompositions = [];
const marks = [];
const composites = [];
for (let cp = 0; cp <= 0x10ffff; cp++) {
  if ((cp >= 0xd800 && cp <= 0xdfff) || hangul(cp)) continue;
  const ch = String.fromCodePoint(cp);
  const d = nfd(ch);
  if (d === ch) {
    const before = `a\u0345${ch}`, after = `a${ch}\u0334`;
    if (nfd(before) !== before || nfd(after) !== after) marks.push(ch);
    continue;
  }
  decompositions.push([cp, Array.from(d, (x) => x.codePointAt(0))]);
  if (ch.normalize('NFC') !== ch) continue;
  const parts = Array.from(d);
  const first = parts.slice(0, -1).join('').normalize('NFC');
  if (Array.from(first).length !== 1 || (first + parts[parts.length - 1]).normalize('NFC') !== ch) {
    throw new Error(`U+${cp.toString(16)} does not compose from a pair`);
  }
  composites.push([first.codePointAt(0), parts[parts.length - 1].codePointAt(0), cp]);
}
const before = (x, y) => nfd(`a${y}${x}`) === `a${x}${y}` && `a${y}${x}` !== `a${x}${y}`; // x's class < y's
marks.sort((x, y) => (before(x, y) ? -1 : before(y, x) ? 1 : 0));
const ranks = [];
let rank = 0;
for (let i = 0; i < marks.length; i++) {
  if (i === 0 || before(marks[i - 1], marks[i])) rank++;
  ranks.push([marks[i].codePointAt(0), rank]);
}
ranks.sort((a, b) => a[0] - b[0]);
composites.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
const hex = (x) => `0x${x.toString(16).toUpperCase()}`;
const rows = (list, per, cell) => Array.from({ length: Math.ceil(list.length / per) }, (_, k) => '   ' + list.slice(per * k, per * k + per).map(cell).join('')).join('\n');
let offset = 0;
const decompositionData = [];
const decompositionIndex = decompositions.map(([cp, seq]) => {
  const entry = [cp, offset, seq.length];
  decompositionData.push(...seq);
  offset += seq.length;
  return entry;
});

const table = (name) =>
  `const Range k${name[0].toUpperCase()}${name.slice(1)}[] = {\n` +
  // eight ranges a line: the tables are data, read by a binary search, not by people line by line
  Array.from({ length: Math.ceil(ranges[name].length / 8) }, (_, k) => '   ' + ranges[name].slice(8 * k, 8 * k + 8)
    .map(([a, b]) => ` {0x${a.toString(16).toUpperCase()}, 0x${b.toString(16).toUpperCase()}},`).join('')).join('\n') +
  '\n};\n';
const out = `// Generated by tools/make_unicode_classes.mjs from Node ${process.versions.node} (Unicode ${process.versions.unicode});
// do not edit. Code point ranges of \\p{L}, \\p{N}, \\s and \\p{White_Space} as JavaScript's \`u\` regexes define them,
// and every code point's general category.
#include "unicode_classes.hpp"

#include <algorithm>
#include <cstddef>
#include <iterator>
#include <utility>

namespace attn::unicode {
namespace {
struct Range {
    char32_t first, last;
};

${table('letter')}
${table('number')}
${table('space')}
${table('whiteSpace')}
struct CategoryRange {
    char32_t first, last;
    Category category;
};
const CategoryRange kCategoryRanges[] = {
${Array.from({ length: Math.ceil(categories.length / 6) }, (_, k) => '   ' + categories.slice(6 * k, 6 * k + 6)
    .map(([a, b, c]) => ` {0x${a.toString(16).toUpperCase()}, 0x${b.toString(16).toUpperCase()}, ${CATEGORIES[c]}},`).join('')).join('\n')}
};

// Canonical decompositions: code point, first index in kDecompositionData, length.
struct Decomposition {
    char32_t code_point;
    unsigned short first;
    unsigned char length;
};
const Decomposition kDecompositions[] = {
${rows(decompositionIndex, 6, ([cp, first, n]) => ` {${hex(cp)}, ${first}, ${n}},`)}
};
const char32_t kDecompositionData[] = {
${rows(decompositionData, 10, (x) => ` ${hex(x)},`)}
};
// Combining classes as ranks (0: a starter).
struct ClassRank {
    char32_t code_point;
    unsigned char rank;
};
const ClassRank kClassRanks[] = {
${rows(ranks, 8, ([cp, r]) => ` {${hex(cp)}, ${r}},`)}
};
// Primary composites: first, second, composite, sorted by (first, second).
struct Composition {
    char32_t first, second, composite;
};
const Composition kCompositions[] = {
${rows(composites, 5, ([a, b, c]) => ` {${hex(a)}, ${hex(b)}, ${hex(c)}},`)}
};

template <size_t N>
bool in(const Range (&ranges)[N], char32_t c) {
    const Range* r = std::upper_bound(std::begin(ranges), std::end(ranges), c, [](char32_t x, const Range& g) { return x < g.first; });
    return r != std::begin(ranges) && c <= std::prev(r)->last;
}
}  // namespace

const char* const kVersion = "${process.versions.unicode}";
bool is_letter(char32_t c) { return in(kLetter, c); }
bool is_number(char32_t c) { return in(kNumber, c); }
bool is_space(char32_t c) { return in(kSpace, c); }
bool is_white_space(char32_t c) { return in(kWhiteSpace, c); }
std::u32string_view decomposition(char32_t c) {
    const Decomposition* d = std::lower_bound(std::begin(kDecompositions), std::end(kDecompositions), c,
                                              [](const Decomposition& x, char32_t v) { return x.code_point < v; });
    if (d == std::end(kDecompositions) || d->code_point != c) return {};
    return {kDecompositionData + d->first, d->length};
}
int combining_rank(char32_t c) {
    const ClassRank* r = std::lower_bound(std::begin(kClassRanks), std::end(kClassRanks), c,
                                          [](const ClassRank& x, char32_t v) { return x.code_point < v; });
    return r != std::end(kClassRanks) && r->code_point == c ? r->rank : 0;
}
char32_t compose(char32_t first, char32_t second) {
    const Composition* p = std::lower_bound(std::begin(kCompositions), std::end(kCompositions), std::make_pair(first, second),
                                            [](const Composition& x, const std::pair<char32_t, char32_t>& v) {
                                                return x.first < v.first || (x.first == v.first && x.second < v.second);
                                            });
    return p != std::end(kCompositions) && p->first == first && p->second == second ? p->composite : 0;
}

Category category(char32_t c) {
    if (c > 0x10FFFF) return Cn;
    const CategoryRange* r = std::upper_bound(std::begin(kCategoryRanges), std::end(kCategoryRanges), c,
                                              [](char32_t x, const CategoryRange& g) { return x < g.first; });
    return std::prev(r)->category;
}

}  // namespace attn::unicode
`;
writeFileSync(new URL('../cpp/src/unicode_classes.cpp', import.meta.url), out);
console.log(Object.entries(ranges).map(([n, r]) => `${n}: ${r.length} ranges`).join(', ') + `, categories: ${categories.length} ranges, ` +
  `${decompositions.length} decompositions, ${ranks.length} marks in ${rank} classes, ${composites.length} composites`);
