// `import url from 'attention-step-by-step/models/induction'` in Node: the file: URL of the shipped induction
// model (package.json's "node" condition). In webpack (its "webpack" condition) the same line has webpack copy the
// file and give the copy's URL, with no rule; other bundlers copy the file the "default" condition names.
export default new URL('./models/induction.safetensors', import.meta.url).href;
