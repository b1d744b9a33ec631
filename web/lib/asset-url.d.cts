// The package's files' URLs for `require` (CommonJS): `require('attention-step-by-step/wasm')` (and /model,
// /models/induction) is the URL itself, as a bundler's asset module gives it and as wasm-url.cjs gives it in Node.

/** The URL the bundler gave the copied file; in Node, the package file's file: URL. */
declare const url: string;
export = url;
