// `require('attention-step-by-step/wasm')` in Node: the file: URL of the single-threaded WebAssembly module
// (wasm-url.js's default export). CommonJS gets the URL itself, as a bundler's asset module gives it.
module.exports = require('./wasm-url.js').default;
