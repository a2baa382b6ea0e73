// The layer rules of eslint.config.js (DESIGN §2): each fixture under
// test/fixtures/layers/ is linted as the file its `// lint-as:` line names and must be reported by
// exactly the rules its `// expect:` line lists, so every hole the review found (the SDK's barrels
// imported from inside it, `import()`, `electron/*` subpaths, electron/ deep-importing sdk/src/)
// is shown closed, next to code the layers allow. That the real tree passes them is `npm run lint`'s
// job (a step of `npm test`: the same eslint.config.js over the whole tree, failing on any report);
// linting it here again cost ~11 s of CPU a run.
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));
const fixtures = join(root, 'test', 'fixtures', 'layers');
const LAYER_RULES = ['import-x/no-restricted-paths', 'no-restricted-imports', 'no-restricted-syntax'];

interface Fixture {
  file: string;
  code: string;
  lintAs: string;
  expected: string[];
}

async function loadFixtures(): Promise<Fixture[]> {
  const names = (await readdir(fixtures)).filter((name) => name.endsWith('.ts.txt')).sort();
  return Promise.all(
    names.map(async (file) => {
      const code = await readFile(join(fixtures, file), 'utf8');
      const lintAs = /^\/\/ lint-as: (\S+)$/m.exec(code)?.[1];
      const expect = /^\/\/ expect: (.+)$/m.exec(code)?.[1];
      if (lintAs === undefined || expect === undefined) throw new Error(`${file} lacks its // lint-as: or // expect: line`);
      return { file, code, lintAs, expected: expect.trim() === 'nothing' ? [] : expect.trim().split(/\s+/).sort() };
    }),
  );
}

// The fixtures are virtual files outside tsconfig.lint.json; the layer rules need no type information,
// so the typed parsing the exhaustiveness rule asks for is turned off for them.
const eslint = new ESLint({
  cwd: root,
  ruleFilter: ({ ruleId }) => LAYER_RULES.includes(ruleId),
  overrideConfig: { languageOptions: { parserOptions: { project: false, projectService: false } } },
});
const all = await loadFixtures();

describe('the layer rules', () => {
  it('have a fixture for each rule, firing and allowing', () => {
    const fired = new Set(all.flatMap((f) => f.expected));
    expect([...fired].sort()).toEqual([...LAYER_RULES].sort());
    expect(all.some((f) => f.expected.length === 0)).toBe(true);
  });

  it.each(all.map((f) => [f.file, f] as const))('%s', async (_name, fixture) => {
    const [result] = await eslint.lintText(fixture.code, { filePath: join(root, fixture.lintAs) });
    const messages = result?.messages ?? [];
    expect(messages.filter((m) => m.fatal === true)).toEqual([]);
    const ruleIds = [...new Set(messages.map((m) => m.ruleId ?? ''))].sort();
    expect(ruleIds).toEqual(fixture.expected);
    for (const message of messages) {
      // A report is one of the configured sentences, never import-x's complaint about the zones themselves.
      expect(message.message).not.toMatch(/^Restricted path/);
      expect(message.message).toMatch(/DESIGN §2|layers|entry points|string literal/);
    }
  });
});

describe('the layer rules on a clone not yet built', () => {
  // Without sdk/dist the TypeScript resolver cannot follow @arcotheon/sdk's `exports`; the fallback
  // resolver must name the very files Node resolves once built, so the zones judge both states alike.
  it('resolve the package entry points to the files Node loads after the build', async () => {
    // By URL: eslint.config.js is plain JavaScript without declarations, so the typecheck does not follow it.
    const configUrl = new URL('../../eslint.config.js', import.meta.url).href;
    const { sdkPackageBeforeBuild } = (await import(configUrl)) as {
      sdkPackageBeforeBuild: { resolve(source: string): { found: boolean; path?: string } };
    };
    for (const entry of ['@arcotheon/sdk', '@arcotheon/sdk/internal']) {
      expect(sdkPackageBeforeBuild.resolve(entry)).toEqual({ found: true, path: fileURLToPath(import.meta.resolve(entry)) });
    }
    expect(sdkPackageBeforeBuild.resolve('@arcotheon/sdk/not-exported')).toEqual({ found: false });
    expect(sdkPackageBeforeBuild.resolve('electron')).toEqual({ found: false });
  });
});
