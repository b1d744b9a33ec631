// `import wasmUrl from 'attention-step-by-step/wasm'` in Node: the file: URL of the single-threaded WebAssembly
// module (package.json's "node" condition). A bundler copies the file instead and gives the copy's URL.
export default new URL('./wasm/attention_wasm.wasm', import.meta.url).href;
