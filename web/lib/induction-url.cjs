// `require('attention-step-by-step/models/induction')` in Node: the file: URL of the shipped induction model
// (induction-url.js's default export). CommonJS gets the URL itself, as a bundler's asset module gives it.
module.exports = require('./induction-url.js').default;
