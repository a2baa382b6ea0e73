// The renderer's build: React, bundled by Vite into renderer/dist/, which `arcotheon ui` serves
// (and the Electron window loads). Relative asset paths, so the same files work from file:// too.
import react from '@vitejs/plugin-react';
import { defineConfig, type Plugin } from 'vite';

/**
 * The modules the page's entry imports statically (React, Discover, the stores, the shared
 * components): one file, the page's script, rather than a dozen small ones its first load would
 * wait for. What only the other screens import (src/screens/lazy.tsx) stays in their own files.
 */
const initial = new Set<string>();
const initialModules: Plugin = {
  name: 'arcotheon-initial-modules',
  buildEnd() {
    initial.clear();
    const todo = [...this.getModuleIds()].filter((id) => this.getModuleInfo(id)?.isEntry === true);
    for (let id = todo.pop(); id !== undefined; id = todo.pop()) {
      if (initial.has(id)) continue;
      initial.add(id);
      todo.push(...(this.getModuleInfo(id)?.importedIds ?? []));
    }
  },
};

export default defineConfig({
  root: import.meta.dirname,
  base: './',
  plugins: [react(), initialModules],
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
    // The page's script and the screens' files; their gzipped total is held under 350 KB by e2e/ui/bundle-size.e2e.ts.
    chunkSizeWarningLimit: 1024,
    rollupOptions: {
      output: { codeSplitting: { groups: [{ name: 'index', test: (id: string) => initial.has(id) }] } },
    },
  },
});
