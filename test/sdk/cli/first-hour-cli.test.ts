// What a newcomer meets first in the terminal, with no ARCOTHEON_* variable: the built-in example
// registry in `remote list` and `remote show`, `show` of a capability that is not installed (what it
// can do before install), the plan printed even with --yes, and `doctor --fix --dry-run` saying it
// changed nothing and what a repair would do.
import { appendFile, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adcap } from './run-cli.js';

let work: string;
let home: string;
const run = (argv: string[]) => adcap([...argv, '--home', home], { cwd: work, env: { PATH: process.env.PATH } });

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'adcap-first-hour-'));
  home = join(work, 'home');
});
afterAll(async () => {
  await rm(work, { recursive: true, force: true });
});

describe('adcap on a fresh home', () => {
  it('remote list and remote show include the built-in registry, marked as such; it cannot be removed', async () => {
    const list = await run(['remote', 'list']);
    expect(list.code, list.stderr).toBe(0);
    expect(list.stdout).toMatch(
      /^examples\tfile:\/\/\S+\/examples\/registry\/v1\/\t.*\[built in: ships with Arcotheon; cannot be removed\]$/m,
    );
    const json = JSON.parse((await run(['remote', 'list', '--json'])).stdout) as Array<{ name: string; builtIn?: boolean }>;
    expect(json).toEqual([expect.objectContaining({ name: 'examples', builtIn: true })]);
    const show = await run(['remote', 'show', 'examples']);
    expect(show.code, show.stderr).toBe(0);
    expect(show.stdout).toMatch(/^examples\t\[built in/);
    expect(show.stdout).toMatch(/catalogue: "arcotheon-examples" sequence \d+, 8 capabilities/);
    const remove = await run(['remote', 'remove', 'examples']);
    expect(remove.code).toBe(2);
    expect(remove.stderr).toMatch(/^error E_USAGE: "examples" is the registry built into Arcotheon and cannot be removed/);
  });

  it('show, before install, says what the capability asks for and what it holds', async () => {
    const r = await run(['show', 'acme/data-report']);
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stdout.split('\n');
    expect(lines).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^not installed; 1\.0\.0 would install \(\d+(\.\d)? KiB to download\):$/),
        '  permissions it asks for:',
        expect.stringMatching(
          /^ {4}Connect to 127\.0\.0\.1 on port 11434 \[medium risk\] - Only if your host uses the optional local model/,
        ),
        '  skills: csv-report',
        '  tools: check_quality (their input fields show once installed)',
        '  workflows: csv-report',
        '  needs: acme/csv-summary ^1.0.0',
      ]),
    );
  });

  it('install --yes still prints the plan it approves; --json keeps stderr for errors', async () => {
    const r = await run(['install', 'acme/csv-summary', '--yes']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain('new permission: Read files in the folder you choose for each run');
    expect(r.stderr).toMatch(/Install: approved with --yes\n$/);
    const quiet = await run(['install', 'arcotheon/commit-messages', '--yes', '--json']);
    expect(quiet.code, quiet.stderr).toBe(0);
    expect(quiet.stderr).toBe('');
  });

  it('doctor --fix --dry-run says it was a dry run and what a repair would do, and changes nothing', async () => {
    const file = join(home, 'packages', 'acme', 'csv-summary', '1.0.0', 'tools', 'summarize_csv.py');
    await appendFile(file, '\n# changed by hand\n');
    const changed = await readFile(file, 'utf8');
    const plain = await run(['doctor']);
    const dry = await run(['doctor', '--fix', '--dry-run']);
    expect(dry.code).toBe(1);
    expect(dry.stdout).not.toBe(plain.stdout);
    expect(dry.stdout).toMatch(/^would repair: acme\/csv-summary@1\.0\.0: /m);
    expect(dry.stdout).toMatch(/^dry run: nothing was changed; "adcap doctor --fix" would repair 1 of 1 problems$/m);
    expect(JSON.parse((await run(['doctor', '--dry-run', '--json'])).stdout)).toMatchObject({ dryRun: true, ok: false });
    expect(await readFile(file, 'utf8')).toBe(changed);
    const fixed = await run(['doctor', '--fix']);
    expect(fixed.code, fixed.stdout).toBe(0);
    expect(await readFile(file, 'utf8')).not.toBe(changed);
  });
});
