// Links that restore a figure. A chapter's state (what the reader typed,
// chose and clicked) lives in the page's query string: readable
// (?v=1&seed=5&d_out=3), versioned (v, LINK_VERSION) and read field by field
// through the chapter's schema, so that a copied link opens the same figures in
// any browser, and back and forward step through the reader's edits.
//
// A schema names each field with its kind (how its text is read and written,
// `kinds` below), its default, and how the page gets and sets it: `control`
// (a selector of an <input>/<select>, read and written as it is) or get/set.
// Only fields that differ from their default are written (`always` writes one
// every time). A field that cannot be read, a version this page does not know
// or a parameter it does not use leaves its default in place and a note on the
// page saying so; nothing of the URL is ever written into the page as markup.
//
// An edit is recorded in the frame after it happens, once the page has drawn
// it, at most every MIN_INTERVAL_MS (a dragged slider records as it goes, not
// 60 times a second, which browsers refuse); a burst of edits to the same
// fields is one history entry: typing a number is one step back, not one per key.
// While a write is due, <html> has data-link-pending: the address says what the
// page shows once it is gone (the tests wait for that instead of a quiet spell).

import { copyButton } from './copy-button.js';

const LINK_VERSION = 1;
const MIN_INTERVAL_MS = 250;
const SAME_EDIT_MS = 2000; // edits of the same fields this close together share one history entry
const MAX_SHOWN = 40; // characters of a refused value quoted in a note

const clip = (text) => (text.length > MAX_SHOWN ? `${text.slice(0, MAX_SHOWN)}…` : text);

/** The shortest decimal that reads back as the same float32 (0.9, not 0.8999999761581421). */
export function float32Text(v) {
  const f = Math.fround(v);
  for (let digits = 1; digits <= 9; digits++) { // 9 significant digits always tell float32s apart
    const text = String(Number(f.toPrecision(digits)));
    if (Math.fround(Number(text)) === f) return text;
  }
  return String(f);
}

/** A finite number of a field's text, or an Error naming what was expected. */
function finite(text, what) {
  const v = text.trim() === '' ? NaN : Number(text);
  if (!Number.isFinite(v)) throw new Error(`must be ${what}`);
  return v;
}
const range = (v, min, max) => {
  if (v < min || v > max) throw new Error(`must be from ${min} to ${max}`);
  return v;
};

/** A list of 1-based index tuples ("2.4,1.1") as 0-based arrays, each position below its maximum. */
function indexTuples(text, { size, max, count }) {
  if (text === '') return [];
  const tuples = text.split(',');
  if (tuples.length > count) throw new Error(`must name at most ${count}`);
  return tuples.map((tuple) => {
    const parts = tuple.split('.');
    if (parts.length !== size) throw new Error(`must be ${size} whole numbers joined by dots, like ${Array(size).fill(1).join('.')}`);
    return parts.map((part, k) => {
      const n = finite(part, 'whole numbers');
      if (!Number.isInteger(n) || n < 1 || n > max[k]) throw new Error(`has positions from 1 to ${max[k]}`);
      return n - 1;
    });
  });
}
const tuplesText = (tuples) => tuples.map((t) => t.map((n) => n + 1).join('.')).join(',');

/** How a field's value is read from (parse, throwing an Error that ends "… must be …") and written to (format) its text. */
export const kinds = {
  integer: ({ min, max }) => ({
    parse: (text) => {
      const v = finite(text, 'a whole number');
      if (!Number.isInteger(v)) throw new Error('must be a whole number');
      return range(v, min, max);
    },
    format: String,
  }),
  number: ({ min = -Number.MAX_VALUE, max = Number.MAX_VALUE } = {}) => ({
    parse: (text) => range(finite(text, 'a number'), min, max),
    format: String,
  }),
  boolean: () => ({
    parse: (text) => {
      if (text === '1' || text === '0') return text === '1';
      throw new Error('must be 1 or 0');
    },
    format: (v) => (v ? '1' : '0'),
  }),
  oneOf: (values) => ({
    parse: (text) => {
      if (!values.includes(text)) throw new Error(`must be one of ${values.join(', ')}`);
      return text;
    },
    format: String,
  }),
  /** A choice among names, kept as its index (a token of the running example, by its word). */
  named: (names) => ({
    parse: (text) => {
      const i = names.indexOf(text);
      if (i < 0) throw new Error(`must be one of ${names.join(', ')}`);
      return i;
    },
    format: (i) => names[i],
  }),
  text: ({ maxLength }) => ({
    parse: (text) => {
      if (text.length > maxLength) throw new Error(`must be at most ${maxLength} characters long (it has ${text.length})`);
      return text;
    },
    format: String,
  }),
  /** `count` float32 numbers, comma-separated (a matrix, row by row). */
  float32s: ({ count }) => ({
    parse: (text) => {
      const parts = text.split(',');
      if (parts.length !== count) throw new Error(`must be ${count} numbers separated by commas (it has ${parts.length})`);
      return Float32Array.from(parts, (part) => {
        const v = finite(part, `${count} numbers separated by commas`);
        if (!Number.isFinite(Math.fround(v))) throw new Error('must hold numbers that fit a float32');
        return v;
      });
    },
    format: (values) => Array.from(values, float32Text).join(','),
  }),
  /** A list of 1-based index tuples written "2.4,1.1", kept 0-based; `max` is each position's largest. */
  tuples: ({ size, max, count = 1000 }) => ({
    parse: (text) => indexTuples(text, { size, max, count }),
    format: tuplesText,
  }),
  /** One 1-based index tuple ("2.9.3"), kept 0-based; null (no tuple) is written as nothing. */
  tuple: ({ size, max }) => ({
    parse: (text) => {
      const tuples = indexTuples(text, { size, max, count: 1 });
      return tuples[0] ?? null;
    },
    format: (tuple) => (tuple ? tuplesText([tuple]) : ''),
  }),
};

/** A value of a query string as readable as it can be: spaces as +, commas, dots and colons as they are. */
const encode = (text) => encodeURIComponent(text).replace(/%20/g, '+').replace(/%2C/gi, ',').replace(/%3A/gi, ':');

/** Reads a field's value from its control (undefined while the control holds something the field refuses). */
function controlGetter(control, kind) {
  return () => {
    if (control.type === 'checkbox') return control.checked;
    try {
      return kind.parse(control.value);
    } catch {
      return undefined;
    }
  };
}

function controlSetter(control, kind) {
  return (value) => {
    if (control.type === 'checkbox') control.checked = value;
    else control.value = kind.format(value);
  };
}

/**
 * The chapter's state in its link. schema: {name: {...kind, default, control?, get?, set?, always?, formerly?}}, in
 * the order the fields are set when a link is opened (set may be async). `formerly` lists a renamed field's old
 * names, still read from links made before (until 0.2, CHANGELOG); the address is rewritten with the new name. restore(): redraws after the fields were
 * set from a link (on opening it, and on back and forward). Returns {ready, record, note}:
 *   ready: a promise, settled once the link's fields are set (await it before drawing);
 *   record(): the page's state changed other than through an input event (a click on a figure does too);
 *   note(text): adds a sentence to the note about this link (a field the page found invalid once set).
 */
export function linkState(schema, { restore }) {
  const names = Object.keys(schema);
  const fields = Object.fromEntries(names.map((name) => {
    const spec = schema[name];
    const control = spec.control ? document.querySelector(spec.control) : null;
    return [name, {
      ...spec,
      get: spec.get ?? controlGetter(control, spec),
      set: spec.set ?? controlSetter(control, spec),
    }];
  }));
  const text = (name, value) => fields[name].format(value);

  const bar = linkBar();
  const notes = [];
  const note = (sentence) => {
    notes.push(sentence);
    bar.showNotes(notes);
  };

  /** The fields a query string sets (defaults for the rest), and what could not be read. */
  function read(search) {
    const params = new URLSearchParams(search);
    const values = Object.fromEntries(names.map((name) => [name, fields[name].default]));
    const problems = [];
    const version = params.get('v');
    if (version !== null && version !== String(LINK_VERSION)) {
      problems.push(`This link was made for version “${clip(version)}” of this site's links; this page reads version ${LINK_VERSION}, so it starts from its defaults.`);
      return { values, problems };
    }
    for (const name of names) {
      const given = [name, ...(fields[name].formerly ?? [])].flatMap((key) => params.getAll(key));
      if (given.length === 0) continue;
      const fallback = text(name, values[name]);
      const instead = fallback === '' ? 'it is left out' : fallback.length > MAX_SHOWN ? 'its default is used' : `“${fallback}” is used`;
      if (given.length > 1) {
        problems.push(`“${name}” is given ${given.length} times, so ${instead}.`);
        continue;
      }
      try {
        values[name] = fields[name].parse(given[0]);
      } catch (error) {
        problems.push(`“${name}” ${error.message}; the link has “${clip(given[0])}”, so ${instead}.`);
      }
    }
    const known = new Set(['v', ...names, ...names.flatMap((name) => fields[name].formerly ?? [])]);
    const unknown = [...new Set(params.keys())].filter((key) => !known.has(key));
    if (unknown.length) problems.push(`This page has no ${unknown.length === 1 ? 'setting' : 'settings'} ${unknown.slice(0, 5).map((k) => `“${clip(k)}”`).join(', ')}${unknown.length > 5 ? ', …' : ''}: ignored.`);
    return { values, problems };
  }

  /** The query string of a state: the version and every field that differs from its default. */
  function queryOf(values) {
    const parts = names
      .filter((name) => fields[name].always || text(name, values[name]) !== text(name, fields[name].default))
      .map((name) => `${name}=${encode(text(name, values[name]))}`);
    return parts.length ? `?v=${LINK_VERSION}&${parts.join('&')}` : '';
  }

  async function apply(values) {
    for (const name of names) await fields[name].set(values[name], note);
  }

  /** The page's state now, or null while a field holds something it refuses (its figures are stale then). */
  function current() {
    const values = {};
    for (const name of names) {
      values[name] = fields[name].get();
      if (values[name] === undefined) return null;
    }
    return values;
  }

  let last = { changed: '', at: -Infinity }; // the fields the latest history entry changed, and when
  let nextFrame = false; // a write is due in the next frame
  let later = null; // a write is due once MIN_INTERVAL_MS have passed since the last
  let applying = true; // while a link's fields are being set, the page's state is not the reader's edit
  const pending = (due) => document.documentElement.toggleAttribute('data-link-pending', due);
  pending(true);
  function write(options) {
    clearTimeout(later);
    later = null;
    writeNow(options);
    pending(nextFrame);
  }
  function writeNow({ replace = false } = {}) {
    if (applying) return;
    const values = current();
    if (!values) return;
    const search = queryOf(values);
    if (search === location.search) return;
    const before = read(location.search).values;
    const changed = names.filter((name) => text(name, values[name]) !== text(name, before[name])).join(',');
    const now = performance.now();
    const same = changed === last.changed && now - last.at < SAME_EDIT_MS;
    history[replace || same ? 'replaceState' : 'pushState'](null, '', `${location.pathname}${search}${location.hash}`);
    last = { changed, at: now };
  }
  const record = () => {
    if (nextFrame || later) return; // the write to come reads the state as it will be
    nextFrame = true;
    pending(true);
    requestAnimationFrame(() => {
      nextFrame = false;
      // A task of its own, not this frame's: history's pushState takes milliseconds the redraw needs.
      later = setTimeout(write, Math.max(0, last.at + MIN_INTERVAL_MS - performance.now()));
    });
  };
  for (const type of ['input', 'change', 'click']) document.addEventListener(type, record);
  addEventListener('pagehide', () => write());
  bar.onCopy(() => {
    write();
    return location.href;
  });

  const opened = read(location.search);
  if (opened.problems.length) {
    notes.push(...opened.problems);
    bar.showNotes(notes);
  }
  const ready = apply(opened.values).finally(() => {
    applying = false;
    // The address now says what the page shows: refused fields and unknown settings are gone from it.
    requestAnimationFrame(() => write({ replace: true }));
  });

  addEventListener('popstate', async () => {
    clearTimeout(later);
    later = null;
    pending(true);
    applying = true;
    try {
      await apply(read(location.search).values);
    } finally {
      applying = false;
    }
    last = { changed: '', at: -Infinity };
    restore();
    // What could not be restored (a model deleted since) is corrected in place, never as a new step.
    requestAnimationFrame(() => write({ replace: true }));
  });

  return { ready, record, note };
}

/**
 * The "Copy link" button and the note about an opened link, under the chapter's title.
 * onCopy(fn): fn() gives the link to copy.
 */
function linkBar() {
  const bar = document.createElement('div');
  bar.className = 'link-bar controls';
  const fallback = document.createElement('input');
  fallback.type = 'text';
  fallback.readOnly = true;
  fallback.hidden = true;
  fallback.setAttribute('aria-label', 'Link to this view');
  let link = () => location.href;
  const { button, status } = copyButton({
    label: 'Copy link to this view',
    text: () => link(),
    copied: () => {
      fallback.hidden = true;
      return 'Link copied: it opens this page with these settings and figures.';
    },
    refused: (href) => {
      fallback.value = href;
      fallback.hidden = false;
      fallback.select();
      return 'This browser did not allow copying; the link is selected here:';
    },
  });
  button.id = 'copy-link';
  bar.append(button, status, fallback);
  const note = document.createElement('div');
  note.className = 'link-note';
  note.setAttribute('role', 'status');
  note.hidden = true;
  const heading = document.querySelector('main h1');
  heading.after(bar, note);

  return {
    onCopy(fn) {
      link = fn;
    },
    showNotes(sentences) {
      const text = document.createElement('p');
      text.textContent = `Part of this link could not be used. ${sentences.join(' ')}`;
      const dismiss = document.createElement('button');
      dismiss.type = 'button';
      dismiss.textContent = 'Dismiss';
      dismiss.addEventListener('click', () => {
        note.hidden = true;
      });
      note.replaceChildren(text, dismiss);
      note.hidden = false;
    },
  };
}
