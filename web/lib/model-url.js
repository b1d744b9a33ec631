// `import modelUrl from 'attention-step-by-step/model'` in Node: the file: URL of the shipped agreement model
// (package.json's "node" condition). A bundler copies the file instead and gives the copy's URL.
export default new URL('./models/agreement.safetensors', import.meta.url).href;
