// `import url from 'attention-step-by-step/models/induction'` in Node: the file: URL of the shipped induction
// model (package.json's "node" condition). A bundler copies the file instead and gives the copy's URL.
export default new URL('./models/induction.safetensors', import.meta.url).href;
