// The renderer's build: React, bundled by Vite into renderer/dist/, which `arcotheon ui` serves
// (and the Electron window loads). Relative asset paths, so the same files work from file:// too.
import react from '@vitejs/plugin-react';
import { defineConfig, type Plugin } from 'vite';

/**
 * The modules the page's entry imports statically (React, Discover, the stores, the shared
 * components): one file, the page's script, rather than a dozen small ones its first load would
 * wait for. What only the other screens import (src/screens/lazy.tsx) stays in their own files.
 *
 * src/start.ts and what it imports (the socket, the route) are a small file of their own, which
 * index.html loads as a module script before the page's script: it runs as soon as it is in, while
 * the larger file still downloads, and asks for Discover's first page (src/start.ts). The page's
 * script imports it by the same address, which is the same module in the page: it runs once.
 */
const initial = new Set<string>();
const start = new Set<string>();
const START = new URL('./src/start.ts', import.meta.url).pathname;
const initialModules: Plugin = {
  name: 'arcotheon-initial-modules',
  buildEnd() {
    const reach = (from: string[], into: Set<string>): void => {
      into.clear();
      for (let id = from.pop(); id !== undefined; id = from.pop()) {
        if (into.has(id)) continue;
        into.add(id);
        from.push(...(this.getModuleInfo(id)?.importedIds ?? []));
      }
    };
    reach([START], start);
    reach(
      [...this.getModuleIds()].filter((id) => this.getModuleInfo(id)?.isEntry === true),
      initial,
    );
    for (const id of start) initial.delete(id);
  },
};

export default defineConfig({
  root: import.meta.dirname,
  base: './',
  plugins: [react(), initialModules],
  resolve: {
    alias: [
      // @rjsf/core's test helper imports Ajv's validator without declaring it; see src/run/no-ajv.ts.
      { find: '@rjsf/validator-ajv8', replacement: new URL('./src/run/no-ajv.ts', import.meta.url).pathname },
      // The page runs on Preact (preact/compat): the code and the libraries are written against React's
      // API and types, and React DOM was 207 of the page script's 359 KB. A trace of the first cards at
      // 20,000 (docs/performance.md) put that script's parse (127 ms, off the main thread but on the
      // critical path) and evaluation (about 150 ms) before the first render; with Preact the script is
      // 160 KB. Every e2e spec runs against this build.
      { find: /^react-dom\/client$/, replacement: 'preact/compat/client' },
      { find: /^react\/jsx-(dev-)?runtime$/, replacement: 'preact/jsx-runtime' },
      { find: /^react(-dom)?$/, replacement: 'preact/compat' },
    ],
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
      output: {
        codeSplitting: {
          // Exactly the modules listed: not what they import besides (src/start.ts stays out).
          groups: [
            { name: 'start', test: (id: string) => start.has(id), includeDependenciesRecursively: false, priority: 2 },
            { name: 'index', test: (id: string) => initial.has(id), includeDependenciesRecursively: false, priority: 1 },
          ],
        },
      },
    },
  },
});
