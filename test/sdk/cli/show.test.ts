// `adcap show` and `adcap list --json` for installed capabilities from any source,
// in-process: a sideloaded capability shows with no remote at all, or with remotes that fail.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adcap } from './run-cli.js';

let work: string;
let home: string;
// No embedded registry and no configured remote: only the sideloaded install exists.
const run = (argv: string[]) =>
  adcap([...argv, '--home', home], { cwd: work, env: { ARCOTHEON_EMBEDDED_REGISTRY: '', PATH: process.env.PATH } });

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'adcap-cli-show-'));
  home = join(work, 'home');
  for (const argv of [
    ['init', 'notes', '--id', 'local/notes'],
    ['build', 'notes', '-o', 'notes.adcap'],
    ['install', './notes.adcap', '--allow-unsigned', '--yes'],
  ]) {
    const r = await run(argv);
    if (r.code !== 0) throw new Error(`adcap ${argv.join(' ')}: ${r.stderr}`);
  }
});
afterAll(async () => {
  await rm(work, { recursive: true, force: true });
});

describe('adcap show for an installed capability', () => {
  const skillDir = () => join(home, 'packages', 'local', 'notes', '0.1.0', 'skills', 'notes');

  it('shows a sideloaded capability when no remote is configured, and says the remotes could not be read', async () => {
    const r = await run(['show', 'local/notes']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/^note: the remotes could not be read \(E_NOT_FOUND: No remotes are configured/);
    expect(r.stdout.split('\n')).toEqual(
      expect.arrayContaining([
        'local/notes - Notes (not listed by any remote)',
        expect.stringMatching(/^installed: 0\.1\.0 \(unsigned, sideloaded from .*notes\.adcap\)$/),
        `  notes  ${skillDir()}`,
        '  greet (node): Returns a greeting for the given name.',
        '      name (string, required) - who to greet',
      ]),
    );
  });

  it('--json carries the installed view, and --remote naming an unknown remote does not hide it', async () => {
    const r = await run(['show', 'local/notes', '--remote', 'nowhere', '--json']);
    expect(r.code, r.stderr).toBe(0);
    const shown = JSON.parse(r.stdout) as {
      id: string;
      remote: null;
      publisher: string;
      installed: { dir: string; skills: unknown[]; tools: Array<{ input: unknown }>; workflows: unknown[] };
    };
    expect(shown).toMatchObject({ id: 'local/notes', remote: null, publisher: 'local' });
    expect(shown.installed.dir).toBe(join(home, 'packages', 'local', 'notes', '0.1.0'));
    expect(shown.installed.skills).toEqual([{ name: 'notes', path: 'skills/notes', dir: skillDir() }]);
    expect(shown.installed.tools[0]?.input).toEqual([{ name: 'name', required: true, type: 'string', description: 'who to greet' }]);
    expect(shown.installed.workflows).toEqual([]);
  });

  it("a capability that is neither installed nor listed keeps the remotes' error", async () => {
    const r = await run(['show', 'local/other']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^error E_NOT_FOUND: No remotes are configured/);
  });

  it('list --json gives each installed capability its skill directories', async () => {
    const r = await run(['list', '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect((JSON.parse(r.stdout) as Array<{ id: string; skills: unknown }>).map((c) => [c.id, c.skills])).toEqual([
      ['local/notes', [{ name: 'notes', path: 'skills/notes', dir: skillDir() }]],
    ]);
  });
});
