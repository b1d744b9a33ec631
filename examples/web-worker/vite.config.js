import { defineConfig } from 'vite';

// The worker is an ES module (it imports the package and uses top-level await).
export default defineConfig({ build: { target: 'es2022' }, worker: { format: 'es' } });
