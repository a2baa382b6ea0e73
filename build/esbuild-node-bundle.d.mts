// Types of build/esbuild-node-bundle.mjs, which test/helpers/spawn-ts.ts imports.
import type { BuildOptions } from 'esbuild';

export function nodeBundleOptions(options: {
  entryPoint: string;
  outfile: string;
  /** The modules whose import.meta.url is rewritten. */
  modules: RegExp;
  loader: 'js' | 'ts';
  /** The JavaScript expression that replaces import.meta.url in the module at `path`. */
  moduleUrl: (path: string) => string;
  tsconfig?: string;
}): BuildOptions;
