// Types of 'attention-step-by-step/worker' (worker.js): the script that createAttention({ worker: true }) runs in
// a Web Worker or a worker_thread. It exports nothing; an app whose bundler does not bundle it (esbuild) bundles it
// as an entry of its own and names the result with createAttention's `workerUrl`.
export {};
