// Long lists are cut for a person, with a count, and complete in --json.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_LIST_ROWS } from '../../../sdk/src/cli/terminal-text.js';
import { adcap } from './run-cli.js';

let work: string;
// Not a user's run: no built-in registry, so the test's own (or none) is the only one.
const run = (argv: string[]) => adcap(argv, { cwd: work, env: { ARCOTHEON_EMBEDDED_REGISTRY: '' } });

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'adcap-cli-lists-'));
  expect((await run(['init', 'big', '--id', 'acme/big'])).code).toBe(0);
  await mkdir(join(work, 'big', 'data'), { recursive: true });
  for (let i = 0; i < 40; i++) await writeFile(join(work, 'big', 'data', `part-${String(i).padStart(2, '0')}.txt`), `part ${i}\n`);
  const built = await run(['build', 'big', '-o', 'big.adcap']);
  expect(built.code, built.stderr).toBe(0);
});
afterAll(async () => {
  await rm(work, { recursive: true, force: true });
});

describe('inspect of a package with many entries', () => {
  it('prints the first entries and how many more; --json lists every one', async () => {
    const all = JSON.parse((await run(['inspect', 'big.adcap', '--json'])).stdout) as { entries: string[] };
    expect(all.entries.length).toBe(44); // capability.json, 40 data files, README.md, SKILL.md, the tool
    const human = (await run(['inspect', 'big.adcap'])).stdout.split('\n');
    const start = human.indexOf('entries:');
    expect(human.slice(start + 1, start + 1 + DEFAULT_LIST_ROWS)).toEqual(all.entries.slice(0, DEFAULT_LIST_ROWS).map((e) => `  ${e}`));
    expect(human[start + 1 + DEFAULT_LIST_ROWS]).toBe(
      `  … and ${all.entries.length - DEFAULT_LIST_ROWS} more; use --json to list them all`,
    );
  });
});
