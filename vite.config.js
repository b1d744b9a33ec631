// The tutorial site: static files in dist/, every URL relative (base './') so
// the folder works from any sub-path and any plain static server.
import { defineConfig } from 'vite';

export default defineConfig({
  root: 'web/site',
  base: './',
  build: {
    outDir: '../../dist',
    emptyOutDir: true,
    target: 'es2022',
  },
  preview: {
    host: '127.0.0.1',
    port: 4173,
  },
});
