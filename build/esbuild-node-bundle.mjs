// The esbuild options of the two bundles of SDK code that Node runs as one ES module: the `adcap`
// CLI (build/bundle-cli.mjs, from tsc's output) and test fixtures with the SDK source they import
// (test/helpers/spawn-ts.ts). Each module bundled keeps its own import.meta.url: every use is
// rewritten to an expression for the module's original URL, so the files the SDK reads beside its
// modules (schema/, package.json, the bundled registry) are found as they are without the bundle.
import { readFile } from 'node:fs/promises';

/**
 * @param {{ entryPoint: string, outfile: string, modules: RegExp, loader: 'js' | 'ts',
 *   moduleUrl: (path: string) => string, tsconfig?: string }} options
 *   `modules`: the modules whose import.meta.url is rewritten; `moduleUrl(path)`: the JavaScript
 *   expression that replaces it in the module at `path`.
 * @returns {import('esbuild').BuildOptions}
 */
export function nodeBundleOptions({ entryPoint, outfile, modules, loader, moduleUrl, tsconfig }) {
  return {
    entryPoints: [entryPoint],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node22',
    logLevel: 'warning',
    legalComments: 'eof',
    ...(tsconfig === undefined ? {} : { tsconfig }),
    // CommonJS dependencies bundled into an ES module still call require() for Node's own modules.
    banner: {
      js: "import { createRequire as __adcapCreateRequire } from 'node:module'; const require = __adcapCreateRequire(import.meta.url);",
    },
    plugins: [
      {
        name: 'module-import-meta-url',
        setup(bundler) {
          bundler.onLoad({ filter: modules }, async (args) => {
            const source = await readFile(args.path, 'utf8');
            if (!source.includes('import.meta.url')) return undefined;
            return { contents: source.replaceAll('import.meta.url', moduleUrl(args.path)), loader };
          });
        },
      },
    ],
  };
}
