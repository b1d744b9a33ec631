import { defineConfig } from 'vite';

// Top-level await in main.js needs an ES2022 target.
export default defineConfig({ build: { target: 'es2022' } });
