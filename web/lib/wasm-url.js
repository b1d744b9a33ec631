// `import wasmUrl from 'attention-step-by-step/wasm'` in Node: the file: URL of the single-threaded WebAssembly
// module (package.json's "node" condition). In webpack (its "webpack" condition) the same line has webpack copy the
// file and give the copy's URL, with no rule; other bundlers copy the file the "default" condition names.
export default new URL('./wasm/attention_wasm.wasm', import.meta.url).href;
