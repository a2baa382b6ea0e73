// Lint rules, including the layers of DESIGN §2 as import restrictions: crossing a process
// boundary the wrong way is a build error, as in VS Code's code-layering rule.
import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';

const electronOnly = {
  name: 'electron',
  message: 'Only electron/main.ts, electron/utility.ts and electron/preload.ts may import electron (DESIGN §2).',
};

/** SDK layers, lowest first: a module may import only from its own layer or a lower one. */
const sdkLayers = [
  ['util', 'errors'],
  ['format', 'permissions'],
  ['trust'],
  ['resolve', 'cache', 'sandbox'],
  ['registry'],
  ['store'],
  ['run'],
  ['cli'],
];

function sdkLayerRules() {
  return sdkLayers.flatMap((layer, index) => {
    const higher = sdkLayers.slice(index + 1).flat();
    if (higher.length === 0) return [];
    return layer.map((dir) => ({
      files: [dir === 'errors' ? 'sdk/src/errors.ts' : `sdk/src/${dir}/**/*.ts`],
      rules: {
        'no-restricted-imports': [
          'error',
          {
            paths: [electronOnly],
            patterns: [
              {
                group: ['**/electron/**', '**/renderer/**'],
                message: 'The SDK never imports from electron/ or renderer/ (DESIGN §2).',
              },
              {
                group: higher.flatMap((h) => [`../${h}/*`, `../../${h}/*`, `../${h}.js`]),
                message: `sdk/src/${dir} sits below ${higher.join(', ')} in the SDK's layers and may not import from them.`,
              },
            ],
          },
        ],
      },
    }));
  });
}

/** Ways to turn a string into HTML or script in a page: none of them may appear in renderer/. */
const htmlSinks = [
  "JSXAttribute[name.name='dangerouslySetInnerHTML']",
  "Property[key.name='dangerouslySetInnerHTML']",
  'MemberExpression[property.name=/^(innerHTML|outerHTML|srcdoc)$/]',
  "CallExpression[callee.property.name=/^(insertAdjacentHTML|write|writeln|createContextualFragment|parseFromString)$/]",
];

export default tseslint.config(
  {
    ignores: ['**/node_modules/**', '**/dist/**', 'out/**', '.tmp/**', 'coverage/**', 'examples/**/build/**'],
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
    files: ['sdk/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [electronOnly],
          patterns: [{ group: ['**/electron/**', '**/renderer/**'], message: 'The SDK never imports from electron/ or renderer/ (DESIGN §2).' }],
        },
      ],
    },
  },
  ...sdkLayerRules(),
  {
    // Issue 15, item 2: a switch over a union (permission ids, runtime kinds, message types) must
    // name every member, and a `default` does not count, so adding a permission id or a runtime
    // to its table makes the linter point at every switch that must handle it. Needs type
    // information, so only for the code that has such switches, from a program of just that code
    // (tsconfig.lint.json: about half the work of the whole tsconfig.json).
    files: ['sdk/src/**/*.ts', 'electron/**/*.ts'],
    languageOptions: { parserOptions: { project: ['./tsconfig.lint.json'], tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/switch-exhaustiveness-check': ['error', { considerDefaultExhaustiveForUnions: false, requireDefaultForNonUnion: true }],
    },
  },
  {
    // electron/main/ and electron/utility/ hold the entry points' logic as plain, unit-tested
    // modules (as electron/preload/ for the preload): only electron/main.ts, utility.ts and
    // preload.ts themselves import electron.
    files: ['electron/host/**/*.ts', 'electron/web.ts', 'electron/cli.ts', 'electron/bin/**/*.mjs', 'electron/main/**/*.ts', 'electron/utility/**/*.ts', 'electron/preload/**/*.ts', 'test/**/*.ts', 'e2e/**/*.ts', 'examples/**/*.{ts,js,mjs}'],
    rules: {
      'no-restricted-imports': ['error', { paths: [electronOnly], patterns: [{ group: ['**/renderer/**'], message: 'Only the renderer build may import renderer code.' }] }],
    },
  },
  {
    // The host API contract is imported by the renderer: types and plain data only (DESIGN §2).
    files: ['electron/common/**/*.ts'],
    languageOptions: { globals: {} },
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [electronOnly],
          patterns: [
            { group: ['node:*', 'fs', 'path', 'child_process', 'os', 'crypto', 'ws'], message: 'electron/common is imported by the renderer: no Node modules (DESIGN §2).' },
            { group: ['@arcotheon/sdk', '@arcotheon/sdk/**', '**/sdk/**', '../host/**', '../web*', '**/renderer/**'], message: 'electron/common is the contract: it imports nothing from the SDK, the host or the renderer (DESIGN §2).' },
          ],
        },
      ],
    },
  },
  {
    files: ['renderer/**/*.{ts,tsx}'],
    languageOptions: { globals: { ...globals.browser } },
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [electronOnly],
          patterns: [
            { group: ['node:*', 'fs', 'path', 'child_process', 'os', 'crypto'], message: 'The renderer is browser code: no Node modules (DESIGN §2).' },
            {
              group: ['@arcotheon/sdk', '@arcotheon/sdk/**', '**/sdk/**', '**/electron/**', '!**/electron/common', '!**/electron/common/**'],
              message: 'The renderer talks to the host only through the host API contract in electron/common, never to the SDK or the host directly (DESIGN §2).',
            },
          ],
        },
      ],
      // Package and registry text is hostile (issue 10): it is rendered as text nodes or inert
      // Markdown, never parsed as HTML, and never turned into code.
      'no-restricted-syntax': ['error', ...htmlSinks.map((selector) => ({ selector, message: 'No HTML sinks in the renderer: render package text as text or with components/Markdown.tsx (issue 10).' }))],
      'no-eval': 'error',
      'no-implied-eval': 'error',
      'no-new-func': 'error',
    },
  },
);
