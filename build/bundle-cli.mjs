// The command-line programs as one file each, which their bins load: Node then reads one module
// instead of the ~200 of tsc's output and their dependencies, and a start costs about half the CPU
// or less (measured: `adcap list` 0.40 → 0.20 s, `arcotheon --help` 0.55 → 0.20 s).
//   node build/bundle-cli.mjs adcap      sdk/dist/cli/main.js → sdk/dist/cli/adcap.mjs (the SDK's build)
//   node build/bundle-cli.mjs arcotheon  out/electron/cli.js  → out/electron/arcotheon.mjs (npm run build:electron)
// Run after tsc, from its output. The library entry points (dist/index.js, dist/internal.js) and the
// modules bundled stay tsc's modules beside the bundle.
// Every module keeps its own import.meta.url, rewritten to the module's path in sdk/dist/ or
// out/electron/ relative to the bundle (build/esbuild-node-bundle.mjs), so what the code finds
// beside its modules (schema/, package.json, the bundled registry, the renderer) is found as without it.
import { readdirSync, rmSync, statSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { builtinModules, createRequire } from 'node:module';
import { basename, dirname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { nodeBundleOptions } from './esbuild-node-bundle.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const TARGETS = {
  adcap: { entry: 'sdk/dist/cli/main.js', outfile: 'sdk/dist/cli/adcap.mjs' },
  arcotheon: { entry: 'out/electron/cli.js', outfile: 'out/electron/arcotheon.mjs' },
};

/**
 * An esbuild plugin: `import … from 'node:x'` becomes a module of the bundle that takes Node's
 * module with require() (the bundle's banner defines it) and exports its members one by one, each
 * read only if some module imports it (esbuild drops the unused reads, marked pure).
 */
function builtinsThroughRequire() {
  const builtins = new Set(builtinModules.flatMap((m) => [m, `node:${m}`]));
  const requireHere = createRequire(import.meta.url);
  return {
    name: 'builtins-through-require',
    setup(bundler) {
      bundler.onResolve({ filter: /^[a-z_:/]+$/ }, (args) =>
        args.kind === 'import-statement' && builtins.has(args.path)
          ? { path: args.path.replace(/^node:/, ''), namespace: 'node-builtin' }
          : undefined,
      );
      bundler.onLoad({ filter: /.*/, namespace: 'node-builtin' }, (args) => {
        const specifier = JSON.stringify(`node:${args.path}`);
        const names = Object.keys(requireHere(`node:${args.path}`)).filter((n) => /^[A-Za-z_$][\w$]*$/.test(n) && n !== 'default');
        const contents = [
          `const builtin = require(${specifier});`,
          'export default builtin;',
          'function member(name) { return builtin[name]; }',
          ...names.map((n) => `export const ${n} = /* @__PURE__ */ member(${JSON.stringify(n)});`),
        ].join('\n');
        return { contents, loader: 'js' };
      });
    },
  };
}

/**
 * An esbuild plugin: the validators generated ahead of time (sdk/src/generated/, Ajv's standalone
 * code) load Ajv's run-time helpers with a require() of their own (createRequire), which esbuild
 * cannot follow, so every start of the bundle loaded a second copy of those helpers and of
 * ajv-formats' formats from node_modules, file by file. Here that local require is dropped: the
 * calls then use the bundle's require() of the banner, which esbuild resolves statically to the
 * copies it already bundles for Ajv. Fails the build when the generated code stops matching.
 */
function generatedValidatorsRequireBundled() {
  const localRequire = /^import \{ createRequire \} from 'node:module';\n|^const require = createRequire\(import\.meta\.url\);\n/gm;
  return {
    name: 'generated-validators-require-bundled',
    setup(bundler) {
      bundler.onLoad({ filter: /[\\/]sdk[\\/]dist[\\/]generated[\\/][^\\/]+\.js$/ }, async (args) => {
        const source = await readFile(args.path, 'utf8');
        const contents = source.replace(localRequire, '');
        if (!source.includes('createRequire') || contents.includes('createRequire') || contents.includes('import.meta.url')) {
          throw new Error(`bundle-cli: ${args.path} no longer makes its require() as this plugin expects; update the plugin`);
        }
        return { contents, loader: 'js' };
      });
    },
  };
}

/**
 * The CommonJS packages that only some commands use: each is evaluated on first use instead of
 * when the bundle loads (lazyPackages). Loading these seven with the bundle cost every command
 * ~20 ms (a bundle of them alone: 50 vs 30 ms for an empty one, compile cache warm).
 */
export const LAZY_PACKAGES = ['ajv/dist/2020.js', 'ajv-formats', 'semver', 'yaml', 'cli-progress', 'yauzl', 'ignore'];

/**
 * An esbuild plugin: an import of a LAZY_PACKAGES package from the SDK's code becomes a module of
 * the bundle that stands for it. Each function the package exports is a function that calls (or,
 * with `new`, constructs) the package's own; the default export (module.exports, as Node gives a
 * CommonJS package's default to an ES module) forwards every property read, call and `new`. The
 * package itself is a require() that esbuild bundles as a CommonJS module, which runs when first
 * required: on the first of those uses. A named import of anything but a function fails the build
 * (no matching export), so nothing is read from a package before it is loaded. A class these
 * packages export is constructed (a named import) or reached through the default export (for
 * `instanceof`, statics); a class of ours extending a named import would not get its prototype.
 */
export function lazyPackages(packages = LAZY_PACKAGES) {
  const pattern = new RegExp(`^(${packages.map((p) => p.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')).join('|')})$`);
  return {
    name: 'lazy-packages',
    setup(bundler) {
      bundler.onResolve({ filter: pattern }, (args) => {
        if (args.kind !== 'import-statement' || args.namespace !== 'file') return undefined;
        // Resolved from the importing module, as Node would (the SDK has packages of its own).
        return { path: createRequire(join(args.resolveDir, 'index.js')).resolve(args.path), namespace: 'lazy-package' };
      });
      bundler.onLoad({ filter: /.*/, namespace: 'lazy-package' }, (args) => {
        const exported = createRequire(import.meta.url)(args.path);
        const file = JSON.stringify(args.path);
        const functions = Object.keys(exported).filter(
          (key) => /^[A-Za-z_$][\w$]*$/.test(key) && key !== 'default' && typeof exported[key] === 'function',
        );
        const contents = [
          'let loaded;',
          `const load = () => (loaded ??= require(${file}));`,
          `export default new Proxy(${typeof exported === 'function' ? 'function () {}' : '{}'}, {`,
          '  get: (_, key) => Reflect.get(load(), key),',
          '  has: (_, key) => Reflect.has(load(), key),',
          '  apply: (_, self, args) => Reflect.apply(load(), self, args),',
          '  construct: (_, args) => Reflect.construct(load(), args),',
          '});',
          ...functions.map(
            (key) =>
              `export function ${key}(...args) { const f = load()[${JSON.stringify(key)}]; ` +
              'return new.target === undefined ? Reflect.apply(f, this, args) : Reflect.construct(f, args); }',
          ),
        ].join('\n');
        return { contents, loader: 'js', resolveDir: dirname(args.path) };
      });
    },
  };
}

/** Bundles the target `name` (a key of TARGETS). */
async function bundle(name) {
  const target = TARGETS[name];
  if (target === undefined) {
    console.error(`bundle-cli: name one of ${Object.keys(TARGETS).join(', ')}`);
    process.exit(2);
  }
  const outfile = join(root, target.outfile);

  const options = nodeBundleOptions({
    entryPoint: join(root, target.entry),
    outfile,
    // The SDK reached through node_modules/@arcotheon/sdk is bundled from its real path, sdk/dist/.
    modules: /[\\/](sdk[\\/]dist|out[\\/]electron)[\\/].*\.js$/,
    loader: 'js',
    // esbuild applies the nearest tsconfig.json's "paths" to .js files too, and the repository's
    // maps @arcotheon/sdk to sdk/src (for typechecking). The bundles are made from the builds, so they
    // resolve the SDK as Node does (sdk/dist, through its package.json exports), where each module's
    // import.meta.url is rewritten and finds schema/ and the bundled registry beside it.
    tsconfig: join(root, 'tsconfig.electron.json'),
    moduleUrl: (path) => {
      const relativePath = relative(dirname(outfile), path).split(sep).join('/');
      return `new URL(${JSON.stringify(relativePath.startsWith('.') ? relativePath : `./${relativePath}`)}, import.meta.url).href`;
    },
  });
  if (name === 'adcap') {
    // The adcap CLI starts as a new process for every command, so what it loads is paid every time
    // (measured with a warm compile cache):
    // - split: what is imported only on demand (the MCP SDK and zod for `adcap mcp` and mcp tools,
    //   ~0.6 MB) goes to chunks of its own beside the entry, loaded when first imported;
    // - comments and indentation dropped, non-ASCII escaped: Node decodes the source as UTF-8 and a
    //   few non-ASCII comment characters sent the whole 3 MB through the slow path (2-3x longer), and
    //   V8 then kept it as a two-byte string. Identifiers keep their names, so stack traces stay readable;
    // - Node's own modules through require() (builtinsThroughRequire): an ES import of one builds its
    //   ES module facade, reading every export, and a few exports are getters that load more of Node
    //   (fs.promises, fs.ReadStream's streams). Measured: `adcap list` 444 -> 410 ms of CPU;
    // - the CommonJS packages few commands use run on their first use (lazyPackages).
    options.plugins = [lazyPackages(), builtinsThroughRequire(), generatedValidatorsRequireBundled(), ...options.plugins];
    const outdir = dirname(outfile);
    delete options.outfile;
    Object.assign(options, {
      entryPoints: { adcap: join(root, target.entry) },
      outdir,
      splitting: true,
      chunkNames: 'adcap-[name]-[hash]',
      outExtension: { '.js': '.mjs' },
      minifyWhitespace: true,
      minifySyntax: true,
      charset: 'ascii',
      metafile: true,
    });
  }
  const result = await build(options);
  if (name === 'adcap') {
    // Chunks are named by their content hash, so an earlier build's are left behind. They are removed
    // only once unused for 10 minutes: an adcap started just before this build may still be loading
    // them (the tree is shared by parallel builds and test runs; an immediate removal broke one).
    const outdir = dirname(outfile);
    const current = new Set(Object.keys(result.metafile.outputs).map((file) => basename(file)));
    for (const file of readdirSync(outdir)) {
      if (!/^adcap-.*\.mjs$/.test(file) || current.has(file)) continue;
      if (Date.now() - statSync(join(outdir, file)).mtimeMs > 10 * 60_000) rmSync(join(outdir, file), { force: true });
    }
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await bundle(process.argv[2]);
