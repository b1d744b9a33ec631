// A chapter's controls, each stated once. A settings table (chapters/settings.js:
// plain data, no DOM, so that a worker can import the same defaults) names every
// setting with its kind, limits and default, and the element it lives in;
// controls() binds it to the page: the <input>/<select> get their limits and starting value from
// it, the link state (link-state.js) gets its fields from it, and the chapter
// reads a checked value through it. The HTML states none of these.
//
// A setting: { control: '#id', label, kind, default, ... } with kind
//   'integer' | 'number'  min, max (either may be left out), step (the input's step),
//                         slider: true for an <input type=range>
// and linked: false for a setting the chapter writes into its link in another form.
//   'choice'              choices: [value, ...] or [[value, label], ...]
//   'text'                maxLength
//   'boolean'             a checkbox
import { readNumber } from './inputs.js';
import { kinds } from './link-state.js';

const choiceValues = (setting) => setting.choices.map((c) => (Array.isArray(c) ? c[0] : c));

/** The link-state kind of a setting (how its text is read and written in a link). */
function linkKind(setting) {
  switch (setting.kind) {
    case 'integer': return kinds.integer({ min: setting.min, max: setting.max });
    case 'number': return kinds.number({ min: setting.min ?? -Number.MAX_VALUE, max: setting.max ?? Number.MAX_VALUE });
    case 'choice': return kinds.oneOf(choiceValues(setting));
    case 'text': return kinds.text({ maxLength: setting.maxLength });
    case 'boolean': return kinds.boolean();
    default: throw new Error(`controls: unknown kind "${setting.kind}"`);
  }
}

/** Gives an element its setting's limits and default value. */
function prepare(element, setting) {
  if (setting.kind === 'integer' || setting.kind === 'number') {
    element.type = setting.slider ? 'range' : 'number';
    if (Number.isFinite(setting.min)) element.min = String(setting.min);
    if (Number.isFinite(setting.max)) element.max = String(setting.max);
    element.step = String(setting.step ?? (setting.kind === 'integer' ? 1 : 'any'));
    element.value = String(setting.default);
  } else if (setting.kind === 'choice') {
    element.replaceChildren(...setting.choices.map((c) => {
      const [value, label] = Array.isArray(c) ? c : [c, c];
      return new Option(label, value);
    }));
    element.value = setting.default;
  } else if (setting.kind === 'text') {
    // Stated, so that the controls' one look (style.css: input[type='text']) reaches it: chapter 11's letters box,
    // an <input> without a type, was left unstyled.
    if (element instanceof HTMLInputElement) element.type = 'text';
    element.maxLength = setting.maxLength;
    element.value = setting.default;
  } else if (setting.kind === 'boolean') {
    element.checked = setting.default;
  }
}

/**
 * Binds a settings table to the page. Returns
 *   fields: the link-state fields of every setting (spread into linkState's schema),
 *   read(name, { max }): the setting's checked value, or null after showing beside its
 *     control why it is refused (`max` narrows the table's limit, e.g. to a model's vocabulary),
 *   element(name): its control.
 */
export function controls(settings) {
  const element = (name) => document.querySelector(settings[name].control);
  for (const name of Object.keys(settings)) prepare(element(name), settings[name]);
  const fields = Object.fromEntries(Object.entries(settings).filter(([, s]) => s.linked !== false)
    .map(([name, s]) => [name, { ...linkKind(s), default: s.default, control: s.control }]));
  function read(name, { max } = {}) {
    const s = settings[name];
    const el = element(name);
    if (s.kind === 'integer' || s.kind === 'number') {
      return readNumber(el, { name: s.label, integer: s.kind === 'integer', min: s.min ?? -Infinity, max: Math.min(max ?? Infinity, s.max ?? Infinity) });
    }
    return s.kind === 'boolean' ? el.checked : el.value;
  }
  return { fields, read, element };
}
