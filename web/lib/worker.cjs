// attention-step-by-step/worker for `require` (CommonJS): the same worker script (Node ≥ 20.19 loads the ES module
// itself), so that a CommonJS program can start it by path: new Worker(require.resolve('attention-step-by-step/worker')).
require('./worker.js');
