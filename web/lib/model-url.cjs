// `require('attention-step-by-step/model')` in Node: the file: URL of the shipped agreement model (model-url.js's
// default export). CommonJS gets the URL itself, as a bundler's asset module gives it.
module.exports = require('./model-url.js').default;
