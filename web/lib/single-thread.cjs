// attention-step-by-step/single-thread for `require` (CommonJS): Node ≥ 20.19 loads the ES module itself
// (require(esm)), so this is the same module, the same instance, under the name CommonJS asks for (as index.cjs).
module.exports = require('./single-thread.js');
