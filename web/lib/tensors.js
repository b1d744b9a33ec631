// Tensors as the JS API takes and gives them, plain {data: Float32Array, shape}
// objects: torch.tensor, tensor.tolist() and print(tensor).
import { asTensor, fail, options, refuse, shapeOf } from './arguments.js';
import { attnError } from './errors.js';
import { formatTensor, nestedArray } from './format.js';

/**
 * torch.tensor: a tensor from nested arrays, or from flat data and a shape.
 * @returns {{data: Float32Array, shape: number[]}}
 */
export function tensor(data, shape) {
  const source = shape === undefined ? data : { data, shape };
  const t = asTensor(source, 'tensor', 'data');
  // Always a fresh array, never an alias of the caller's.
  return { data: t.data === source?.data ? Float32Array.from(t.data) : t.data, shape: t.shape };
}

const INTEGER_ARRAYS = [Int8Array, Uint8Array, Uint8ClampedArray, Int16Array, Uint16Array, Int32Array, Uint32Array];

/** A tensor to print or list: integer data (an IntTensor) stays integer, anything else is read as float32. */
function readable(t, fn) {
  if (t && typeof t === 'object' && INTEGER_ARRAYS.some((A) => t.data instanceof A)) {
    const shape = shapeOf(t.shape, fn, 't.shape');
    const n = shape.reduce((a, b) => a * b, 1);
    if (t.data.length !== n) throw attnError('ERR_ATTN_INVALID_ARGUMENT', `${fn}: t of shape [${shape.join(', ')}] needs ${n} values, got ${t.data.length}`);
    return { data: t.data, shape, integer: true };
  }
  return { ...asTensor(t, fn, 't'), integer: false };
}

/** tensor.tolist(): the values as nested arrays of numbers (a number for a 0-D tensor). */
export function toArray(t) {
  const { data, shape } = readable(t, 'toArray');
  return nestedArray(data, shape);
}

/** print(tensor) as PyTorch writes it: `tensor([[0.2961, 0.5166], …])`, with `precision` decimals (default 4). */
export function format(t, opts) {
  const fn = 'format';
  const { precision = 4 } = options(opts, ['precision'], fn);
  if (!Number.isSafeInteger(precision) || precision < 0 || precision > 16) refuse(fn, 'precision as an integer from 0 to 16', precision);
  const { data, shape, integer } = readable(t, fn);
  return formatTensor(data, shape, { integer, precision });
}
