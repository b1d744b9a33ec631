// What the reader types, checked where they type it: a rejected value is
// reported beside its own control (role="alert" inside the control's .field
// group), never replaced by a default, and every figure computed from it is
// marked stale until the value is valid again.

/** The alert element of a control's group, created on first use. */
function alertOf(control) {
  const group = control.closest('.field') ?? control.parentElement;
  let alert = group.querySelector(':scope > .field-error');
  if (!alert) {
    alert = document.createElement('span');
    alert.className = 'field-error';
    alert.setAttribute('role', 'alert');
    alert.id = `${control.id || `field-${Math.random().toString(36).slice(2)}`}-error`;
    group.appendChild(alert);
  }
  return alert;
}

/** Shows `message` beside `control` and marks it invalid; a falsy message clears both. */
export function showProblem(control, message) {
  const alert = alertOf(control);
  alert.textContent = message || '';
  alert.hidden = !message;
  control.setAttribute('aria-invalid', String(Boolean(message)));
  if (message) control.setAttribute('aria-describedby', alert.id);
  else control.removeAttribute('aria-describedby');
}

/**
 * What the reader typed, as a message quotes it. A number field holding what is not yet a number ("1e", "-")
 * reports an empty value, which the message quoted as “”: that case is named instead.
 */
export function typedText(input) {
  if (input.validity?.badInput) return 'what is typed there is not a number';
  const text = input.value.trim();
  return text === '' ? 'the field is empty' : `got “${text}”`;
}

/**
 * The number in an <input>, or null after showing why it is refused: not a
 * number (letters, empty), not whole when it must be, outside [min, max].
 */
export function readNumber(input, { name, min = -Infinity, max = Infinity, integer = false }) {
  const text = input.value.trim();
  const value = Number(text);
  let problem = '';
  if (text === '' || !Number.isFinite(value) || input.validity?.badInput) problem = `${name} must be a number`;
  else if (integer && !Number.isInteger(value)) problem = `${name} must be a whole number`;
  else if (value < min || value > max) {
    problem = max === Infinity ? `${name} must be at least ${min}` : `${name} must be from ${min} to ${max}`;
  }
  showProblem(input, problem && `${problem}; ${typedText(input)}.`);
  return problem ? null : value;
}

/**
 * Marks figures as out of date (dimmed, hidden from assistive technology and
 * from the keyboard, with a note above them) or as current again. once: the
 * note stands above the first figure only (figures that follow one another,
 * which would repeat it).
 */
export function markStale(figures, stale, note = 'Out of date: fix the input above to redraw.', { once = false } = {}) {
  let first = true;
  for (const figure of figures) {
    if (!figure) continue;
    const noted = !once || first;
    first = false;
    figure.classList.toggle('stale', stale);
    figure.toggleAttribute('inert', stale);
    if (stale) figure.setAttribute('aria-hidden', 'true');
    else figure.removeAttribute('aria-hidden');
    let label = figure.previousElementSibling?.classList.contains('stale-note') ? figure.previousElementSibling : null;
    if (stale && !label && noted) {
      label = document.createElement('p');
      label.className = 'stale-note';
      figure.before(label);
    }
    if (label) {
      label.textContent = note;
      label.hidden = !stale || !noted;
    }
  }
}
