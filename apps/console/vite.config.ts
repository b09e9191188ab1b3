import { resolve } from 'node:path';
import { defineConfig } from 'vite';

// Served by the api at /console; everything is bundled (no external requests).
export default defineConfig({
  root: __dirname,
  base: '/console/',
  esbuild: { jsx: 'automatic', jsxImportSource: 'preact' },
  build: { outDir: resolve(__dirname, '../../dist/console'), emptyOutDir: true, assetsInlineLimit: 0 },
  logLevel: 'warn',
});
