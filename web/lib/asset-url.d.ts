// The package's two files for bundlers that copy files (esbuild's `file` loader, webpack's `asset/resource`,
// Vite with `?url`): `import wasmUrl from 'attention-step-by-step/wasm'` and `import modelUrl from
// 'attention-step-by-step/model'` give the URL of the copied file, for `createAttention({ wasmUrl })` and
// `attn.loadDefaultModel({ url })`. (What each bundler needs to treat the import so is in the README.) In Node the
// same imports give the files' file: URLs (package.json's "node" condition), so one program runs in both.

/** The URL the bundler gave the copied file. */
declare const url: string;
export default url;
