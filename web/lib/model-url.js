// `import modelUrl from 'attention-step-by-step/model'` in Node: the file: URL of the shipped agreement model
// (package.json's "node" condition). In webpack (its "webpack" condition) the same line has webpack copy the
// file and give the copy's URL, with no rule; other bundlers copy the file the "default" condition names.
export default new URL('./models/agreement.safetensors', import.meta.url).href;
