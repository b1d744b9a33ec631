// Tensors as PyTorch prints them, so that a notebook's printed output and this
// package's can be compared by eye, character for character. This follows
// torch/_tensor_str.py with its default print options: 4 digits, scientific
// notation when the magnitudes span more than 1000× (or reach 1e8, or go below
// 1e-4), integers printed as "1.", columns padded to one width, lines wrapped
// at 80 characters, and tensors of more than 1000 values summarised with "...".

const THRESHOLD = 1000;
const EDGE_ITEMS = 3;
const LINE_WIDTH = 80;

/**
 * x rounded to `digits` decimals as Python's '{:.Nf}' does. Both round the
 * exact binary value, but an exact tie (0.03125 to 4 decimals: attention
 * weights can be such binary fractions) goes up in JS and to the even digit
 * in Python.
 */
function fixed(x, digits) {
  if (!Number.isFinite(x)) return pythonSpecial(x);
  const a = Math.abs(x);
  let s = a.toFixed(digits);
  if (tieBelowEven(a, digits + 1)) s = a.toFixed(digits + 1).slice(0, digits === 0 ? -2 : -1);
  return (x < 0 || Object.is(x, -0) ? '-' : '') + s;
}

/** x as Python's '{:.Ne}': the same tie rule, and an exponent of at least two digits. */
function exponential(x, digits) {
  if (!Number.isFinite(x)) return pythonSpecial(x);
  const a = Math.abs(x);
  let [m, e] = a.toExponential(digits).split('e');
  const [longM, longE] = a.toExponential(digits + 1).split('e');
  if (tieBelowEven(a, digits + 1 - Number(longE))) [m, e] = [longM.slice(0, digits === 0 ? -2 : -1), longE];
  const sign = e.startsWith('-') ? '-' : '+';
  return `${x < 0 || Object.is(x, -0) ? '-' : ''}${m}e${sign}${e.replace(/^[+-]/, '').padStart(2, '0')}`;
}

/**
 * Whether a · 10^p is exactly an integer ending in 5 whose digits before the 5
 * end in an even digit: a tie that Python rounds down and JS rounds up.
 * Exact, in BigInt: a = mantissa · 2^exponent.
 */
function tieBelowEven(a, p) {
  if (a === 0) return false;
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, a);
  const bits = view.getBigUint64(0);
  const biased = Number((bits >> 52n) & 0x7ffn);
  const fraction = bits & ((1n << 52n) - 1n);
  const mantissa = biased === 0 ? fraction : fraction | (1n << 52n);
  const exponent = (biased === 0 ? 1 : biased) - 1075;
  const pow = (base, n) => base ** BigInt(n);
  const num = mantissa * pow(10n, Math.max(p, 0)) * pow(2n, Math.max(exponent, 0));
  const den = pow(10n, Math.max(-p, 0)) * pow(2n, Math.max(-exponent, 0));
  if (num % den !== 0n) return false;
  const k = num / den;
  return k % 10n === 5n && (k / 10n) % 2n === 0n;
}

function pythonSpecial(x) {
  if (Number.isNaN(x)) return 'nan';
  return x > 0 ? 'inf' : '-inf';
}

/** torch's _Formatter: picks fixed, integer or scientific notation and one width for every value. */
function formatter(values, integer, precision) {
  if (integer) {
    const width = Math.max(1, ...values.map((v) => String(v).length));
    return (v) => String(v).padStart(width, ' ');
  }
  const finite = values.filter((v) => Number.isFinite(v) && v !== 0);
  let mode = 'fixed';
  let width = 1;
  if (finite.length > 0) {
    const abs = finite.map(Math.abs);
    const min = Math.min(...abs);
    const max = Math.max(...abs);
    const whole = finite.every((v) => v === Math.ceil(v));
    const wide = max / min > 1000 || max > 1e8;
    if (whole) mode = wide ? 'sci' : 'int';
    else mode = wide || min < 1e-4 ? 'sci' : 'fixed';
    for (const v of finite) {
      const s = mode === 'sci' ? exponential(v, precision) : mode === 'int' ? `${fixed(v, 0)}.` : fixed(v, precision);
      width = Math.max(width, s.length);
    }
  }
  return (v) => {
    let s;
    if (mode === 'sci') s = exponential(v, precision);
    else if (mode === 'int') s = Number.isFinite(v) ? `${fixed(v, 0)}.` : pythonSpecial(v);
    else s = fixed(v, precision);
    return s.padStart(width, ' ');
  };
}

/** The values torch's formatter looks at when a tensor is summarised: the edge items of every dimension. */
function edgeValues(data, shape, offset = 0) {
  if (shape.length === 0) return [data[offset]];
  const [n, ...rest] = shape;
  const stride = rest.reduce((a, b) => a * b, 1);
  const rows = n > 2 * EDGE_ITEMS ? [...range(0, EDGE_ITEMS), ...range(n - EDGE_ITEMS, n)] : range(0, n);
  return rows.flatMap((i) => edgeValues(data, rest, offset + i * stride));
}

function range(from, to) {
  return Array.from({ length: to - from }, (_, k) => from + k);
}

function body(data, shape, offset, indent, summarize, format) {
  if (shape.length === 0) return format(data[offset]);
  const [n, ...rest] = shape;
  const stride = rest.reduce((a, b) => a * b, 1);
  const cut = summarize && n > 2 * EDGE_ITEMS;
  const rows = cut ? [...range(0, EDGE_ITEMS), null, ...range(n - EDGE_ITEMS, n)] : range(0, n);
  if (rest.length === 0) {
    const items = rows.map((i) => (i === null ? ' ...' : format(data[offset + i])));
    const perLine = Math.max(1, Math.floor((LINE_WIDTH - indent) / (format(0).length + 2)));
    const lines = [];
    for (let i = 0; i < items.length; i += perLine) lines.push(items.slice(i, i + perLine).join(', '));
    return `[${lines.join(`,\n${' '.repeat(indent + 1)}`)}]`;
  }
  const slices = rows.map((i) => (i === null ? '...' : body(data, rest, offset + i * stride, indent + 1, summarize, format)));
  return `[${slices.join(`,${'\n'.repeat(rest.length)}${' '.repeat(indent + 1)}`)}]`;
}

/**
 * `tensor([[0.2961, 0.5166], …])` for a checked tensor: data (float32 values,
 * or integers when `integer`), shape, and the number of decimals.
 */
export function formatTensor(data, shape, { integer = false, precision = 4 } = {}) {
  const numel = data.length;
  if (numel === 0) {
    const size = shape.length === 1 ? '' : `, size=(${shape.join(', ')}${shape.length === 1 ? ',' : ''})`;
    return `tensor([]${size})`;
  }
  const summarize = numel > THRESHOLD;
  const values = summarize ? edgeValues(data, shape) : Array.from(data);
  const format = formatter(values, integer, precision);
  return `tensor(${body(data, shape, 0, 'tensor('.length, summarize, format)})`;
}

/** A tensor's values as nested arrays (a number for a 0-D tensor), like tensor.tolist(). */
export function nestedArray(data, shape, offset = 0) {
  if (shape.length === 0) return data[offset];
  const [n, ...rest] = shape;
  const stride = rest.reduce((a, b) => a * b, 1);
  return range(0, n).map((i) => nestedArray(data, rest, offset + i * stride));
}
