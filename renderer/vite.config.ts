// The renderer's build: React, bundled by Vite into renderer/dist/, which `arcotheon ui` serves
// (and the Electron window loads). Relative asset paths, so the same files work from file:// too.
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

export default defineConfig({
  root: import.meta.dirname,
  base: './',
  plugins: [react()],
  resolve: {
    // @rjsf/core's test helper imports Ajv's validator without declaring it; see src/run/no-ajv.ts.
    alias: { '@rjsf/validator-ajv8': new URL('./src/run/no-ajv.ts', import.meta.url).pathname },
  },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    // The host serves a strict CSP (no inline script); Vite's module preload polyfill is inline-free
    // only when disabled.
    modulePreload: { polyfill: false },
    target: 'es2022',
    sourcemap: false,
    reportCompressedSize: false,
    // One bundle; its gzipped size is held under 350 KB by e2e/ui/bundle-size.e2e.ts.
    chunkSizeWarningLimit: 1024,
  },
});
