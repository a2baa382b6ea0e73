// Lint rules, including the layers of DESIGN §2 as import restrictions: crossing a process
// boundary the wrong way is a build error, as in VS Code's code-layering rule.
//
// Three rules hold the layers (test/build/layer-rules.test.ts proves each fires):
// - `import-x/no-restricted-paths` checks the file an import resolves to (static, `export … from`
//   and `import('…')` alike), so no spelling of a path slips past: the SDK's layers, the SDK's
//   barrels, electron/ reaching into sdk/src, the renderer reaching past electron/common.
// - `no-restricted-imports` checks bare module names (`electron`, `electron/*`, Node modules,
//   `@arcotheon/sdk`), which do not resolve to files of this repository.
// - `no-restricted-syntax` does the same for `import()`, which `no-restricted-imports` does not
//   see, requires `import()` to take a string literal so that the two above can check it, and
//   `import type` instead of `import('…')` types, which neither sees. It also refuses `require()`,
//   `createRequire` and `process.getBuiltinModule`, which load modules none of the three can see.
// Every script extension is covered (`.ts`, `.mts`, `.cts`, `.tsx`, `.js`, `.mjs`, `.cjs`, `.jsx`):
// a layer is a folder, whatever its files are called. electron/ holds four process worlds (DESIGN
// §2): main (main.ts, main/), the utility process (utility.ts, utility/, and host/, the service it
// runs), the browser-mode server (cli.ts, web.ts, web-sessions.ts, which run host/ too) and the
// preload; they share electron/common (the contract) and electron/shared (process-neutral Node
// helpers), and none imports another's files.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { SDK_LAYERS } from './build/sdk-layers.mjs';
import js from '@eslint/js';
import { createTypeScriptImportResolver } from 'eslint-import-resolver-typescript';
import importX from 'eslint-plugin-import-x';
import globals from 'globals';
import tseslint from 'typescript-eslint';

const electronOnlyMessage = 'Only electron/main.ts, electron/utility.ts and electron/preload.ts may import electron (DESIGN §2).';
const electronOnly = { name: 'electron', message: electronOnlyMessage };
/** `electron/main`, `electron/renderer`, `electron/common`, `electron/utility`: the module under other names. */
const electronSubpaths = { group: ['electron/*'], message: electronOnlyMessage };
/** Every extension a script of this repository may have: a layer rule that matched `*.ts` only let `.mts` and `.js` files past. */
const CODE = '{ts,mts,cts,tsx,js,mjs,cjs,jsx}';
const nodeModules = ['node:*', 'fs', 'fs/*', 'path', 'child_process', 'os', 'crypto', 'ws'];

/** SDK layers, lowest first (build/sdk-layers.mjs). */
const sdkLayers = SDK_LAYERS;
const sdkPath = (dir) => (dir === 'errors' ? 'sdk/src/errors.ts' : `sdk/src/${dir}`);
/** The package's entry points: what hosts import. Inside the SDK a module imports the module that defines a name. */
const sdkBarrels = ['sdk/src/index.ts', 'sdk/src/internal.ts'];

/**
 * The process worlds of electron/ (see the top of this file): each may import its own files,
 * electron/common and electron/shared, and the worlds it names in `uses`, never the others.
 */
const electronWorlds = {
  main: { files: ['electron/main.ts', 'electron/main'], uses: [] },
  utility: { files: ['electron/utility.ts', 'electron/utility'], uses: ['host'] },
  host: { files: ['electron/host'], uses: [] },
  web: { files: ['electron/cli.ts', 'electron/web.ts', 'electron/web-sessions.ts'], uses: ['host'] },
  preload: { files: ['electron/preload.ts', 'electron/preload'], uses: [] },
  shared: { files: ['electron/shared'], uses: [] },
};
function electronWorldZones() {
  return Object.entries(electronWorlds).flatMap(([name, world]) => {
    const others = Object.entries(electronWorlds).filter(([other]) => other !== name && other !== 'shared' && !world.uses.includes(other));
    const from = others.flatMap(([, w]) => w.files);
    const message =
      `electron/ ${name === 'shared' ? 'shared helpers' : `code of the ${name} world`} may import only its own files, ` +
      `electron/common, electron/shared${world.uses.length > 0 ? ` and ${world.uses.join(', ')}` : ''}: ` +
      `the ${others.map(([o]) => o).join(', ')} files belong to other processes (DESIGN §2).`;
    return world.files.map((target) => ({ target, from, message }));
  });
}

/** Zones of `import-x/no-restricted-paths`: files under `target` may not import files under `from`. */
const layerZones = [
  ...sdkLayers.flatMap((layer, index) => {
    const higher = sdkLayers.slice(index + 1).flat();
    if (higher.length === 0) return [];
    return layer.map((dir) => ({
      target: sdkPath(dir),
      from: higher.map(sdkPath),
      message: `sdk/src/${dir} sits below ${higher.join(', ')} in the SDK's layers and may not import from them.`,
    }));
  }),
  {
    target: 'sdk/src',
    from: sdkBarrels,
    message:
      'Inside the SDK, import the module that defines the name, ' +
      "never the package's entry points (index.ts, internal.ts): they sit above every layer.",
  },
  { target: 'sdk', from: ['electron', 'renderer'], message: 'The SDK never imports from electron/ or renderer/ (DESIGN §2).' },
  {
    target: 'electron',
    from: ['sdk/src'],
    message:
      'electron/ uses the SDK as a host does, through @arcotheon/sdk (or @arcotheon/sdk/internal), never its source files (DESIGN §2).',
  },
  {
    target: 'electron/common',
    from: ['electron'],
    except: ['./common'],
    message: 'electron/common is the contract: it imports nothing from the SDK, the host or the renderer (DESIGN §2).',
  },
  {
    target: 'electron/common',
    from: ['sdk', 'renderer'],
    message: 'electron/common is the contract: it imports nothing from the SDK, the host or the renderer (DESIGN §2).',
  },
  ...electronWorldZones(),
  {
    target: 'renderer',
    from: ['electron'],
    except: ['./common'],
    message: 'The renderer talks to the host only through the host API contract in electron/common (DESIGN §2).',
  },
  {
    target: 'renderer',
    from: ['sdk'],
    // The one exception: the ranking rules of catalogue search, a module that imports nothing (the
    // block for SEARCH_RANK below holds it to that), so the Discover screen's search worker ranks
    // with the very code the SDK and the CLI use (UI.md "Fast"; docs/design.md "Search").
    except: ['./src/registry/search-rank.ts'],
    message: 'The renderer talks to the host only through the host API contract in electron/common, never to the SDK (DESIGN §2).',
  },
];
/** The pure ranking module of catalogue search: the one SDK file the renderer may import. */
const SEARCH_RANK = 'sdk/src/registry/search-rank.ts';

/**
 * The package's entry points where they will be once built. The TypeScript resolver follows
 * sdk/package.json's `exports` to sdk/dist, which an unbuilt clone lacks; unresolved, an import of
 * `@arcotheon/sdk` would pass every zone. This resolver, asked only when the first one fails,
 * answers the files those exports name, so the layers judge a clone the same before and after
 * `npm run build`.
 */
const sdkManifest = JSON.parse(readFileSync(new URL('./sdk/package.json', import.meta.url), 'utf8'));
export const sdkPackageBeforeBuild = {
  interfaceVersion: 3,
  name: 'arcotheon-sdk-before-build',
  resolve(source) {
    const subpath =
      source === sdkManifest.name ? '.' : source.startsWith(`${sdkManifest.name}/`) ? `.${source.slice(sdkManifest.name.length)}` : null;
    const target = subpath === null ? undefined : sdkManifest.exports[subpath];
    const file = typeof target === 'string' ? target : target?.default;
    return typeof file === 'string' ? { found: true, path: join(import.meta.dirname, 'sdk', file) } : { found: false };
  },
};

/** A regular expression in a selector: `/` written as \u002F, which esquery's regex literals cannot escape. */
const sourceMatching = (pattern) => `ImportExpression[source.value=/${pattern.replaceAll('/', '\\u002F')}/]`;

/** `no-restricted-syntax` entries for `import()`, the twin of a file group's `no-restricted-imports`. */
const dynamicImports = {
  literalOnly: {
    selector: "ImportExpression:not([source.type='Literal'])",
    message: 'import() takes a string literal here, so that the layer rules can check what it loads (DESIGN §2).',
  },
  typeImport: {
    selector: 'TSImportType',
    message: "Write import type { … } from '…', which the layer rules check, instead of an import('…') type (DESIGN §2).",
  },
  electron: { selector: sourceMatching('^electron($|/)'), message: electronOnlyMessage },
  /** `require()`, `createRequire(…)(…)`, `module.require` and `process.getBuiltinModule` load what no layer rule sees. */
  require: [
    "CallExpression[callee.type='Identifier'][callee.name='require']",
    "Identifier[name='createRequire']",
    "MemberExpression[property.name=/^(require|getBuiltinModule)$/]:not([object.type='ThisExpression'])",
    'MemberExpression[property.value=/^(require|createRequire|getBuiltinModule)$/]',
  ].map((selector) => ({
    selector,
    message: 'Load modules with import, which the layer rules check, never with require(), createRequire or getBuiltinModule (DESIGN §2).',
  })),
  node: (message) => ({ selector: sourceMatching('^(node:|fs$|fs/|path$|child_process$|os$|crypto$|ws$)'), message }),
  sdk: (message) => ({ selector: sourceMatching('^@arcotheon/sdk($|/)'), message }),
};
const rendererNodeMessage = 'The renderer is browser code: no Node modules (DESIGN §2).';
const rendererSdkMessage =
  'The renderer talks to the host only through the host API contract in ' +
  'electron/common, never to the SDK or the host directly (DESIGN §2).';
const commonNodeMessage = 'electron/common is imported by the renderer: no Node modules (DESIGN §2).';
const commonSdkMessage = 'electron/common is the contract: it imports nothing from the SDK, the host or the renderer (DESIGN §2).';

/** Ways to turn a string into HTML or script in a page: none of them may appear in renderer/. */
const htmlSinks = [
  "JSXAttribute[name.name='dangerouslySetInnerHTML']",
  "Property[key.name='dangerouslySetInnerHTML']",
  'MemberExpression[property.name=/^(innerHTML|outerHTML|srcdoc)$/]',
  'CallExpression[callee.property.name=/^(insertAdjacentHTML|write|writeln|createContextualFragment|parseFromString)$/]',
];

/**
 * Files that may not import electron: all of electron/ but main.ts, utility.ts and preload.ts (the
 * contract and the launchers have blocks of their own).
 */
const electronHostFiles = [`electron/**/*.${CODE}`];
const electronHostIgnores = ['electron/main.ts', 'electron/utility.ts', 'electron/preload.ts', 'electron/common/**', 'electron/bin/**'];
const toolingFiles = ['electron/bin/**/*.mjs', 'test/**/*.ts', 'e2e/**/*.ts', 'examples/**/*.{ts,js,mjs}'];

export default tseslint.config(
  {
    ignores: [
      '**/node_modules/**',
      '**/dist/**',
      'out/**',
      '.tmp/**',
      'coverage/**',
      'examples/**/build/**',
      '**/*.generated.ts',
      'sdk/src/generated/**',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      ecmaVersion: 2023,
      sourceType: 'module',
      globals: { ...globals.node },
    },
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
      'no-console': 'off',
      eqeqeq: ['error', 'always'],
    },
  },
  {
    // Layers by the file an import resolves to (see the top of this file). The resolver reads
    // tsconfig.base.json, not tsconfig.json: the latter maps @arcotheon/sdk to sdk/src for the
    // typecheck, and electron/ must be judged by what the package import really loads (sdk/dist).
    files: [`sdk/**/*.${CODE}`, `electron/**/*.${CODE}`, `renderer/**/*.${CODE}`],
    plugins: { 'import-x': importX },
    settings: {
      'import-x/resolver-next': [
        createTypeScriptImportResolver({ project: ['tsconfig.base.json', 'renderer/tsconfig.json'], noWarnOnMultipleProjects: true }),
        sdkPackageBeforeBuild,
      ],
    },
    rules: {
      'import-x/no-restricted-paths': ['error', { basePath: import.meta.dirname, zones: layerZones }],
    },
  },
  {
    // sdk/src and its TypeScript around it; sdk/examples/*.mjs are host programs, which load what they like.
    files: [`sdk/src/**/*.${CODE}`, 'sdk/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [electronOnly],
          patterns: [
            { group: ['**/electron/**', '**/renderer/**'], message: 'The SDK never imports from electron/ or renderer/ (DESIGN §2).' },
          ],
        },
      ],
      'no-restricted-syntax': [
        'error',
        dynamicImports.literalOnly,
        dynamicImports.typeImport,
        dynamicImports.electron,
        ...dynamicImports.require,
      ],
    },
  },
  {
    // The renderer imports this one SDK module (the search worker), so it imports nothing at all:
    // plain data in and out, no Node, no browser API, no other SDK code.
    files: [SEARCH_RANK],
    rules: {
      'no-restricted-syntax': [
        'error',
        ...['ImportDeclaration', 'ImportExpression', 'ExportAllDeclaration', 'ExportNamedDeclaration[source]', 'TSImportType'].map(
          (selector) => ({
            selector,
            message: `${SEARCH_RANK} is imported by the renderer's search worker: it imports nothing (DESIGN §2 layers).`,
          }),
        ),
        ...dynamicImports.require,
      ],
    },
  },
  {
    // A switch over a union (permission ids, runtime kinds, message types) must
    // name every member, and a `default` does not count, so adding a permission id or a runtime
    // to its table makes the linter point at every switch that must handle it. Needs type
    // information, so only for the code that has such switches, from a program of just that code
    // (tsconfig.lint.json: about half the work of the whole tsconfig.json).
    files: ['sdk/src/**/*.ts', 'electron/**/*.ts'],
    // disallowAutomaticSingleRunInference: under CI=true typescript-eslint would build a one-shot program
    // that lacks the `paths` base of tsconfig.json, and TypeScript then fails while it words a report.
    languageOptions: {
      parserOptions: { project: ['./tsconfig.lint.json'], tsconfigRootDir: import.meta.dirname, disallowAutomaticSingleRunInference: true },
    },
    rules: {
      '@typescript-eslint/switch-exhaustiveness-check': [
        'error',
        { considerDefaultExhaustiveForUnions: false, requireDefaultForNonUnion: true },
      ],
    },
  },
  {
    // electron/main/ and electron/utility/ hold the entry points' logic as plain, unit-tested
    // modules (as electron/preload/ for the preload): only electron/main.ts, utility.ts and
    // preload.ts themselves import electron.
    files: [...electronHostFiles, ...toolingFiles],
    ignores: ['electron/main.ts', 'electron/utility.ts', 'electron/preload.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [electronOnly],
          patterns: [electronSubpaths, { group: ['**/renderer/**'], message: 'Only the renderer build may import renderer code.' }],
        },
      ],
    },
  },
  {
    files: electronHostFiles,
    ignores: electronHostIgnores,
    rules: {
      'no-restricted-syntax': [
        'error',
        dynamicImports.literalOnly,
        dynamicImports.typeImport,
        dynamicImports.electron,
        ...dynamicImports.require,
      ],
    },
  },
  {
    // Launchers and tests load compiled files by computed paths; they still may not load electron.
    files: toolingFiles,
    rules: { 'no-restricted-syntax': ['error', dynamicImports.electron] },
  },
  {
    files: ['electron/main.ts', 'electron/utility.ts', 'electron/preload.ts'],
    rules: { 'no-restricted-syntax': ['error', dynamicImports.literalOnly, dynamicImports.typeImport, ...dynamicImports.require] },
  },
  {
    // The host API contract is imported by the renderer: types and plain data only (DESIGN §2).
    files: [`electron/common/**/*.${CODE}`],
    languageOptions: { globals: {} },
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [electronOnly],
          patterns: [
            electronSubpaths,
            { group: nodeModules, message: commonNodeMessage },
            {
              group: ['@arcotheon/sdk', '@arcotheon/sdk/**', '**/sdk/**', '../host/**', '../web*', '**/renderer/**'],
              message: commonSdkMessage,
            },
          ],
        },
      ],
      'no-restricted-syntax': [
        'error',
        dynamicImports.literalOnly,
        dynamicImports.typeImport,
        dynamicImports.electron,
        dynamicImports.node(commonNodeMessage),
        dynamicImports.sdk(commonSdkMessage),
        ...dynamicImports.require,
      ],
    },
  },
  {
    files: [`renderer/**/*.${CODE}`],
    languageOptions: { globals: { ...globals.browser } },
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [electronOnly],
          patterns: [
            electronSubpaths,
            { group: nodeModules, message: rendererNodeMessage },
            {
              group: [
                '@arcotheon/sdk',
                '@arcotheon/sdk/**',
                '**/sdk/**',
                '!**/sdk/src',
                '!**/sdk/src/registry',
                '!**/sdk/src/registry/search-rank.js',
                '**/electron/**',
                '!**/electron/common',
                '!**/electron/common/**',
              ],
              message: rendererSdkMessage,
            },
          ],
        },
      ],
      // Package and registry text is hostile: it is rendered as text nodes or inert
      // Markdown, never parsed as HTML, and never turned into code.
      'no-restricted-syntax': [
        'error',
        ...htmlSinks.map((selector) => ({
          selector,
          message: 'No HTML sinks in the renderer: render package text as text or with components/Markdown.tsx.',
        })),
        dynamicImports.literalOnly,
        dynamicImports.typeImport,
        dynamicImports.electron,
        dynamicImports.node(rendererNodeMessage),
        dynamicImports.sdk(rendererSdkMessage),
        ...dynamicImports.require,
      ],
      'no-eval': 'error',
      'no-implied-eval': 'error',
      'no-new-func': 'error',
    },
  },
);
