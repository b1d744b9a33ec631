// The same package from CommonJS: require() loads ES modules in Node >= 20.19.
const { createAttention } = require('attention-step-by-step');

createAttention().then((attn) => {
  console.log(attn.format(attn.softmax([[2.0, 1.0, 0.1]])));
});
