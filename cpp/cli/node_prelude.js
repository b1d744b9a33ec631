// Prepended (--pre-js) to attn-train's WebAssembly build for Node, the package's `bin` (web/bin/attn-train.cjs).
// Two things the native tool gets from its system, given here on Node's own thread (the program's main() runs
// on a thread of its own, PROXY_TO_PTHREAD; the pool's workers load this file too and skip both):
// - its code: Emscripten 3.1.6 fetches the .wasm with Node's fetch, which takes no path (docs/toolchain.md),
//   so the bytes are read here;
// - Ctrl-C, SIGTERM and SIGHUP: Node hears them, not the program, so each is passed on (attn_train_signal in
//   cpp/cli/attn_train.cpp), to take the course it takes natively: a run saves before it exits;
// - the process's umask, which WebAssembly's libc does not know (it starts at 0777: files saved with no
//   permission bits), through the environment the program reads (ENV, Emscripten's stand-in for it).
if (!Module['ENVIRONMENT_IS_PTHREAD']) {
  Module['wasmBinary'] = require('fs').readFileSync(require('path').join(__dirname, 'attn-train.wasm'));
  Module['preRun'] = [() => {
    ENV['ATTN_TRAIN_UMASK'] = process.umask().toString(8);
  }];
  for (const name of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
    const number = require('os').constants.signals[name];
    process.on(name, () => Module['_attn_train_signal'](number));
  }
}
