import { defineConfig } from 'vite';

// The page uses top-level await; the package's worker is bundled by Vite from its
// new Worker(new URL('./worker.js', import.meta.url), { type: 'module' }).
export default defineConfig({ build: { target: 'es2022' }, worker: { format: 'es' } });
