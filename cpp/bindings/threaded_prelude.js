// Prepended (--extern-pre-js) to the threaded module's glue, outside its factory.
// Emscripten 3.1.6 writes that glue as an ES module, but in Node it still speaks
// CommonJS: it calls require() for fs, path and worker_threads, reads __dirname,
// and assigns worker_threads' Worker to a global. These module-scoped names give
// it what it expects without touching the program's globals; a browser never
// reaches any of them. process.getBuiltinModule needs Node >= 20.16 (package.json
// asks for 20.19).
var require = (name) => globalThis.process.getBuiltinModule(name);
var __dirname = '';
var Worker = globalThis.Worker;
var global = {
  set Worker(nodeWorker) {
    Worker = nodeWorker;
  },
};
