// The `adcap` CLI as one file, sdk/dist/cli/adcap.mjs, which the bin (dist/cli/bin.js) loads: Node
// then reads one module instead of the ~200 of dist/ and their dependencies, and a start costs
// about half the CPU (0.40 s → 0.20 s for `adcap list`, measured). Run by the SDK's build after
// tsc, from tsc's output. The library entry points (dist/index.js, dist/internal.js) and
// dist/cli/main.js stay tsc's modules.
// Every module keeps its own import.meta.url (each use is rewritten to the module's dist/ path,
// relative to the bundle), so the files the SDK reads beside its modules (schema/, package.json,
// the bundled registry) are found as from dist/.
import { readFile } from 'node:fs/promises';
import { dirname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const dist = fileURLToPath(new URL('../sdk/dist/', import.meta.url));
const outfile = join(dist, 'cli', 'adcap.mjs');

await build({
  entryPoints: [join(dist, 'cli', 'main.js')],
  outfile,
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node22',
  logLevel: 'warning',
  legalComments: 'eof',
  // CommonJS dependencies bundled into an ES module still call require() for Node's own modules.
  banner: {
    js: "import { createRequire as __adcapCreateRequire } from 'node:module'; const require = __adcapCreateRequire(import.meta.url);",
  },
  plugins: [
    {
      name: 'module-import-meta-url',
      setup(bundler) {
        bundler.onLoad({ filter: /[\\/]sdk[\\/]dist[\\/].*\.js$/ }, async (args) => {
          const source = await readFile(args.path, 'utf8');
          if (!source.includes('import.meta.url')) return undefined;
          const path = relative(dirname(outfile), args.path).split(sep).join('/');
          const url = `new URL(${JSON.stringify(path.startsWith('.') ? path : `./${path}`)}, import.meta.url).href`;
          return { contents: source.replaceAll('import.meta.url', url), loader: 'js' };
        });
      },
    },
  ],
});
