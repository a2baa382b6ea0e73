// The `adcap` CLI as one file, sdk/dist/cli/adcap.mjs, which the bin (dist/cli/bin.js) loads: Node
// then reads one module instead of the ~200 of dist/ and their dependencies, and a start costs
// about half the CPU (0.40 s → 0.20 s for `adcap list`, measured). Run by the SDK's build after
// tsc, from tsc's output. The library entry points (dist/index.js, dist/internal.js) and
// dist/cli/main.js stay tsc's modules.
// Every module keeps its own import.meta.url, rewritten to the module's dist/ path relative to the
// bundle (build/esbuild-node-bundle.mjs).
import { dirname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { nodeBundleOptions } from './esbuild-node-bundle.mjs';

const dist = fileURLToPath(new URL('../sdk/dist/', import.meta.url));
const outfile = join(dist, 'cli', 'adcap.mjs');

await build(
  nodeBundleOptions({
    entryPoint: join(dist, 'cli', 'main.js'),
    outfile,
    modules: /[\\/]sdk[\\/]dist[\\/].*\.js$/,
    loader: 'js',
    moduleUrl: (path) => {
      const relativePath = relative(dirname(outfile), path).split(sep).join('/');
      return `new URL(${JSON.stringify(relativePath.startsWith('.') ? relativePath : `./${relativePath}`)}, import.meta.url).href`;
    },
  }),
);
