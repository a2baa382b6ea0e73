// eslint.config.js turns on @typescript-eslint/switch-exhaustiveness-check for
// sdk/src and electron/, so a permission id or a runtime added to its table makes the linter point
// at every switch that must handle it, and a `default` does not hide the missing case. Linted with
// the repository's own configuration through ESLint's Node API: fixtures with a copy of the union
// plus one new member, and the real sandbox switch with its id type widened by one. The type-aware
// parser only knows files of the TypeScript project, so each text is linted in place of an
// existing file that no other module imports (sdk/src/cli/bin.ts, electron/host/conformance.ts),
// and every file linted with other text is linted again with its own afterwards, so no later lint
// in this process sees the changed text. Nothing is written to disk.
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { ESLint } from 'eslint';
import { beforeAll, describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../', import.meta.url));
const RULE = '@typescript-eslint/switch-exhaustiveness-check';

let eslint: ESLint;

// Building the TypeScript program for the first file takes most of a minute on a busy 2-core machine.
beforeAll(async () => {
  eslint = new ESLint({ cwd: root });
  await eslint.lintText(await readFile(`${root}sdk/src/cli/bin.ts`, 'utf8'), { filePath: `${root}sdk/src/cli/bin.ts` });
}, 300_000);

async function exhaustivenessMessages(text: string, filePath: string): Promise<Array<{ line: number; message: string }>> {
  try {
    const [result] = await eslint.lintText(text, { filePath: `${root}${filePath}` });
    expect(result?.messages.filter((m) => m.fatal === true)).toEqual([]);
    return (result?.messages ?? []).filter((m) => m.ruleId === RULE).map((m) => ({ line: m.line, message: m.message }));
  } finally {
    await eslint.lintText(await readFile(`${root}${filePath}`, 'utf8'), { filePath: `${root}${filePath}` });
  }
}

const fixture = (name: string): Promise<string> => readFile(new URL(`../fixtures/lint/${name}`, import.meta.url), 'utf8');

describe('switch-exhaustiveness-check', () => {
  it('points at a switch over permission ids that misses a new id, although it has a default', async () => {
    const text = await fixture('new-permission-id.ts.txt');
    const messages = await exhaustivenessMessages(text, 'sdk/src/cli/bin.ts');
    expect(messages).toHaveLength(1);
    expect(messages[0]?.message).toContain('"net:listen"');
    expect(messages[0]?.line).toBe(text.split('\n').findIndex((l) => l.includes('switch (id)')) + 1);
    // The same switch over the real ids is clean: the rule fires because of the new id only.
    expect(await exhaustivenessMessages(text.replace("PermissionId | 'net:listen'", 'PermissionId'), 'sdk/src/cli/bin.ts')).toEqual([]);
  });

  it('points at switches over runtime types and runtime kinds that miss a new one', async () => {
    const text = await fixture('new-runtime-kind.ts.txt');
    const messages = await exhaustivenessMessages(text, 'sdk/src/cli/bin.ts');
    expect(messages.map((m) => m.message)).toEqual([expect.stringContaining('"service"'), expect.stringContaining('"container"')]);
    const clean = text.replace("RuntimeType | 'container'", 'RuntimeType').replace("RuntimeKindName | 'service'", 'RuntimeKindName');
    expect(await exhaustivenessMessages(clean, 'sdk/src/cli/bin.ts')).toEqual([]);
  });

  it("fires on the sandbox's real switch over the grants when the id type gains a member", async () => {
    const path = 'sdk/src/sandbox/sandbox.ts';
    const source = await readFile(`${root}${path}`, 'utf8');
    const guard = 'if (!isPermissionId(id)) continue;';
    expect(source).toContain(guard);
    expect(await exhaustivenessMessages(source, path)).toEqual([]);
    const widened = source.replace(guard, "if (!isPermissionId(id) && id !== 'net:listen') continue;");
    const messages = await exhaustivenessMessages(widened, path);
    expect(messages).toHaveLength(1);
    expect(messages[0]?.message).toContain('"net:listen"');
  });

  it('is on for electron/ too', async () => {
    const text = (await fixture('new-permission-id.ts.txt')).replace(
      "from '../permissions/table.js'",
      "from '../../sdk/src/permissions/table.js'",
    );
    expect(await exhaustivenessMessages(text, 'electron/host/conformance.ts')).toHaveLength(1);
  });
});
