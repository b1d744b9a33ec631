import { fileURLToPath } from 'node:url';

// An ES-module bundle (main.js uses top-level await) in dist/, which index.html loads.
export default {
  mode: 'production',
  context: fileURLToPath(new URL('.', import.meta.url)),
  entry: './src/main.js',
  experiments: { outputModule: true },
  output: {
    path: fileURLToPath(new URL('./dist/', import.meta.url)),
    filename: 'main.js',
    module: true,
    clean: true,
  },
  // The model, imported as a URL: webpack copies the file and gives its address.
  module: { rules: [{ test: /\.safetensors$/, type: 'asset/resource' }] },
  // The WebAssembly module (750 KiB) and the model (440 KiB) are large by nature and
  // load once, asynchronously: keep webpack's size hint for the JavaScript only.
  performance: { assetFilter: (file) => !/\.(wasm|safetensors)$/.test(file) },
};
