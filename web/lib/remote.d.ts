// The types of createAttention({ worker: true }) (remote.js): the API of index.d.ts with every call
// returning a Promise and every object a proxy of one in the worker. Derived from the synchronous
// types, so the two cannot drift apart; the overloads a mapped type would lose are written out.
import type {
  Attention, AttentionOptions, Disposable, GenerateOptions, GPTTrace, Ids, IntTensor, MultiHeadAttentionTrace, Tensor,
  TensorLike, GPT, MultiHeadAttention, TorchMultiheadAttention,
} from './index.js';
import type { ApplyChatTemplateOptions, BPETokenizer, ChatMessage } from './pretrained.js';

declare global {
  interface SymbolConstructor {
    readonly asyncDispose: unique symbol;
  }
}

/** What a proxy has beyond its object's methods: dispose() frees the object in the worker. */
export interface RemoteHandle {
  /** Frees the object's WASM memory in the worker. Safe to call twice; using the proxy afterwards rejects. */
  dispose(): Promise<void>;
  /** dispose() without waiting for it. */
  [Symbol.dispose](): void;
  [Symbol.asyncDispose](): Promise<void>;
}

/**
 * A value as it crosses to or from the worker: objects of the API become their proxies; tensors,
 * numbers, strings and functions stay as they are.
 */
export type InWorker<T> =
  T extends GPT ? AsyncGPT :
  T extends MultiHeadAttention ? AsyncMultiHeadAttention :
  T extends TorchMultiheadAttention ? AsyncTorchMultiheadAttention :
  T extends BPETokenizer ? AsyncBPETokenizer :
  T extends Disposable ? Remote<T> :
  T extends ArrayBufferView | ArrayBuffer | Blob | string | number | boolean | bigint | symbol | null | undefined ? T :
  T extends (...args: any[]) => any ? T :
  T extends object ? { [K in keyof T]: InWorker<T[K]> } :
  T;

/** Arguments as the proxies take them: the worker's objects as their proxies. */
type Args<A extends unknown[]> = { [I in keyof A]: InWorker<A[I]> };

/**
 * The proxy of one of the worker's objects: each method returns a Promise of its result, each
 * property is a Promise of its value (`await model.config`).
 */
export type Remote<T> = {
  [K in keyof T as K extends 'dispose' | typeof Symbol.dispose ? never : K]:
    T[K] extends (...args: infer A) => infer R ? (...args: Args<A>) => Promise<InWorker<Awaited<R>>> : Promise<InWorker<T[K]>>;
} & RemoteHandle;

/** A generation in the worker, as an async iterator of each step's tokens (one per batch row). */
export interface AsyncGenerationStream extends AsyncIterableIterator<number[]> {
  /**
   * The next step's tokens. Rejects with the options' first error, with the error of a step that
   * failed, or with the signal's reason once it aborts, at once, however far the run got.
   */
  next(): Promise<IteratorResult<number[], undefined>>;
  return(value?: undefined): Promise<IteratorResult<number[], undefined>>;
  /** Stops the generation and frees its session in the worker. Safe to call twice. */
  close(): void;
  [Symbol.dispose](): void;
  [Symbol.asyncDispose](): Promise<void>;
}

export type AsyncGPT = Omit<Remote<GPT>, 'forward' | 'generate' | 'stream'> & {
  forward(ids: Ids, options: { trace: true; headMask?: TensorLike | null }): Promise<{ logits: Tensor; trace: GPTTrace }>;
  forward(ids: Ids, options?: { trace?: false; headMask?: TensorLike | null }): Promise<{ logits: Tensor; trace: null }>;
  forward(ids: Ids, options?: { trace?: boolean; headMask?: TensorLike | null }): Promise<{ logits: Tensor; trace: GPTTrace | null }>;
  /** Every token, shape [B, T]. No onToken: a callback here could not stop the run; stream() can. */
  generate(prompt: Ids, options?: GenerateOptions & { onToken?: never }): Promise<IntTensor>;
  /**
   * The generation a step at a time, for `for await`: a `break` stops it and frees its session, and so
   * does `signal` when it aborts (the loop then throws the signal's reason).
   */
  stream(prompt: Ids, options?: GenerateOptions & { signal?: AbortSignal }): AsyncGenerationStream;
};

export type AsyncBPETokenizer = Omit<Remote<BPETokenizer>, 'applyChatTemplate'> & {
  /** The conversation as text with `tokenize: false`, else its ids (BPETokenizer.applyChatTemplate). */
  applyChatTemplate(messages: ChatMessage[], options: ApplyChatTemplateOptions & { tokenize: false }): Promise<string>;
  applyChatTemplate(messages: ChatMessage[], options?: ApplyChatTemplateOptions): Promise<number[]>;
};

export type AsyncMultiHeadAttention = Omit<Remote<MultiHeadAttention>, 'forward'> & {
  forward(x: TensorLike, options: AttentionOptions & { trace: false }): Promise<{ output: Tensor }>;
  forward(x: TensorLike, options?: AttentionOptions & { trace?: true }): Promise<MultiHeadAttentionTrace>;
};

export type AsyncTorchMultiheadAttention = Omit<Remote<TorchMultiheadAttention>, 'forward'> & {
  forward(query: TensorLike, key: TensorLike | undefined, value: TensorLike | undefined,
    options: AttentionOptions & { trace: false }): Promise<{ output: Tensor }>;
  forward(query: TensorLike, key?: TensorLike, value?: TensorLike, options?: AttentionOptions & { trace?: true }): Promise<MultiHeadAttentionTrace>;
};

/** A class of the worker's API: `await new attn.GPT(config)` resolves to the proxy; statics return Promises. */
type AsyncClass<C> =
  (C extends new (...args: infer A) => infer R ? { new (...args: Args<A>): Promise<InWorker<R>>; readonly prototype: InWorker<R> } :
    C extends abstract new (...args: any[]) => infer R ? { readonly prototype: InWorker<R> } : never) &
  { [K in keyof C as C[K] extends (...args: any[]) => any ? K : never]:
      C[K] extends (...args: infer A) => infer R ? (...args: Args<A>) => Promise<InWorker<Awaited<R>>> : never };

/**
 * The API of createAttention({ worker: true }): the same functions and classes as {@link Attention},
 * computed in a worker. Every call returns a Promise; `tensor`, `toArray` and `format` need no WASM
 * and stay synchronous. Arguments are copied to the worker; results are moved back.
 */
export type AsyncAttention = {
  [K in keyof Attention]:
    K extends 'tensor' | 'toArray' | 'format' | 'threads' ? Attention[K] :
    Attention[K] extends abstract new (...args: any[]) => any ? AsyncClass<Attention[K]> :
    Attention[K] extends (...args: infer A) => infer R ? (...args: Args<A>) => Promise<InWorker<Awaited<R>>> : never;
} & {
  /** Stops the worker: pending calls reject, and so does every later call. */
  dispose(): Promise<void>;
  [Symbol.dispose](): void;
  [Symbol.asyncDispose](): Promise<void>;
};
